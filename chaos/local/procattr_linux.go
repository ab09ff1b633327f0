package local

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// sysProcAttr puts a node in its own process group, so a Ctrl-C on the
// terminal reaches the runner (which then closes the cluster and keeps the
// logs) rather than every node at once, and has the kernel SIGKILL the node
// if the harness dies without closing it (a go test timeout, a crash), so
// no orphan keeps a port. Pdeathsig fires when the thread that started the
// node exits; Go only retires threads whose goroutine locked them and
// never unlocked, which this package does not do.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// stopped says whether every thread of process pid is stopped. SIGSTOP
// returns before the kernel has stopped a multi-threaded process, and a
// node can answer a request or two in between; Pause polls this so that
// it returns only once the node is frozen.
func stopped(pid int) (bool, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if err != nil {
			// A thread that went away is not running either.
			continue
		}
		// The state follows the command name, which is in parentheses
		// and may itself contain ") ".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) {
			return false, fmt.Errorf("unexpected %s/%s/stat: %q", dir, task.Name(), b)
		}
		if s := b[i+2]; s != 'T' && s != 't' {
			return false, nil
		}
	}
	return true, nil
}
