package replication

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// backlog keeps a shard's most recent records, framed as the log frames
// them, so a primary streams to its replicas from memory and a replica
// that was away briefly continues without a full copy, whatever the
// durability profile (the memory profile keeps no log to read back). It
// holds at least the newest record and at most about max bytes.
//
// Frames live in chunks of chunkBytes, and each record's entry says where
// its frame is with numbers, not a slice: a full backlog of small records
// holds a million entries or more, and slices (pointers) would have the
// garbage collector walk every one of them at each cycle, which on a
// busy replica stalled its clients for tens of milliseconds. The entries
// sit in fixed blocks for the same reason: one growing slice of them was
// reallocated and copied whole (tens of megabytes, under the shard's
// lock) as it grew and as old entries were dropped.
//
// Chunks and blocks that age out are used again: a busy primary turns its
// backlog over every few seconds, and allocating each chunk afresh made
// the backlog half of what a replica allocated, so its collector ran twice
// as often and its apply fell behind during each cycle. A chunk is used
// again only once no reader can still hold a frame in it (see reader).
//
// The chunks a full backlog needs are allocated when it is created (see
// reserveChunks). Allocated as it filled, the backlog doubled the heap
// several times over on a fresh node, a collection at each doubling, and
// a replica's apply fell behind during each one's marking. Reserved, they
// count toward the heap the collector paces itself by from the start, as
// they will once the backlog is full; the pages stay untouched until
// frames are written to them. The bytes not yet written are counted in
// reserved, which the node's used memory leaves out, as Redis counts only
// the backlog it holds.
type backlog struct {
	mu    sync.Mutex
	max   int64
	size  int64  // bytes of the frames held
	start uint64 // sequence of the oldest record held, or the next one when empty
	count int    // records held
	// blocks hold the entries, oldest first: blocks[0][0] is the entry of
	// sequence base.
	blocks []*entryBlock
	base   uint64
	// chunks[i] is chunk number firstChunk+i (mod 2^32); the last one is
	// where new frames go, unless a large record took a chunk of its own.
	chunks     [][]byte
	firstChunk uint32
	notify     chan struct{} // closed by the next add, when someone waits
	// turns, if not nil, counts the event-loop turns in progress on the
	// node; woke says whether one was when the last add closed notify.
	turns *atomic.Int32
	woke  bool
	// spare holds chunks that left the backlog, oldest first, for new
	// frames once no reader holds them; spareBlock is an entry block that
	// left it.
	spare      []spareChunk
	spareBlock *entryBlock
	readers    []*reader
	// fresh holds the reserved chunks no frame was written to yet;
	// reserved, if not nil, is the node's count of their bytes.
	fresh    [][]byte
	reserved *atomic.Int64
}

// A reader is one stream reading a backlog. The frames of its last read
// stay as they are until its next read or until it is dropped: no chunk
// from the oldest one that read handed out on is used again until then.
type reader struct {
	held  bool
	chunk uint32
}

// spareChunk is a chunk that left the backlog, and its number there.
type spareChunk struct {
	num uint32
	buf []byte
}

// maxSpare bounds the chunks kept for reuse while a slow reader holds
// them: past it the oldest goes to the garbage collector.
const maxSpare = 16

// blEntry locates one record's frame: its chunk's number and where in
// the chunk it is.
type blEntry struct {
	chunk, off, len uint32
}

// entryBlock holds the entries of blockEntries consecutive records.
type entryBlock [blockEntries]blEntry

const blockEntries = 4096

// chunkBytes is the allocation unit for frames: one allocation per many
// small records, and memory returns to the runtime as whole chunks age out.
const chunkBytes = 256 << 10

// newBacklog returns an empty backlog whose first record will be next,
// with the chunks it takes to fill it reserved. turns is the node's count
// of event-loop turns in progress, reserved its count of reserved bytes
// not yet written; either may be nil.
func newBacklog(next uint64, max int64, turns *atomic.Int32, reserved *atomic.Int64) *backlog {
	b := &backlog{start: next, base: next, max: max, turns: turns, reserved: reserved}
	b.fresh = make([][]byte, reserveChunks(max))
	for i := range b.fresh {
		b.fresh[i] = make([]byte, 0, chunkBytes)
	}
	b.addReserved(int64(len(b.fresh)) * chunkBytes)
	return b
}

// reserveChunks is how many chunks a backlog of max bytes reserves: enough
// for max bytes of frames and the part-filled chunk at either end.
func reserveChunks(max int64) int {
	return int((max+chunkBytes-1)/chunkBytes) + 1
}

