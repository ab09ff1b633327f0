package wal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestReplayLive replays repeatedly while records are appended, segments
// rotate and old segments are dropped. Every Replay must return a gap-free
// run of correct records from after+1 through at least the Last() seen just
// before the call, or ErrCompacted when after has been dropped.
func TestReplayLive(t *testing.T) {
	for _, mode := range []Mode{Always, EverySec} {
		t.Run(mode.String(), func(t *testing.T) {
			l := mustOpen(t, Options{Dir: t.TempDir(), Mode: mode, SegmentBytes: 1024, FsyncInterval: 2 * time.Millisecond})
			defer l.Close()
			const total = 3000
			done := make(chan struct{})
			go func() {
				defer close(done)
				for l.Last() < total {
					seq := appendN(l, 1)
					if seq%50 == 0 && mode == Always {
						l.WaitDurable(context.Background(), seq)
					}
				}
			}()
			var dropWG sync.WaitGroup
			dropWG.Add(1)
			go func() {
				defer dropWG.Done()
				for running(done) {
					if last := l.Last(); last > 500 {
						if err := l.DropBefore(last - 500); err != nil {
							t.Error(err)
							return
						}
					}
					time.Sleep(time.Millisecond)
				}
			}()

			replays, compacted := 0, 0
			var after uint64
			for running(done) || replays < 10 {
				hi := l.Last()
				next := after + 1
				err := l.Replay(after, func(r Record) error {
					if r.Seq != next || r.Epoch != epochFor(r.Seq) || !sameOps(r.Ops, opsFor(r.Seq)) {
						t.Fatalf("Replay(%d): record %d (%q) where %d was due", after, r.Seq, r.Ops, next)
					}
					next++
					return nil
				})
				switch {
				case errors.Is(err, ErrCompacted):
					compacted++
					// Catch up the way a replica would, after a snapshot.
					if f := l.First(); f > 0 {
						after = f - 1
					}
					continue
				case err != nil:
					t.Fatalf("Replay(%d): %v", after, err)
				}
				if next-1 < hi {
					t.Fatalf("Replay(%d) ended at %d, but Last() was %d before the call", after, next-1, hi)
				}
				replays++
				// Alternate between following the tail and re-reading
				// from further back.
				switch {
				case replays%5 == 0:
					after = 0 // compacted once the dropper has run
				case replays%2 == 0:
					after = next - 1
				case next-1 > 300:
					after = next - 1 - 300
				}
			}
			dropWG.Wait()
			t.Logf("%d replays, %d compacted", replays, compacted)
		})
	}
}

// TestReplayMemoryTail holds the writer inside write(2) and then inside
// fsync, so that records are in flight and pending, and checks that Replay
// returns them all, from memory, without duplicates.
func TestReplayMemoryTail(t *testing.T) {
	for _, hold := range []string{"write", "fsync"} {
		t.Run(hold, func(t *testing.T) {
			fs := newMemFS()
			l := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
			appendN(l, 5)
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			entered := make(chan struct{}, 1)
			release := make(chan struct{})
			hook := func() {
				select {
				case entered <- struct{}{}:
					<-release
				default:
				}
			}
			fs.mu.Lock()
			if hold == "write" {
				fs.beforeWrite = hook
			} else {
				fs.beforeSync = hook
			}
			fs.mu.Unlock()

			appendN(l, 3) // taken by the writer, which now blocks
			<-entered
			entered <- struct{}{} // later calls pass straight through
			appendN(l, 4)         // pending behind the blocked writer
			checkRecords(t, collect(t, l, 0), 1, 12)
			checkRecords(t, collect(t, l, 6), 7, 12)
			if l.Durable() != 5 {
				t.Fatalf("durable %d while the writer is held", l.Durable())
			}
			close(release)
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			checkRecords(t, collect(t, l, 0), 1, 12)
			l.Close()
		})
	}
}

func TestReplayCallbackError(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: Always})
	defer l.Close()
	appendN(l, 10)
	stop := errors.New("enough")
	n := 0
	err := l.Replay(0, func(r Record) error {
		n++
		if r.Seq == 4 {
			return stop
		}
		return nil
	})
	if err != stop || n != 4 {
		t.Fatalf("Replay returned %v after %d records", err, n)
	}
}

// TestReplayOutlivesDropAndClose: a Replay that is part-way through keeps
// reading the segments it started with while DropBefore deletes them and
// Close closes the log.
func TestReplayOutlivesDropAndClose(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: Always, SegmentBytes: 300})
	appendN(l, 100)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	next := uint64(1)
	err := l.Replay(0, func(r Record) error {
		if r.Seq != next || !sameOps(r.Ops, opsFor(r.Seq)) {
			t.Fatalf("record %d (%q), want %d", r.Seq, r.Ops, next)
		}
		if next == 10 {
			if err := l.DropBefore(99); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		next++
		return nil
	})
	if err != nil || next != 101 {
		t.Fatalf("Replay across DropBefore and Close: %v, ended at %d", err, next-1)
	}
}
