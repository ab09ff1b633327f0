//go:build linux

package server

import (
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ruvio/ruvio/internal/poll"
)

// TestNetYieldWakesNetworkWaiters: on one thread, a goroutine that never
// blocks (as a busy event loop) lets a goroutine waiting on a socket run
// within a few yields (each a few microseconds). runtime.Gosched alone
// leaves it to the runtime's monitor, 10 ms or more later.
func TestNetYieldWakesNetworkWaiters(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	y, err := newNetYield()
	if err != nil {
		t.Fatal(err)
	}
	defer y.close()

	// A round whose reader needs more than fewYields is slow. On a loaded
	// machine an odd round is (another thread of the runtime waiting for
	// a processor); with the network left to the runtime's monitor every
	// round would need thousands of yields.
	const rounds, fewYields, slowAllowed = 50, 20, 5
	var slow []int
	for range rounds {
		var got atomic.Bool
		reading := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			buf := make([]byte, 1)
			close(reading)
			if _, err := peer.Read(buf); err == nil {
				got.Store(true)
			}
		}()
		<-reading
		// Let the reader park in the poller: it runs until Read waits.
		for range 3 {
			runtime.Gosched()
		}
		if _, err := client.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		// Count from when the byte is in the reader's socket: on a loaded
		// machine the kernel may queue it only later (its network work
		// deferred to a thread of its own), and no yield can wake the
		// reader before that.
		waitQueued(t, peer, &got)
		yields := 0
		for !got.Load() {
			y.yield()
			yields++
		}
		<-done
		if yields > fewYields {
			slow = append(slow, yields)
		}
	}
	if len(slow) > slowAllowed {
		t.Fatalf("%d of %d rounds needed more than %d yields for the reader to run: %v", len(slow), rounds, fewYields, slow)
	}
}

// waitQueued returns once c's socket holds unread bytes, or got is set
// (the reader already ran, woken while waiting).
func waitQueued(t *testing.T, c net.Conn, got *atomic.Bool) {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the byte written in the reader's socket", func() bool {
		queued := 0
		raw.Control(func(fd uintptr) { queued, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
		return queued > 0 || got.Load()
	})
}

func BenchmarkNetYield(b *testing.B) {
	y, err := newNetYield()
	if err != nil {
		b.Fatal(err)
	}
	defer y.close()
	for b.Loop() {
		y.yield()
	}
}
