//go:build linux

package server

import (
	"net"
	"runtime"
	"sync/atomic"
	"testing"
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

	for round := range 50 {
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
		yields := 0
		for !got.Load() {
			if yields == 20 {
				t.Fatalf("round %d: the reader had not run after %d yields", round, yields)
			}
			y.yield()
			yields++
		}
		<-done
	}
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
