package freeport

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A claim is a file in claimDir named after its port and holding the PID of
// the process that drew the port. The process never removes a claim it
// handed out, as its servers bind the port later: the claim holds until
// the process ends, and is then stale and may be taken over. A PID reused
// by another process keeps that claim's port out of use until it ends too.

// claimDir is the directory of the claims, or "" if it cannot be created:
// draws are then reserved in their process only.
var claimDir = sync.OnceValue(func() string {
	dir := filepath.Join(os.TempDir(), "ruvio-freeport")
	if os.MkdirAll(dir, 0o777) != nil {
		return ""
	}
	return dir
})

// claim claims every port of base..base+n-1 in dir for process self, or
// none. It reports false if a running process, this one included, holds
// one of them; release removes the claims, for a run that is not handed
// out after all. Where dir cannot be written, it claims nothing and
// reports true, so that draws go on as if there were no other processes.
func claim(dir string, self, base, n int) (ok bool, release func()) {
	none := func() {}
	if dir == "" {
		return true, none
	}
	// Every claim is a link to a file that already holds the PID, so that
	// no process can read a claim before its PID is in it.
	pid, err := pidFile(dir, self)
	if err != nil {
		return true, none
	}
	defer os.Remove(pid)
	var made []string
	release = func() {
		for _, name := range made {
			os.Remove(name)
		}
	}
	for p := base; p < base+n; p++ {
		name := filepath.Join(dir, strconv.Itoa(p))
		ok, err := claimPort(self, pid, name)
		if err != nil {
			release()
			return true, none
		}
		if !ok {
			release()
			return false, none
		}
		made = append(made, name)
	}
	return true, release
}

// claimPort links name to pid, the file holding self, unless another
// running process holds name; a claim self holds already is its own. The
// error is that of a directory that cannot be written.
func claimPort(self int, pid, name string) (bool, error) {
	err := os.Link(pid, name)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	if holder(name) == self {
		// This process drew it before: whether it is still in use is
		// for the caller's taken to say, so that a long-running process
		// (chaos figures) does not use up the range.
		return true, nil
	}
	if !stale(name) {
		return false, nil
	}
	// Two processes may find the same claim stale; the one that removed it
	// may have claimed the port again by the time the other removes it.
	// So a stale claim is removed only under a lock, by its holder, after
	// reading the claim again. A process that dies holding the lock keeps
	// the port from ever being reclaimed; that costs one port of thousands.
	lock := name + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false, nil
	}
	f.Close()
	defer os.Remove(lock)
	if !stale(name) || os.Remove(name) != nil {
		return false, nil
	}
	// A process that found no claim may have linked one in the meantime.
	return os.Link(pid, name) == nil, nil
}

// pidFile writes the PID self to a new file in dir and names it.
func pidFile(dir string, self int) (string, error) {
	f, err := os.CreateTemp(dir, "pid-")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(strconv.Itoa(self))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// stale reports whether the claim name is of a process that has ended. A
// claim that cannot be read is not: it may be vanishing or another
// user's.
func stale(name string) bool {
	pid := holder(name)
	return pid > 0 && !running(pid)
}

// holder is the PID in the claim name, or 0 when it cannot be read.
func holder(name string) int {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

// running reports whether process pid may run. Only "no such process"
// counts as ended, which Windows never tells here: its claims are never
// reclaimed.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	defer p.Release()
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
