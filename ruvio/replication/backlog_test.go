package replication

import (
	"bytes"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// setOp is one SET whose value has n bytes, as a record's ops.
func setOp(n int) [][][]byte {
	return [][][]byte{{[]byte("SET"), []byte("k"), bytes.Repeat([]byte("v"), n)}}
}

// Whatever the record sizes and the limit, the backlog holds the newest
// records in order, from its start to the last one added, at most max
// bytes of them unless a single record is larger; the frames a reader was
// handed stay as they were while later records come and go, until that
// reader reads again or is dropped; and chunks no record uses any more
// are let go or used again.
func TestBacklogHoldsTheNewestRecordsInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := rapid.Int64Range(1, 4*chunkBytes).Draw(t, "max")
		var reserved atomic.Int64
		b := newBacklog(1, max, nil, &reserved)
		// Each reader's last read, and a copy of it taken then.
		type held struct {
			r            *reader
			frames, copy [][]byte
		}
		readers := make([]*held, rapid.IntRange(1, 3).Draw(t, "readers"))
		for i := range readers {
			readers[i] = &held{r: b.newReader()}
		}
		// probe reads before the start and past the end, which hand out
		// nothing.
		probe := b.newReader()
		n := rapid.IntRange(1, 300).Draw(t, "records")
		for seq := uint64(1); seq <= uint64(n); seq++ {
			// Now and then the bound changes (CONFIG SET repl-backlog-size).
			if rapid.IntRange(0, 30).Draw(t, "resize") == 0 {
				max = rapid.Int64Range(1, 4*chunkBytes).Draw(t, "new max")
				b.resize(max)
				if size, _, count := b.stats(); size > max && count > 1 {
					t.Fatalf("resized to %d, the backlog holds %d bytes in %d records", max, size, count)
				}
			}
			// Mostly small records, now and then one above a quarter chunk.
			size := rapid.IntRange(0, 200).Draw(t, "size")
			if rapid.IntRange(0, 20).Draw(t, "large") == 0 {
				size = rapid.IntRange(chunkBytes/4, chunkBytes+1000).Draw(t, "large size")
			}
			if ops := setOp(size); rapid.Bool().Draw(t, "framed") {
				// A replica's record comes with its primary's frame; the
				// backlog keeps a copy, so the caller's buffer may change.
				frame, err := wal.AppendFrame(nil, wal.Record{Seq: seq, Epoch: 1, Ops: ops})
				if err != nil {
					t.Fatal(err)
				}
				b.addFramed(seq, 1, ops, frame)
				clear(frame)
			} else {
				b.add(seq, 1, ops)
			}

			size0, first, count := b.stats()
			if first+uint64(count) != seq+1 || count < 1 {
				t.Fatalf("after record %d the backlog holds %d records from %d", seq, count, first)
			}
			if size0 > max && count > 1 {
				t.Fatalf("after record %d it holds %d bytes in %d records, over its %d", seq, size0, count, max)
			}
			for i, h := range readers {
				for j, f := range h.frames {
					if !bytes.Equal(f, h.copy[j]) {
						t.Fatalf("after record %d, frame %d of reader %d's last read changed", seq, j, i)
					}
				}
			}
			// One reader reads: all that is held, or from somewhere in it.
			h := readers[rapid.IntRange(0, len(readers)-1).Draw(t, "reader")]
			from := first + uint64(rapid.IntRange(0, count-1).Draw(t, "from"))
			frames, ok, wait := b.read(h.r, nil, from, 1<<40)
			if !ok || wait != nil || len(frames) != int(seq+1-from) {
				t.Fatalf("reading from %d: %d frames, ok %v, wait %v; want %d", from, len(frames), ok, wait != nil, seq+1-from)
			}
			total := int64(0)
			for i, f := range frames {
				if got := wal.FrameSeq(f); got != from+uint64(i) {
					t.Fatalf("frame %d of a read from %d is record %d", i, from, got)
				}
				total += int64(len(f))
			}
			if from == first && total != size0 {
				t.Fatalf("frames hold %d bytes, stats say %d", total, size0)
			}
			h.frames, h.copy = frames, nil
			for _, f := range frames {
				h.copy = append(h.copy, bytes.Clone(f))
			}
			if _, ok, _ := b.read(probe, nil, first-1, 1<<40); first > 1 && ok {
				t.Fatalf("a read from %d, before the start %d, was served", first-1, first)
			}
			if _, ok, wait := b.read(probe, nil, seq+1, 1<<40); !ok || wait == nil {
				t.Fatal("a read past the newest record did not get a channel to wait on")
			}
			if limit := int(max)/chunkBytes + 3; len(b.chunks) > limit+count {
				t.Fatalf("%d chunks kept for %d records of at most %d bytes", len(b.chunks), count, max)
			}
			if len(b.spare) > maxSpare {
				t.Fatalf("%d spare chunks kept, more than %d", len(b.spare), maxSpare)
			}
			if got, want := reserved.Load(), int64(len(b.fresh))*chunkBytes; got != want || got < 0 {
				t.Fatalf("%d bytes counted as reserved, %d chunks of them kept", got, len(b.fresh))
			}
		}
	})
}