// entry is the entry of sequence seq, which the backlog holds.
func (b *backlog) entry(seq uint64) *blEntry {
	p := seq - b.base
	return &b.blocks[p/blockEntries][p%blockEntries]
}

// Appended takes each record the shard appends (the backlog is the
// shard's log subscriber).
func (b *backlog) Appended(seq, replEpoch uint64, ops [][][]byte, frame []byte) {
	b.addFramed(seq, replEpoch, ops, frame)
}

// Restarted empties the backlog when the shard's log starts over.
func (b *backlog) Restarted(next uint64) { b.reset(next) }

// add appends the record seq, which must follow the last one held.
func (b *backlog) add(seq, replEpoch uint64, ops [][][]byte) { b.addFramed(seq, replEpoch, ops, nil) }

// addFramed is add with the record's encoded frame when it is known
// (nil: encode it here): a replica keeps its primary's frames as they
// came, so the record is encoded once on its way down a chain.
func (b *backlog) addFramed(seq, replEpoch uint64, ops [][][]byte, frame []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if seq != b.start+uint64(b.count) {
		// A gap means the log was reset under the backlog (a full copy on
		// a replica): start over from this record.
		b.resetLocked(seq)
	}
	rec := wal.Record{Seq: seq, Epoch: replEpoch, Ops: ops}
	size := len(frame)
	if frame == nil {
		size = int(wal.FrameSize(rec))
	}
	if n := len(b.chunks); n == 0 || cap(b.chunks[n-1])-len(b.chunks[n-1]) < size {
		b.chunks = append(b.chunks, b.newChunkLocked(size))
	}
	last := len(b.chunks) - 1
	at := len(b.chunks[last])
	var enc []byte
	var err error
	if frame != nil {
		enc = append(b.chunks[last], frame...)
	} else {
		enc, err = wal.AppendFrame(b.chunks[last], rec)
	}
	if err != nil {
		// The log refused the same record; replicas will need a full copy.
		b.resetLocked(seq + 1)
		return
	}
	b.chunks[last] = enc
	if p := seq - b.base; p/blockEntries == uint64(len(b.blocks)) {
		blk := b.spareBlock
		if blk == nil {
			blk = new(entryBlock)
		}
		b.spareBlock = nil
		b.blocks = append(b.blocks, blk)
	}
	b.count++
	*b.entry(seq) = blEntry{chunk: b.firstChunk + uint32(last), off: uint32(at), len: uint32(len(enc) - at)}
	b.size += int64(len(enc) - at)
	b.trimLocked()
	if b.notify != nil {
		close(b.notify)
		b.notify = nil
		b.woke = b.turns != nil && b.turns.Load() > 0
	}
}

// trimLocked drops the oldest records while the backlog holds more than
// max bytes and more than one record, and lets go of the blocks and
// chunks no record it holds is in.
func (b *backlog) trimLocked() {
	for b.size > b.max && b.count > 1 {
		b.size -= int64(b.entry(b.start).len)
		b.start++
		b.count--
	}
	// Blocks and chunks before the oldest record's are no longer read.
	// They shift down in place: slicing the front off would have append
	// reallocate the slices now and then.
	for b.start-b.base >= blockEntries {
		b.spareBlock = b.blocks[0]
		b.blocks = dropFirst(b.blocks)
		b.base += blockEntries
	}
	if b.count == 0 {
		return
	}
	for oldest := b.entry(b.start).chunk; b.firstChunk != oldest; b.firstChunk++ {
		b.retireLocked(b.firstChunk, b.chunks[0])
		b.chunks = dropFirst(b.chunks)
	}
}

// resize bounds the backlog at limit bytes from now on (CONFIG SET
// repl-backlog-size), dropping its oldest records if it holds more, and
// reserves the chunks the new bound takes, or lets go of those it no
// longer needs.
func (b *backlog) resize(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.max = limit
	b.trimLocked()
	want := reserveChunks(limit) - len(b.chunks)
	for len(b.fresh) < want {
		b.fresh = append(b.fresh, make([]byte, 0, chunkBytes))
		b.addReserved(chunkBytes)
	}
	for len(b.fresh) > max(want, 0) {
		b.fresh[len(b.fresh)-1] = nil
		b.fresh = b.fresh[:len(b.fresh)-1]
		b.addReserved(-chunkBytes)
	}
}

