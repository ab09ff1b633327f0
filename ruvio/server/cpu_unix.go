//go:build unix

package server

import (
	"fmt"
	"syscall"
)

// cpuInfo is INFO's CPU section: the process's and its children's system
// and user CPU seconds, as Redis's used_cpu_* (getrusage). Redis's
// *_main_thread lines are left out: a Go process has no main thread that
// runs the commands.
func cpuInfo() [][2]string {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	secs := func(tv syscall.Timeval) string {
		return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
	}
	return [][2]string{
		{"used_cpu_sys", secs(self.Stime)}, {"used_cpu_user", secs(self.Utime)},
		{"used_cpu_sys_children", secs(children.Stime)}, {"used_cpu_user_children", secs(children.Utime)},
	}
}