// Once the backlog is full, records take no new memory while its reader
// keeps up: chunks and entry blocks that age out are used again. A reader
// that stops keeps the frames it was handed, and the backlog allocates
// around them until it reads again.
func TestBacklogReusesWhatNoReaderHolds(t *testing.T) {
	ops := setOp(100)
	b := newBacklog(1, 4*chunkBytes, nil, nil)
	r := b.newReader()
	var frames [][]byte
	seq := uint64(1)
	add := func() {
		b.add(seq, 1, ops)
		frames, _, _ = b.read(r, frames[:0], seq, 1<<20)
		seq++
	}
	// Turn the backlog over several times, past several entry blocks.
	for range 8 * blockEntries {
		add()
	}
	if n := mallocs(4*blockEntries, add); n != 0 {
		t.Errorf("a full backlog whose reader keeps up allocated %d times in %d records", n, 4*blockEntries)
	}

	// A second reader takes the oldest record and stops.
	slow := b.newReader()
	_, first, _ := b.stats()
	kept, _, _ := b.read(slow, nil, first, 1)
	want := bytes.Clone(kept[0])
	for range 4 * blockEntries {
		add()
	}
	if _, now, _ := b.stats(); now <= first {
		t.Fatalf("the backlog did not turn over: it starts at %d, as before", now)
	}
	if !bytes.Equal(kept[0], want) {
		t.Fatal("a frame the slow reader held was written over")
	}
	if n := mallocs(blockEntries, add); n == 0 {
		t.Error("the backlog reused chunks a slow reader held")
	}
	// Once it is dropped, the backlog takes no new memory again.
	b.drop(slow)
	for range 4 * blockEntries {
		add()
	}
	if n := mallocs(4*blockEntries, add); n != 0 {
		t.Errorf("after the slow reader was dropped the backlog allocated %d times in %d records", n, 4*blockEntries)
	}
}

// A new backlog holds the chunks it takes to fill it, so filling it
// allocates no chunk; the reserved count goes down as they are written.
func TestBacklogFillsFromItsReserve(t *testing.T) {
	const max = 4 * chunkBytes
	var reserved atomic.Int64
	b := newBacklog(1, max, nil, &reserved)
	if got, want := reserved.Load(), int64(reserveChunks(max))*chunkBytes; got != want {
		t.Fatalf("a new backlog of %d bytes counts %d reserved, want %d", max, got, want)
	}
	ops := setOp(100)
	seq := uint64(1)
	allocated := allocatedBytes(func() {
		for ; b.first() == 1; seq++ {
			b.add(seq, 1, ops)
		}
	})
	// The entries' blocks are still allocated as records come.
	if allocated >= chunkBytes {
		t.Errorf("filling a backlog of %d bytes allocated %d bytes", max, allocated)
	}
	if got := reserved.Load(); got < 0 || got > chunkBytes {
		t.Errorf("a full backlog counts %d bytes still reserved, want at most a chunk", got)
	}
	// Turned over, it takes the chunks that left it, and counts none
	// reserved once the last reserved one is written.
	for range 4 * blockEntries {
		b.add(seq, 1, ops)
		seq++
	}
	if got := reserved.Load(); got != 0 || len(b.fresh) != 0 {
		t.Errorf("after turning over, %d bytes counted as reserved in %d chunks", got, len(b.fresh))
	}
}