// addReserved counts n more reserved bytes in the node's count.
func (b *backlog) addReserved(n int64) {
	if b.reserved != nil {
		b.reserved.Add(n)
	}
}

// dropFirst removes s[0], shifting the rest down, and clears the slot
// that frees.
func dropFirst[T any](s []T) []T {
	n := copy(s, s[1:])
	var zero T
	s[n] = zero
	return s[:n]
}

// newChunkLocked returns an empty chunk for a frame of size bytes: a
// spare one when no reader holds it, else a reserved one, else a new one.
// A frame above a quarter chunk gets a chunk of its own, which is never
// used again.
func (b *backlog) newChunkLocked(size int) []byte {
	if size > chunkBytes/4 {
		return make([]byte, 0, size)
	}
	if len(b.spare) > 0 && !b.heldLocked(b.spare[0].num) {
		c := b.spare[0].buf
		b.spare = dropFirst(b.spare)
		return c[:0]
	}
	if n := len(b.fresh); n > 0 {
		c := b.fresh[n-1]
		b.fresh[n-1] = nil
		b.fresh = b.fresh[:n-1]
		b.addReserved(-chunkBytes)
		return c
	}
	return make([]byte, 0, chunkBytes)
}

// retireLocked keeps chunk num, which just left the backlog, for reuse
// if it has the standard size.
func (b *backlog) retireLocked(num uint32, c []byte) {
	if cap(c) != chunkBytes {
		return
	}
	if len(b.spare) == maxSpare {
		b.spare = dropFirst(b.spare)
	}
	b.spare = append(b.spare, spareChunk{num: num, buf: c})
}

// heldLocked reports whether a reader may still hold a frame in chunk
// num: its last read handed out frames from that chunk or an older one.
// Chunk numbers wrap, so they are compared by difference.
func (b *backlog) heldLocked(num uint32) bool {
	for _, r := range b.readers {
		if r.held && int32(num-r.chunk) >= 0 {
			return true
		}
	}
	return false
}

// newReader registers a reader; drop it when it stops reading.
func (b *backlog) newReader() *reader {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := &reader{}
	b.readers = append(b.readers, r)
	return r
}

// drop unregisters r: the frames of its last read may be written over.
func (b *backlog) drop(r *reader) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.readers {
		if x == r {
			b.readers = slices.Delete(b.readers, i, i+1)
			return
		}
	}
}

// wokeInTurn reports whether the add that last woke a reader ran while an
// event loop was in a turn.
func (b *backlog) wokeInTurn() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.woke
}

// frameLocked is the frame of entry e. The slice stays valid after the
// lock is released, also once its chunk left the backlog, for as long as
// the reader it was handed to holds it (see reader).
func (b *backlog) frameLocked(e blEntry) []byte {
	c := b.chunks[e.chunk-b.firstChunk]
	return c[e.off : e.off+e.len : e.off+e.len]
}

// reset empties the backlog; the next record it takes is next.
func (b *backlog) reset(next uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resetLocked(next)
}

func (b *backlog) resetLocked(next uint64) {
	b.blocks, b.count, b.size, b.start, b.base = nil, 0, 0, next, next
	b.firstChunk += uint32(len(b.chunks))
	b.chunks = nil
	if b.notify != nil {
		close(b.notify)
		b.notify = nil
	}
}

// first is the oldest sequence the backlog can still hand out.
func (b *backlog) first() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.start
}

// stats reports the bytes held and the first sequence held, for INFO.
func (b *backlog) stats() (size int64, first uint64, count int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size, b.start, b.count
}

// read appends to dst the frames from sequence from on, up to about
// maxBytes, for reader r; they stay as they are until r reads again or is
// dropped. ok is false when from is older than what the backlog holds
// (the reader must go to the log or take a full copy). When nothing is
// there yet, wait is closed by the next record.
func (b *backlog) read(r *reader, dst [][]byte, from uint64, maxBytes int) (frames [][]byte, ok bool, wait <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r.held = false
	if from < b.start {
		return dst, false, nil
	}
	end := b.start + uint64(b.count)
	if from >= end {
		if b.notify == nil {
			b.notify = make(chan struct{})
		}
		return dst, true, b.notify
	}
	r.held, r.chunk = true, b.entry(from).chunk
	n := 0
	for seq := from; seq < end && n < maxBytes; seq++ {
		e := b.entry(seq)
		dst = append(dst, b.frameLocked(*e))
		n += int(e.len)
	}
	return dst, true, nil
}
