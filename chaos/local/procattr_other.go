//go:build !linux

package local

import "syscall"

// sysProcAttr puts a node in its own process group, so a Ctrl-C on the
// terminal reaches the runner (which closes the cluster) rather than every
// node at once. Only Linux can tie a child's life to its parent's; elsewhere
// a harness that dies without Close leaves its nodes running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// stopped cannot be observed portably: Pause returns once SIGSTOP is sent,
// and the process may still answer briefly.
func stopped(pid int) (bool, error) { return true, nil }