// A resized backlog drops its oldest records down to the new bound at
// once, and reserves what the new bound takes, or lets it go.
func TestBacklogResize(t *testing.T) {
	var reserved atomic.Int64
	b := newBacklog(1, 4*chunkBytes, nil, &reserved)
	ops := setOp(100)
	seq := uint64(1)
	for ; b.first() == 1; seq++ {
		b.add(seq, 1, ops)
	}
	r := b.newReader()
	check := func(limit int64) {
		t.Helper()
		size, first, count := b.stats()
		if size > limit || size < limit-chunkBytes/2 {
			t.Errorf("bounded at %d bytes, the backlog holds %d", limit, size)
		}
		frames, ok, _ := b.read(r, nil, first, 1<<40)
		if !ok || len(frames) != count || wal.FrameSeq(frames[len(frames)-1]) != seq-1 {
			t.Errorf("reading from %d gave %d frames (ok %v), want %d up to %d", first, len(frames), ok, count, seq-1)
		}
		if got, want := reserved.Load(), int64(len(b.fresh))*chunkBytes; got != want {
			t.Errorf("%d bytes counted as reserved, %d kept", got, want)
		}
	}
	b.resize(chunkBytes)
	check(chunkBytes)
	if len(b.fresh) > reserveChunks(chunkBytes) {
		t.Errorf("shrunk to one chunk, the backlog keeps %d chunks in reserve", len(b.fresh))
	}
	b.resize(8 * chunkBytes)
	if got, want := len(b.fresh)+len(b.chunks), reserveChunks(8*chunkBytes); got != want {
		t.Errorf("grown to 8 chunks, the backlog has %d chunks in use and in reserve, want %d", got, want)
	}
	// Records of over 100 bytes: twice as many as fill it.
	for range 2 * 8 * chunkBytes / 100 {
		b.add(seq, 1, ops)
		seq++
	}
	check(8 * chunkBytes)
}

func TestReserveChunks(t *testing.T) {
	for _, tc := range []struct {
		max  int64
		want int
	}{
		{1, 2},
		{chunkBytes, 2},
		{chunkBytes + 1, 3},
		{64 << 20, 257},
	} {
		if got := reserveChunks(tc.max); got != tc.want {
			t.Errorf("reserveChunks(%d) = %d, want %d", tc.max, got, tc.want)
		}
	}
}

