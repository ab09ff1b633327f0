package wal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// quiet is a logger for tests that do not look at the log.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// opsFor builds a deterministic record payload for seq, of varying shape
// (including an empty argument and a MULTI-like record of several ops), so
// that any mix-up of records shows up as a content mismatch.
func opsFor(seq uint64) [][][]byte {
	k := []byte("key:" + strconv.FormatUint(seq, 10))
	switch seq % 4 {
	case 0:
		return [][][]byte{{[]byte("SET"), k, bytes.Repeat([]byte{byte(seq)}, int(seq%97)), []byte("PXAT"), []byte("1700000000000")}}
	case 1:
		return [][][]byte{{[]byte("DEL"), k}}
	case 2:
		return [][][]byte{{[]byte("SET"), k, []byte("")}, {[]byte("INCR"), []byte("n")}, {[]byte("LPUSH"), []byte("l"), []byte("a"), []byte("b")}}
	}
	return nil // a record with no ops is legal
}

func epochFor(seq uint64) uint64 { return seq / 7 }

// cloneRecord deep-copies a record handed to a Replay callback.
func cloneRecord(r Record) Record {
	out := Record{Seq: r.Seq, Epoch: r.Epoch}
	for _, argv := range r.Ops {
		var c [][]byte
		for _, a := range argv {
			c = append(c, bytes.Clone(a))
		}
		out.Ops = append(out.Ops, c)
	}
	return out
}

func sameOps(a, b [][][]byte) bool {
	return slices.EqualFunc(a, b, func(x, y [][]byte) bool {
		return slices.EqualFunc(x, y, bytes.Equal)
	})
}

// collect replays everything after `after` into copies.
func collect(t testing.TB, l *Log, after uint64) []Record {
	t.Helper()
	var out []Record
	if err := l.Replay(after, func(r Record) error {
		out = append(out, cloneRecord(r))
		return nil
	}); err != nil {
		t.Fatalf("Replay(%d): %v", after, err)
	}
	return out
}

// checkRecords asserts that recs are exactly seqs from..to with the
// payloads opsFor/epochFor give them.
func checkRecords(t testing.TB, recs []Record, from, to uint64) {
	t.Helper()
	if want := int(to - from + 1); from > to && len(recs) != 0 || from <= to && len(recs) != want {
		t.Fatalf("got %d records, want %d..%d", len(recs), from, to)
	}
	for i, r := range recs {
		seq := from + uint64(i)
		if r.Seq != seq || r.Epoch != epochFor(seq) || !sameOps(r.Ops, opsFor(seq)) {
			t.Fatalf("record %d: got seq %d epoch %d ops %q", seq, r.Seq, r.Epoch, r.Ops)
		}
	}
}

func mustOpen(t testing.TB, opts Options) *Log {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	l, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l
}

// appendN appends records through Last()+n with the standard payloads.
func appendN(l *Log, n int) uint64 {
	var seq uint64
	for range n {
		next := l.Last() + 1
		seq = l.Append(epochFor(next), opsFor(next))
	}
	return seq
}

