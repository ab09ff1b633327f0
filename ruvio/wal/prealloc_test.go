package wal

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// spareState returns the state of l's spare.
func (l *Log) spareStateNow() spareState {
	l.prealloc.mu.Lock()
	defer l.prealloc.mu.Unlock()
	return l.prealloc.state
}

// fileData returns what reads of path in fs see.
func (m *memFS) fileData(path string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.files[filepath.Clean(path)]
	if !ok {
		return nil, false
	}
	return bytes.Clone(n.data), true
}

// spareWhenHalfFull fills the active segment to half its size and waits,
// appending nothing more, until the spare is ready.
func spareWhenHalfFull(t *testing.T, l *Log, segBytes int64) {
	t.Helper()
	fillUntil(t, l, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.segs) > 0 && l.segs[len(l.segs)-1].size >= segBytes/2
	})
	poll.Until(t, 10*time.Second, "the spare to be written", func() bool { return l.spareStateNow() == spareReady })
}

// fillUntil appends and syncs records until done says so.
func fillUntil(t *testing.T, l *Log, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !done(); {
		appendN(l, 1)
		if err := l.Sync(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("condition never reached")
		}
	}
}

// Once the active segment is half full a spare of zeros is written, and the
// next rotation makes it the new segment: records overwrite its zeros, and
// a reopened log reads them all, its zeros as room rather than damage.
func TestRotationTakesThePreallocatedSpare(t *testing.T) {
	const segBytes = 4096
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs})
	spare := filepath.Join("/wal", spareName)
	if _, ok := fs.fileData(spare); ok {
		t.Fatal("a spare before the first segment is half full")
	}
	spareWhenHalfFull(t, l, segBytes)
	if b, ok := fs.fileData(spare); !ok || len(b) != segBytes || !bytes.Equal(b, make([]byte, segBytes)) {
		t.Fatalf("spare: %d bytes (exists %v), want %d zeros", len(b), ok, segBytes)
	}
	fillUntil(t, l, func() bool { return l.Stats().Segments == 2 })
	l.mu.Lock()
	second := l.segs[1]
	written := second.size
	l.mu.Unlock()
	b, _ := fs.fileData(second.path)
	if len(b) != segBytes || written >= segBytes || !bytes.Equal(b[written:], make([]byte, segBytes-written)) {
		t.Fatalf("second segment: %d bytes, %d written; want the spare's %d with zeros past the records", len(b), written, segBytes)
	}
	if _, ok := fs.fileData(spare); ok {
		t.Fatal("the spare is still there after the rotation took it")
	}
	// The next rotation seals the second segment: its zeros are cut.
	spareWhenHalfFull(t, l, segBytes)
	fillUntil(t, l, func() bool { return l.Stats().Segments == 3 })
	l.mu.Lock()
	written = second.size
	l.mu.Unlock()
	if b, _ := fs.fileData(second.path); int64(len(b)) != written {
		t.Fatalf("sealed segment: %d bytes in the file, %d written", len(b), written)
	}
	last := l.Last()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// A power cut keeps the fsynced bytes: the records and the zeros.
	crashed := fs.crash(nil)
	c := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: crashed})
	defer c.Close()
	if _, _, _, torn := c.TornTail(); torn || c.Last() != last {
		t.Fatalf("reopened: last %d (want %d), torn tail %v", c.Last(), last, torn)
	}
	checkRecords(t, collect(t, c, 0), 1, last)
	if seq := appendN(c, 1); seq != last+1 {
		t.Fatalf("append after reopening got %d", seq)
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	checkRecords(t, collect(t, c, 0), 1, last+1)
}