// allocatedBytes is how many bytes f allocates.
func allocatedBytes(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// mallocs is how many allocations n calls of f make, counted whole
// (testing.AllocsPerRun rounds an average below one down to zero).
func mallocs(n int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// A reader woken by an add learns whether an event loop was in a turn
// then; an add nobody waited for changes nothing.
func TestBacklogWokeInTurn(t *testing.T) {
	var turns atomic.Int32
	b := newBacklog(1, 1<<20, &turns, nil)
	next := uint64(1)
	for _, tc := range []struct {
		turns   int32
		waiting bool
		want    bool
	}{
		{turns: 1, waiting: true, want: true},
		{turns: 0, waiting: true, want: false},
		{turns: 2, waiting: false, want: false}, // nobody woken: unchanged
		{turns: 2, waiting: true, want: true},
		{turns: 0, waiting: false, want: true}, // unchanged
	} {
		var wait <-chan struct{}
		if tc.waiting {
			if _, _, wait = b.read(b.newReader(), nil, next, 1<<20); wait == nil {
				t.Fatalf("reading past the end from %d gave no channel", next)
			}
		}
		turns.Store(tc.turns)
		b.add(next, 1, setOp(3))
		next++
		if wait != nil {
			<-wait
		}
		if got := b.wokeInTurn(); got != tc.want {
			t.Errorf("turns %d, waiting %v: wokeInTurn %v, want %v", tc.turns, tc.waiting, got, tc.want)
		}
	}
	if nb := newBacklog(1, 1<<20, nil, nil); nb.wokeInTurn() {
		t.Error("a backlog without a turn count says it woke in a turn")
	}
}

// A record that does not follow the last one (the log started over under
// the backlog) empties it first.
func TestBacklogStartsOverAtAGap(t *testing.T) {
	b := newBacklog(1, 1<<20, nil, nil)
	for seq := uint64(1); seq <= 3; seq++ {
		b.add(seq, 1, setOp(10))
	}
	b.add(10, 2, setOp(10))
	if _, first, count := b.stats(); first != 10 || count != 1 {
		t.Fatalf("after a gap the backlog holds %d records from %d, want 1 from 10", count, first)
	}
	if _, ok, _ := b.read(b.newReader(), nil, 3, 1<<20); ok {
		t.Fatal("a record from before the gap was still served")
	}
	frames, ok, _ := b.read(b.newReader(), nil, 10, 1<<20)
	if !ok || len(frames) != 1 || wal.FrameSeq(frames[0]) != 10 {
		t.Fatalf("reading from 10 gave %d frames (ok %v)", len(frames), ok)
	}
}

// The entries hold no pointers: with a million of them in a full
// backlog, pointers would be a million more things for the garbage
// collector to follow at every cycle.
func TestBacklogEntriesHoldNoPointers(t *testing.T) {
	typ := reflect.TypeFor[blEntry]()
	for i := range typ.NumField() {
		switch f := typ.Field(i); f.Type.Kind() {
		case reflect.Uint32, reflect.Uint64, reflect.Int, reflect.Int64:
		default:
			t.Errorf("blEntry.%s is a %s", f.Name, f.Type)
		}
	}
}

// Over many blocks of entries: the backlog keeps the newest records whole
// and in order, and lets the blocks of dropped records go.
func TestBacklogAcrossEntryBlocks(t *testing.T) {
	frame := int64(wal.FrameSize(wal.Record{Seq: 1, Epoch: 1, Ops: setOp(10)}))
	keep := int64(blockEntries*3/2) * frame
	b := newBacklog(1, keep+frame/2, nil, nil)
	const n = 5*blockEntries + 7
	for seq := uint64(1); seq <= n; seq++ {
		b.add(seq, 1, setOp(10))
		_, first, count := b.stats()
		if count > blockEntries*3/2+1 || first+uint64(count) != seq+1 {
			t.Fatalf("after record %d: %d records from %d", seq, count, first)
		}
		if len(b.blocks) > count/blockEntries+2 {
			t.Fatalf("after record %d: %d blocks for %d records", seq, len(b.blocks), count)
		}
	}
	_, first, count := b.stats()
	frames, ok, _ := b.read(b.newReader(), nil, first, 1<<40)
	if !ok || len(frames) != count {
		t.Fatalf("read from %d: %d frames of %d (ok %v)", first, len(frames), count, ok)
	}
	for i, f := range frames {
		if got := wal.FrameSeq(f); got != first+uint64(i) {
			t.Fatalf("frame %d is record %d, want %d", i, got, first+uint64(i))
		}
	}
	// A read from the middle of a block, bounded by bytes.
	mid := first + blockEntries/2 + 3
	frames, ok, _ = b.read(b.newReader(), nil, mid, int(10*frame))
	if !ok || len(frames) != 10 || wal.FrameSeq(frames[0]) != mid {
		t.Fatalf("read from %d: %d frames (ok %v)", mid, len(frames), ok)
	}
}
