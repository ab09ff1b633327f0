package wal

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// A waker registered several times before a publish is called once, and
// not again at a later publish it did not register for.
func TestWakeOnPublishCallsEachWakerOnce(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: Always})
	var a, b, c atomic.Int32
	wakeA, wakeB, wakeC := func() { a.Add(1) }, func() { b.Add(1) }, func() { c.Add(1) }
	publish := func(val string) {
		t.Helper()
		seq := l.Append(1, [][][]byte{{[]byte("SET"), []byte("k"), []byte(val)}})
		if err := l.WaitDurable(context.Background(), seq); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		l.WakeOnPublish(&wakeA)
	}
	l.WakeOnPublish(&wakeB)
	publish("v")
	// The wakers run on the writer right after it publishes Durable,
	// which may be after WaitDurable returned.
	poll.Until(t, 5*time.Second, "a and b called", func() bool { return a.Load() > 0 && b.Load() > 0 })
	l.WakeOnPublish(&wakeC)
	publish("w")
	poll.Until(t, 5*time.Second, "c called", func() bool { return c.Load() > 0 })
	if a.Load() != 1 || b.Load() != 1 || c.Load() != 1 {
		t.Fatalf("calls: a %d, b %d, c %d; want one each", a.Load(), b.Load(), c.Load())
	}
	if l.Failed() {
		t.Fatal("a running log reports Failed")
	}
	l.Close()
	if !l.Failed() {
		t.Fatal("a closed log does not report Failed")
	}
}