// A write cut short inside a preallocated segment is a torn tail like one
// at the end of a growing file: the partial record and the zeros after it
// are cut, every record before it stays.
func TestTornWriteIntoPreallocatedZeros(t *testing.T) {
	const segBytes = 4096
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs})
	spareWhenHalfFull(t, l, segBytes)
	fillUntil(t, l, func() bool { return l.Stats().Segments == 2 })
	fillUntil(t, l, func() bool { // a few records into the second
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.segs[1].size > 200
	})
	l.mu.Lock()
	path, end := l.segs[1].path, l.segs[1].size
	l.mu.Unlock()
	last := l.Last()
	// The next record reaches the page cache and the machine dies with
	// only part of it on disk.
	fs.mu.Lock()
	node := fs.files[path]
	fs.mu.Unlock()
	frame, err := AppendFrame(nil, Record{Seq: last + 1, Ops: opsFor(last + 1)})
	if err != nil {
		t.Fatal(err)
	}
	fs.mu.Lock()
	node.data = writeAt(node.data, frame, end)
	fs.mu.Unlock()
	crashed := fs.crash(func(string, int) (int, []byte) { return len(frame) / 2, nil })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: crashed})
	defer c.Close()
	file, off, cut, torn := c.TornTail()
	if !torn || file != path || off != end || cut != segBytes-end {
		t.Fatalf("TornTail %s %d %d %v, want %s %d %d", file, off, cut, torn, path, end, segBytes-end)
	}
	if c.Last() != last {
		t.Fatalf("last %d, want %d", c.Last(), last)
	}
	checkRecords(t, collect(t, c, 0), 1, last)
}

// Close stops a spare being written and removes it; Open removes one an
// earlier process left.
func TestSpareRemovedByCloseAndOpen(t *testing.T) {
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: 4096, fs: fs})
	fillUntil(t, l, func() bool { return l.spareStateNow() != spareNone })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	spare := filepath.Join("/wal", spareName)
	if _, ok := fs.fileData(spare); ok {
		t.Fatal("Close left the spare")
	}
	f, err := fs.OpenFile(spare, os.O_RDWR|os.O_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(make([]byte, 100), 0)
	f.Close()
	c := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: 4096, fs: fs})
	defer c.Close()
	if _, ok := fs.fileData(spare); ok {
		t.Fatal("Open kept a spare left behind")
	}
}

// lowFS is a filesystem reporting little free space.
type lowFS struct {
	*memFS
	free int64
}

func (f lowFS) FreeBytes(string) (int64, error) { return f.free, nil }

// With too little free space no spare is written: it would take the space
// the log's own writes need. Segments are then created the plain way.
func TestNoSpareWhenTheDiskIsNearlyFull(t *testing.T) {
	const segBytes = 4096
	fs := lowFS{newMemFS(), spareHeadroom * segBytes}
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs})
	defer l.Close()
	fillUntil(t, l, func() bool { return l.spareStateNow() != spareNone })
	poll.Until(t, 10*time.Second, "the spare to be refused", func() bool { return l.spareStateNow() == spareFailed })
	if _, ok := fs.fileData(filepath.Join("/wal", spareName)); ok {
		t.Fatal("a spare was left on a nearly full disk")
	}
	fillUntil(t, l, func() bool { return l.Stats().Segments == 2 })
	l.mu.Lock()
	second := l.segs[1]
	written := second.size
	l.mu.Unlock()
	if b, _ := fs.fileData(second.path); int64(len(b)) != written {
		t.Fatalf("second segment: %d bytes in the file, %d written; want a plain one", len(b), written)
	}
}

// bigOps is a record of about 64 KB for key seq.
func bigOps(seq uint64) [][][]byte {
	return [][][]byte{{[]byte("SET"), []byte("big:" + strconv.FormatUint(seq, 10)), bytes.Repeat([]byte{byte(seq)}, 64<<10)}}
}

// activeNow returns the active segment's path, written size and whether
// it grows.
func (l *Log) activeNow() (string, int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.segs[len(l.segs)-1]
	return a.path, a.size, a.grows
}

