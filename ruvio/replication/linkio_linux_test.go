//go:build linux

package replication

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A link's raw reads and writes carry data both ways, wait for it in
// the poller, keep the connection's deadlines and see the end of the
// stream; a connection that is not plain TCP is used as it is.
func TestLinkIOOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	peer, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer peer.Close()

	rw := linkIO(nc)
	if _, raw := rw.(*rawLink); !raw {
		t.Fatalf("a TCP connection got %T, want the raw link", rw)
	}
	// A write larger than the socket buffers waits for the reader.
	big := bytes.Repeat([]byte("0123456789"), 1<<20)
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(big))))
		got <- b
	}()
	if n, err := rw.Write(big); err != nil || n != len(big) {
		t.Fatalf("write: %d of %d, %v", n, len(big), err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the peer got %d bytes, not what was written", len(b))
	}

	// A read of a reply the peer sends only once it has our request,
	// which usually finds the socket empty and waits.
	go func() {
		req := make([]byte, 4)
		if _, err := io.ReadFull(peer, req); err == nil {
			peer.Write([]byte("pong"))
		}
	}()
	if _, err := rw.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := io.ReadFull(rw, buf[:4]); err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("read %q, %v; want pong", buf[:n], err)
	}

	// The connection's read deadline still ends a read.
	nc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := rw.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past the deadline: %v, want a deadline error", err)
	}
	nc.SetReadDeadline(time.Time{})

	// The peer's close is the end of the stream.
	peer.Close()
	if _, err := rw.Read(buf); err != io.EOF {
		t.Fatalf("a read after the peer closed: %v, want EOF", err)
	}
	// A closed connection refuses both.
	nc.Close()
	if _, err := rw.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a read on the closed connection: %v", err)
	}
	if _, err := rw.Write(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a write on the closed connection: %v", err)
	}

	// Anything else is used as it is.
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if rw := linkIO(a); rw != io.ReadWriter(a) {
		t.Fatalf("a pipe got %T, want the pipe itself", rw)
	}
}
