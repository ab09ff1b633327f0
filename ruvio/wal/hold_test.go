package wal

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

func TestWakeWriter(t *testing.T) {
	for _, tc := range []struct {
		mode    Mode
		pending int
		held    bool
		want    bool
	}{
		{Always, 100, false, true},
		{Always, 100, true, false},
		{Always, deferredWakeBytes - 1, true, false},
		{Always, deferredWakeBytes, true, true},
		{EverySec, 100, false, false},
		{EverySec, 100, true, false},
		{EverySec, deferredWakeBytes, false, true},
	} {
		if got := wakeWriter(tc.mode, tc.pending, tc.held); got != tc.want {
			t.Errorf("wakeWriter(%v, %d, held %v) = %v, want %v", tc.mode, tc.pending, tc.held, got, tc.want)
		}
	}
}

// While the log is held, the appends of a turn wake no writer, and the
// holder's wait writes and fsyncs them all in one pass: one fsync for the
// turn, and every record on disk when the wait returns.
func TestHeldTurnIsOneFsync(t *testing.T) {
	fs := newMemFS()
	fs.syncDelay = time.Millisecond
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
	defer l.Close()
	// The first record creates the segment, which has fsyncs of its own.
	if err := l.WaitDurable(context.Background(), appendN(l, 1)); err != nil {
		t.Fatal(err)
	}
	for turn := range 5 {
		before := l.Stats().Fsyncs
		l.Hold()
		var last uint64
		for range 20 {
			last = appendN(l, 1)
			runtime.Gosched() // a writer woken by the append would run now
		}
		if err := l.WaitDurable(context.Background(), last); err != nil {
			t.Fatal(err)
		}
		if got := l.Stats().Fsyncs - before; got != 1 {
			t.Fatalf("turn %d: %d fsyncs for one held turn, want 1", turn, got)
		}
		c := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs.crash(nil)})
		if c.Last() < last {
			t.Fatalf("turn %d: a crash after the wait keeps records up to %d of %d", turn, c.Last(), last)
		}
		c.Close()
		l.Release()
	}
}

// Records appended while the log is held that nobody waits for (a
// replica's, an expiry's) become durable once the hold ends: Release
// wakes the writer for them.
func TestReleaseWakesTheWriterForWhatIsLeft(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: Always})
	defer l.Close()
	l.Hold()
	l.Hold() // two loops in a turn
	last := appendN(l, 3)
	l.Release()
	l.Release()
	poll.Until(t, 10*time.Second, "the records appended under the hold to become durable", func() bool {
		return l.Durable() >= last
	})
}

// Loops holding the log for turns, clients appending and waiting without
// a hold, and appenders that never wait all run at once: every wait
// returns with its record durable against a crash, and every record ends
// up durable.
func TestHoldersWaitersAndAppendersTogether(t *testing.T) {
	fs := newMemFS()
	fs.syncDelay = 100 * time.Microsecond
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: 4096, fs: fs})
	defer l.Close()
	var (
		wg sync.WaitGroup
		mu sync.Mutex // appendN reads Last, so appends take turns
	)
	appendOne := func(n int) uint64 {
		mu.Lock()
		defer mu.Unlock()
		return appendN(l, n)
	}
	wait := func(seq uint64) {
		if err := l.WaitDurable(context.Background(), seq); err != nil {
			t.Error(err)
			return
		}
		if d := l.Durable(); d < seq {
			t.Errorf("WaitDurable(%d) returned at durable %d", seq, d)
		}
	}
	for range 2 { // loops
		wg.Go(func() {
			for turn := range 100 {
				l.Hold()
				var last uint64
				for range turn%5 + 1 {
					last = appendOne(1)
				}
				wait(last)
				l.Release()
			}
		})
	}
	for range 4 { // clients on goroutines of their own
		wg.Go(func() {
			for range 50 {
				wait(appendOne(1))
			}
		})
	}
	wg.Go(func() { // a replica's apply: appends nobody waits for
		for range 200 {
			appendOne(1)
		}
	})
	wg.Wait()
	last := l.Last()
	poll.Until(t, 10*time.Second, "every record to become durable", func() bool { return l.Durable() >= last })
	c := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs.crash(nil)})
	defer c.Close()
	checkRecords(t, collect(t, c, 0), 1, last)
}