func segNames(t testing.TB, dir string) []string {
	t.Helper()
	files, err := listSegments(osFS{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	return names
}

// settle waits until the writer has written everything and finished any
// rotation: Durable is published before the next segment is created, so a
// test that looks at the segment list after Sync must wait for this.
func settle(t testing.TB, l *Log) {
	t.Helper()
	poll.Until(t, 10*time.Second, "the writer to settle", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.written == l.last.Load() && len(l.pending) == 0 &&
			(len(l.segs) == 0 || l.segs[len(l.segs)-1].size <= l.segBytes)
	})
}

func segNamesOf(bases []uint64) []string {
	var out []string
	for _, b := range bases {
		out = append(out, segmentName(b))
	}
	return out
}

func TestRoundTripAcrossRotations(t *testing.T) {
	for _, mode := range []Mode{Always, EverySec} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Dir: dir, Mode: mode, SegmentBytes: 512, FsyncInterval: 5 * time.Millisecond}
			l := mustOpen(t, opts)
			if l.First() != 0 || l.Last() != 0 || l.Durable() != 0 {
				t.Fatalf("empty log: first %d last %d durable %d", l.First(), l.Last(), l.Durable())
			}
			if last := appendN(l, 400); last != 400 {
				t.Fatalf("last seq %d", last)
			}
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			if l.Durable() != 400 || l.First() != 1 {
				t.Fatalf("durable %d first %d", l.Durable(), l.First())
			}
			names := segNames(t, dir)
			if len(names) < 5 {
				t.Fatalf("expected several rotations, got segments %v", names)
			}
			if names[0] != "wal-00000000000000000001.log" {
				t.Fatalf("first segment named %s", names[0])
			}
			checkRecords(t, collect(t, l, 0), 1, 400)
			checkRecords(t, collect(t, l, 123), 124, 400)
			checkRecords(t, collect(t, l, 400), 1, 0)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}

			// Reopen: same records, sequences continue without a gap.
			l = mustOpen(t, opts)
			if l.First() != 1 || l.Last() != 400 || l.Durable() != 400 {
				t.Fatalf("reopened: first %d last %d durable %d", l.First(), l.Last(), l.Durable())
			}
			if _, _, _, ok := l.TornTail(); ok {
				t.Fatal("clean log reported a torn tail")
			}
			checkRecords(t, collect(t, l, 0), 1, 400)
			if seq := appendN(l, 50); seq != 450 {
				t.Fatalf("append after reopen got %d", seq)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l = mustOpen(t, opts)
			defer l.Close()
			checkRecords(t, collect(t, l, 0), 1, 450)
			// Each segment's name is the sequence of its first record.
			for _, name := range segNames(t, dir) {
				base, _ := parseSegmentName(name)
				var first uint64
				l.Replay(base-1, func(r Record) error {
					first = r.Seq
					return errors.New("stop")
				})
				if first != base {
					t.Fatalf("segment %s starts with record %d", name, first)
				}
			}
		})
	}
}

func TestAppendCopiesOps(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: Always})
	defer l.Close()
	arg := []byte("value")
	ops := [][][]byte{{[]byte("SET"), []byte("k"), arg}}
	seq := l.Append(1, ops)
	copy(arg, "XXXXX") // the caller reuses its buffers at once
	ops[0][0] = []byte("DEL")
	if err := l.WaitDurable(context.Background(), seq); err != nil {
		t.Fatal(err)
	}
	recs := collect(t, l, 0)
	if len(recs) != 1 || string(recs[0].Ops[0][0]) != "SET" || string(recs[0].Ops[0][2]) != "value" {
		t.Fatalf("record changed with the caller's buffers: %q", recs[0].Ops)
	}
}

