//go:build linux

package rawio

import (
	"bytes"
	"syscall"
	"testing"
)

// socketPair returns two connected non-blocking stream sockets.
func socketPair(t *testing.T) (a, b uintptr) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
	})
	return uintptr(fds[0]), uintptr(fds[1])
}

func TestReadAndWrite(t *testing.T) {
	a, b := socketPair(t)
	buf := make([]byte, 64)
	if n, e := Read(a, buf); e != syscall.EAGAIN || n != 0 {
		t.Fatalf("reading an empty socket: %d bytes, errno %v; want EAGAIN", n, e)
	}
	if n, e := Read(a, nil); e != 0 || n != 0 {
		t.Fatalf("reading into nothing: %d bytes, errno %v", n, e)
	}
	if n, e := Write(b, []byte("hello")); e != 0 || n != 5 {
		t.Fatalf("writing 5 bytes: %d written, errno %v", n, e)
	}
	if n, e := Read(a, buf); e != 0 || string(buf[:n]) != "hello" {
		t.Fatalf("read %q, errno %v; want hello", buf[:n], e)
	}
	syscall.Shutdown(int(b), syscall.SHUT_WR)
	if n, e := Read(a, buf); e != 0 || n != 0 {
		t.Fatalf("reading after the peer shut down: %d bytes, errno %v; want 0 and no error", n, e)
	}
}

// A write larger than the socket's buffer writes what fits and reports
// EAGAIN with the count; the rest goes once the reader drains it.
func TestWriteStopsAtAFullBuffer(t *testing.T) {
	a, b := socketPair(t)
	big := bytes.Repeat([]byte("x"), 8<<20)
	n, e := Write(a, big)
	if e != syscall.EAGAIN || n <= 0 || n >= len(big) {
		t.Fatalf("writing %d bytes into a socket buffer: %d written, errno %v; want part and EAGAIN", len(big), n, e)
	}
	got := 0
	buf := make([]byte, 64<<10)
	for {
		m, e := Read(b, buf)
		if e == syscall.EAGAIN {
			break
		}
		if e != 0 {
			t.Fatal(e)
		}
		got += m
	}
	if got != n {
		t.Fatalf("the reader got %d bytes, the writer reported %d", got, n)
	}
	if _, e := Read(a, nil); e != 0 {
		t.Fatal(e)
	}
	if _, e := Write(uintptr(1<<20), []byte("x")); e != syscall.EBADF {
		t.Fatalf("writing to a closed descriptor: errno %v, want EBADF", e)
	}
}
