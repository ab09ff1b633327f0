//go:build linux

// Package rawio reads and writes non-blocking sockets with raw system
// calls, for the paths that do so on every request.
//
// Go's ordinary system call entry tells the scheduler the goroutine may
// block, and when every processor was idle it also wakes the runtime's
// monitor thread (sysmon), which then polls every 20 µs for at least a
// millisecond before it backs off. A process that goes idle and wakes a
// thousand times a second or more, as a replica does between its
// primary's writes, or a node whose few clients wait on each reply, kept
// the monitor polling all the time: its sleeps were 15-20% of a replica's
// CPU under a pipelined load. A read or write of a non-blocking socket
// returns at once, so it needs none of that; waiting for the socket stays
// with the caller (the network poller or an event loop's epoll).
package rawio

import (
	"syscall"
	"unsafe"
)

// Read reads from the non-blocking descriptor fd into p, retrying when a
// signal interrupts it. It returns the count and the error number (0 on
// success, EAGAIN when nothing is there; 0 bytes with no error is the end
// of the stream).
func Read(fd uintptr, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != syscall.EINTR {
			if e != 0 {
				return 0, e
			}
			return int(n), 0
		}
	}
}

// Write writes p to the non-blocking descriptor fd until all of it is
// written or the socket's buffer is full, retrying when a signal
// interrupts it. It returns the bytes written and the error number
// (EAGAIN when the buffer filled before the end).
func Write(fd uintptr, p []byte) (int, syscall.Errno) {
	done := 0
	for done < len(p) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
		switch e {
		case 0:
			done += int(n)
		case syscall.EINTR:
		default:
			return done, e
		}
	}
	return done, 0
}