func TestMemoryMode(t *testing.T) {
	l := mustOpen(t, Options{Mode: Memory})
	for i := 1; i <= 10; i++ {
		if seq := l.Append(0, opsFor(uint64(i))); seq != uint64(i) {
			t.Fatalf("seq %d", seq)
		}
		if l.Durable() != l.Last() {
			t.Fatalf("durable %d last %d", l.Durable(), l.Last())
		}
	}
	if err := l.WaitDurable(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if l.First() != 0 || l.Size() != 0 {
		t.Fatalf("memory mode holds records: first %d size %d", l.First(), l.Size())
	}
	if err := l.Replay(3, func(Record) error { return nil }); !errors.Is(err, ErrCompacted) {
		t.Fatalf("Replay in memory mode: %v", err)
	}
	if err := l.Replay(10, func(Record) error { t.Fatal("called"); return nil }); err != nil {
		t.Fatal(err)
	}
	ch := l.DurableNotify()
	l.Append(0, nil)
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("DurableNotify not closed by an append")
	}
	if got := l.Stats().Appends; got != 11 {
		t.Fatalf("memory mode counted %d appends, want 11", got)
	}
	m := mustOpen(t, Options{Mode: Memory})
	m.Append(0, nil)
	m.SetNext(100)
	if m.Last() != 99 || m.Durable() != 99 || m.Append(0, nil) != 100 || m.Durable() != 100 {
		t.Fatal("SetNext in memory mode")
	}
	// The appends before SetNext still count.
	if got := m.Stats().Appends; got != 2 {
		t.Fatalf("memory mode counted %d appends across SetNext, want 2", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// A memory log's appends take no lock, yet from several goroutines at
// once each gets a sequence of its own and Durable never goes back.
func TestMemoryModeConcurrentAppends(t *testing.T) {
	l := mustOpen(t, Options{Mode: Memory})
	defer l.Close()
	const writers, each = 4, 2000
	seqs := make([][]uint64, writers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var backwards atomic.Bool
	wg.Go(func() {
		var last uint64
		for {
			select {
			case <-stop:
				return
			default:
			}
			if d := l.Durable(); d < last {
				backwards.Store(true)
			} else {
				last = d
			}
		}
	})
	var appenders sync.WaitGroup
	for w := range writers {
		appenders.Go(func() {
			for range each {
				seqs[w] = append(seqs[w], l.Append(0, nil))
			}
		})
	}
	appenders.Wait()
	close(stop)
	wg.Wait()
	seen := map[uint64]bool{}
	for _, ss := range seqs {
		for _, s := range ss {
			if seen[s] {
				t.Fatalf("sequence %d given twice", s)
			}
			seen[s] = true
		}
	}
	if len(seen) != writers*each || l.Last() != writers*each || l.Durable() != writers*each {
		t.Fatalf("%d sequences, last %d, durable %d; want %d of each", len(seen), l.Last(), l.Durable(), writers*each)
	}
	if backwards.Load() {
		t.Fatal("Durable went back")
	}
}

func TestSetNext(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, Mode: Always, SegmentBytes: 300}
	l := mustOpen(t, opts)
	l.SetNext(1000)
	if l.Last() != 999 || l.Durable() != 999 || l.First() != 0 {
		t.Fatalf("after SetNext: last %d durable %d first %d", l.Last(), l.Durable(), l.First())
	}
	if seq := l.Append(epochFor(1000), opsFor(1000)); seq != 1000 {
		t.Fatalf("first append got %d", seq)
	}
	appendN(l, 9)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if names := segNames(t, dir); names[0] != segmentName(1000) {
		t.Fatalf("segments %v", names)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("SetNext on a log holding records did not panic")
			}
		}()
		l.SetNext(5)
	}()

	// Drop everything but the (empty) active segment, then move the
	// sequence: the stale empty segment must be replaced, not left to read
	// as a gap.
	for {
		// Keep appending until a rotation leaves the active segment empty.
		settle(t, l)
		l.mu.Lock()
		empty := l.segs[len(l.segs)-1].size == headerSize
		l.mu.Unlock()
		if empty {
			break
		}
		appendN(l, 1)
		if err := l.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	last := l.Last()
	if err := l.DropBefore(last); err != nil {
		t.Fatal(err)
	}
	if l.First() != 0 || l.Stats().Segments != 1 {
		t.Fatalf("after dropping all records: first %d segments %d", l.First(), l.Stats().Segments)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = mustOpen(t, opts)
	if l.Last() != last || l.First() != 0 {
		t.Fatalf("reopened empty log: last %d (want %d) first %d", l.Last(), last, l.First())
	}
	l.SetNext(5000)
	appendN(l, 3)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if names := segNames(t, dir); !slices.Equal(names, []string{segmentName(5000)}) {
		t.Fatalf("segments after SetNext over an empty segment: %v", names)
	}
	l = mustOpen(t, opts)
	defer l.Close()
	if l.First() != 5000 || l.Last() != 5002 {
		t.Fatalf("first %d last %d", l.First(), l.Last())
	}
	checkRecords(t, collect(t, l, 4999), 5000, 5002)
}

func TestDropBefore(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, Mode: Always, SegmentBytes: 400}
	l := mustOpen(t, opts)
	appendN(l, 300)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	var bases []uint64
	for _, s := range l.segs {
		bases = append(bases, s.base)
	}
	l.mu.Unlock()
	if len(bases) < 4 {
		t.Fatalf("need several segments, have %v", bases)
	}
	sizeBefore := l.Size()

	// A sequence inside the third segment drops only the first two.
	cut := bases[2] + 1
	if err := l.DropBefore(cut); err != nil {
		t.Fatal(err)
	}
	if l.First() != bases[2] {
		t.Fatalf("First %d, want %d", l.First(), bases[2])
	}
	// (Rotation may have added a segment since bases was taken: the writer
	// publishes Durable before it creates the next segment.)
	if names := segNames(t, dir); names[0] != segmentName(bases[2]) || !slices.Equal(names[:len(bases)-2], segNamesOf(bases[2:])) {
		t.Fatalf("segments left: %v", names)
	}
	if l.Size() >= sizeBefore {
		t.Fatalf("Size did not shrink: %d >= %d", l.Size(), sizeBefore)
	}
	checkRecords(t, collect(t, l, bases[2]-1), bases[2], 300)
	if err := l.Replay(bases[2]-2, func(Record) error { return nil }); !errors.Is(err, ErrCompacted) {
		t.Fatalf("Replay before First: %v", err)
	}
	// Exactly at a segment's last record drops that segment too.
	if err := l.DropBefore(bases[3] - 1); err != nil {
		t.Fatal(err)
	}
	if l.First() != bases[3] {
		t.Fatalf("First %d, want %d", l.First(), bases[3])
	}
	// Never the active segment.
	if err := l.DropBefore(1 << 62); err != nil {
		t.Fatal(err)
	}
	names := segNames(t, dir)
	if len(names) != 1 {
		t.Fatalf("after dropping everything: segments %v", names)
	}
	// The active segment survives; it holds records unless a rotation has
	// just emptied it.
	first, _ := parseSegmentName(names[0])
	if f := l.First(); f != first && f != 0 {
		t.Fatalf("First %d with only %s left", f, names[0])
	}
	appendN(l, 5)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = mustOpen(t, opts)
	defer l.Close()
	if l.First() != first || l.Last() != 305 {
		t.Fatalf("reopened: first %d last %d", l.First(), l.Last())
	}
	checkRecords(t, collect(t, l, first-1), first, 305)
}

func TestClosedLog(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: EverySec, FsyncInterval: time.Hour})
	seq := appendN(l, 10)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Durable() != seq {
		t.Fatalf("Close did not sync: durable %d last %d", l.Durable(), seq)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := l.WaitDurable(context.Background(), seq); err != nil {
		t.Fatalf("durable seq after close: %v", err)
	}
	late := l.Append(0, nil)
	if err := l.WaitDurable(context.Background(), late); !errors.Is(err, ErrClosed) {
		t.Fatalf("WaitDurable for an append after Close: %v", err)
	}
	if err := l.Replay(0, func(Record) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Replay after Close: %v", err)
	}
	if err := l.DropBefore(5); !errors.Is(err, ErrClosed) {
		t.Fatalf("DropBefore after Close: %v", err)
	}
}

func TestOpenOptions(t *testing.T) {
	if _, err := Open(Options{Mode: Always}); err == nil {
		t.Fatal("Open without Dir succeeded")
	}
	if _, err := Open(Options{Dir: t.TempDir(), Mode: Mode(9)}); err == nil {
		t.Fatal("Open with an unknown mode succeeded")
	}
	// Stray files that are not segments are left alone.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README"), []byte("hi"), 0o644)
	os.WriteFile(filepath.Join(dir, "wal-12.log"), []byte("not ours"), 0o644)
	l := mustOpen(t, Options{Dir: dir, Mode: Always})
	appendN(l, 3)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := segNames(t, dir); len(got) != 1 {
		t.Fatalf("segments %v", got)
	}
}

func TestSegmentName(t *testing.T) {
	for _, base := range []uint64{1, 42, 1 << 63, ^uint64(0)} {
		name := segmentName(base)
		if len(name) != 28 {
			t.Fatalf("%s: length %d", name, len(name))
		}
		got, ok := parseSegmentName(name)
		if !ok || got != base {
			t.Fatalf("parse %s: %d %v", name, got, ok)
		}
	}
	for _, bad := range []string{"wal-1.log", "wal-0000000000000000000x.log", "wal-99999999999999999999.log", "xal-00000000000000000001.log"} {
		if _, ok := parseSegmentName(bad); ok {
			t.Fatalf("accepted %s", bad)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	var d decoder
	for seq := uint64(1); seq < 200; seq++ {
		ops := opsFor(seq)
		size := bodySize(seq*1e12, epochFor(seq), ops)
		b := appendRecord(nil, seq*1e12, epochFor(seq), ops, size)
		if uint64(len(b)) != frameHeaderSize+size {
			t.Fatalf("size %d, encoded %d", size, len(b)-frameHeaderSize)
		}
		s, e, got, reason := parseBody(b[frameHeaderSize:], &d)
		if reason != "" || s != seq*1e12 || e != epochFor(seq) || !sameOps(got, ops) {
			t.Fatalf("seq %d: %s %d %d %q", seq, reason, s, e, got)
		}
		// Every strict prefix of a body is malformed, never a different
		// valid record.
		for cut := 0; cut < len(b)-frameHeaderSize; cut++ {
			if _, _, _, reason := parseBody(b[frameHeaderSize:frameHeaderSize+cut], nil); reason == "" {
				t.Fatalf("seq %d: prefix of %d bytes parsed", seq, cut)
			}
		}
	}
	h := appendHeader(nil, 77)
	if r := decodeHeader(h); r.reason != "" || r.base != 77 {
		t.Fatalf("header: %+v", r)
	}
}
