//go:build linux

package replication

import (
	"io"
	"net"
	"os"
	"syscall"

	"github.com/ruvio/ruvio/ruvio/rawio"
)

// linkIO is how a replication link reads and writes its socket: on a
// plain TCP connection with raw system calls (see package rawio: a
// replica goes idle between its primary's writes many times a second),
// waiting in the network poller as net.Conn does; on anything else (TLS)
// through the connection itself.
func linkIO(nc net.Conn) io.ReadWriter {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	return &rawLink{rc: rc}
}

// rawLink reads and writes through raw system calls; deadlines set on the
// connection still apply (syscall.RawConn waits as net.Conn does).
type rawLink struct{ rc syscall.RawConn }

func (l *rawLink) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	if err := l.rc.Read(func(fd uintptr) bool {
		n, errno = rawio.Read(fd, p)
		return errno != syscall.EAGAIN
	}); err != nil {
		return 0, err
	}
	switch {
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (l *rawLink) Write(p []byte) (int, error) {
	done := 0
	var errno syscall.Errno
	err := l.rc.Write(func(fd uintptr) bool {
		var n int
		n, errno = rawio.Write(fd, p[done:])
		done += n
		return errno != syscall.EAGAIN
	})
	if err == nil && errno != 0 {
		err = os.NewSyscallError("write", errno)
	}
	return done, err
}