// A new log's first segment grows by appends. Once it holds
// growingSpareAt bytes a spare is written, and the next write seals the
// growing segment, however far from full, and goes into the spare's zeros.
// A reopened log tells a growing active segment from a preallocated one by
// the zeros past its records.
func TestGrowingSegmentGivesWayToTheSpare(t *testing.T) {
	const segBytes = growingSegmentMin
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs})
	put := func() { putBig(t, l) }
	put()
	growToTheSpare(t, l)
	first, written, _ := l.activeNow()
	if b, _ := fs.fileData(first); int64(len(b)) != written || l.Stats().Segments != 1 {
		t.Fatalf("before the next write: %d segments, the first %d bytes in the file and %d written", l.Stats().Segments, len(b), written)
	}
	put()
	second, size, grows := l.activeNow()
	if second == first || grows {
		t.Fatalf("after the spare was ready, a write went to %s (grows %v), want a preallocated segment after %s", second, grows, first)
	}
	if b, _ := fs.fileData(second); len(b) != segBytes || !bytes.Equal(b[size:], make([]byte, segBytes-size)) {
		t.Fatalf("second segment: %d bytes in the file, %d written; want %d, zeros past the records", len(b), size, segBytes)
	}
	if b, _ := fs.fileData(first); int64(len(b)) != written {
		t.Fatalf("the sealed first segment has %d bytes in the file, %d written", len(b), written)
	}
	last := l.Last()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs.crash(nil)})
	defer c.Close()
	if _, _, _, torn := c.TornTail(); torn || c.Last() != last {
		t.Fatalf("reopened: last %d (want %d), torn tail %v", c.Last(), last, torn)
	}
	if _, _, grows := c.activeNow(); grows {
		t.Fatal("a reopened preallocated segment counts as growing")
	}
}

// putBig appends one bigOps record and waits for it to be durable.
func putBig(t *testing.T, l *Log) {
	t.Helper()
	next := l.Last() + 1
	l.Append(epochFor(next), bigOps(next))
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
}

// growToTheSpare appends bigOps records to l's growing active segment
// until it holds growingSpareAt bytes, then waits for the spare.
func growToTheSpare(t *testing.T, l *Log) {
	t.Helper()
	for {
		_, size, grows := l.activeNow()
		if !grows {
			t.Fatal("the active segment does not grow")
		}
		if size >= growingSpareAt {
			break
		}
		putBig(t, l)
	}
	poll.Until(t, 10*time.Second, "the spare to be written", func() bool { return l.spareStateNow() == spareReady })
}

// A reopened log whose active segment ends at its records grows, and gets
// its spare at growingSpareAt bytes rather than at half its size.
func TestReopenedGrowingSegment(t *testing.T) {
	const segBytes = growingSegmentMin
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs})
	appendN(l, 10)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: segBytes, fs: fs})
	defer c.Close()
	if _, _, grows := c.activeNow(); !grows {
		t.Fatal("a reopened segment without zeros does not count as growing")
	}
	// Writes under growingSpareAt go through the flush passes that would
	// start a spare, and start none.
	appendN(c, 10)
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if c.spareStateNow() != spareNone {
		t.Fatal("a spare before the segment holds growingSpareAt bytes")
	}
	// Past it, far under half the segment, the spare comes.
	growToTheSpare(t, c)
	if _, size, _ := c.activeNow(); size >= segBytes/2 {
		t.Fatalf("the spare came at %d bytes, not before half the segment", size)
	}
}

// The rules for when a spare is written, as a table.
func TestSpareDue(t *testing.T) {
	const big = growingSegmentMin
	for _, tc := range []struct {
		name     string
		seg      *segment
		segBytes int64
		want     bool
	}{
		{"no active segment", nil, big, false},
		{"preallocated, under half", &segment{size: big/2 - 1}, big, false},
		{"preallocated, half full", &segment{size: big / 2}, big, true},
		{"growing, under the growing size", &segment{size: growingSpareAt - 1, grows: true}, big, false},
		{"growing, at the growing size", &segment{size: growingSpareAt, grows: true}, big, true},
		{"growing, small segments keep the half rule", &segment{size: growingSpareAt, grows: true}, big - 1, false},
		{"growing, small segments, half full", &segment{size: 4096, grows: true}, 8192, true},
	} {
		if got := spareDue(tc.seg, tc.segBytes); got != tc.want {
			t.Errorf("%s: spareDue = %v, want %v", tc.name, got, tc.want)
		}
	}
}
