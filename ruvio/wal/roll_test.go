package wal

import (
	"testing"
	"time"
)

// segmentBases returns the first sequence of every segment, in order.
func segmentBases(l *Log) []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uint64
	for _, s := range l.segs {
		out = append(out, s.base)
	}
	return out
}

// A snapshot at seq asks the log to roll after seq, so DropBefore(seq)
// reclaims every record the snapshot holds, the active segment included.
func TestRollAfterLetsASnapshotDropItsWholeLog(t *testing.T) {
	for _, mode := range []Mode{Always, EverySec} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			l := mustOpen(t, Options{Dir: dir, Mode: mode, SegmentBytes: 1 << 20, FsyncInterval: 10 * time.Millisecond})
			defer l.Close()
			appendN(l, 50)
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			l.RollAfter(50)
			waitFor(t, "the roll after 50", func() bool {
				b := segmentBases(l)
				return len(b) == 2 && b[1] == 51
			})
			if err := l.DropBefore(50); err != nil {
				t.Fatal(err)
			}
			if got := segmentBases(l); len(got) != 1 || got[0] != 51 {
				t.Fatalf("segments after the drop: %v", got)
			}
			appendN(l, 10)
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			checkRecords(t, collect(t, l, 50), 51, 60)
			l.Close()
			r := mustOpen(t, Options{Dir: dir, Mode: mode})
			defer r.Close()
			if r.First() != 51 || r.Last() != 60 {
				t.Fatalf("reopened: first %d last %d", r.First(), r.Last())
			}
		})
	}
}

// A roll requested while records past it are pending splits the write
// exactly at the requested sequence.
func TestRollAfterSplitsAPendingBatch(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, Options{Dir: dir, Mode: EverySec, SegmentBytes: 1 << 20, FsyncInterval: time.Hour})
	defer l.Close()
	appendN(l, 5)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	// Hold the writer's next pass until both the appends and the request
	// are in: the mutex keeps it from taking the batch meanwhile.
	l.mu.Lock()
	l.rollAt = 12
	l.mu.Unlock()
	appendN(l, 15)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a segment starting at 13", func() bool {
		for _, b := range segmentBases(l) {
			if b == 13 {
				return true
			}
		}
		return false
	})
	if err := l.DropBefore(12); err != nil {
		t.Fatal(err)
	}
	if got := segmentBases(l); got[0] != 13 {
		t.Fatalf("segments after the drop: %v", got)
	}
	checkRecords(t, collect(t, l, 12), 13, 20)
}
