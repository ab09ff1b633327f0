package replication

import (
	"sync"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// backlog keeps a shard's most recent records, framed as the log frames
// them, so a primary streams to its replicas from memory and a replica
// that was away briefly continues without a full copy, whatever the
// durability profile (the memory profile keeps no log to read back). It
// holds at least the newest record and at most about max bytes.
type backlog struct {
	mu      sync.Mutex
	max     int64
	size    int64
	start   uint64 // sequence of entries[head], or the next one when empty
	entries []blEntry
	head    int
	chunk   []byte        // where new frames are encoded
	notify  chan struct{} // closed by the next add, when someone waits
}

type blEntry struct {
	frame []byte
}

// chunkBytes is the allocation unit for frames: one allocation per many
// small records, and memory returns to the runtime as whole chunks age out.
const chunkBytes = 256 << 10

func newBacklog(next uint64, max int64) *backlog {
	return &backlog{start: next, max: max}
}

// Appended takes each record the shard appends (the backlog is the
// shard's log subscriber).
func (b *backlog) Appended(seq, replEpoch uint64, ops [][][]byte) { b.add(seq, replEpoch, ops) }

// Restarted empties the backlog when the shard's log starts over.
func (b *backlog) Restarted(next uint64) { b.reset(next) }

// add appends the record seq, which must follow the last one held.
func (b *backlog) add(seq, replEpoch uint64, ops [][][]byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if seq != b.start+uint64(len(b.entries)-b.head) {
		// A gap means the log was reset under the backlog (a full copy on
		// a replica): start over from this record.
		b.resetLocked(seq)
	}
	rec := wal.Record{Seq: seq, Epoch: replEpoch, Ops: ops}
	size := int(wal.FrameSize(rec))
	buf := &b.chunk
	var own []byte
	switch {
	case size > chunkBytes/4:
		own = make([]byte, 0, size) // a large record gets a buffer of its own
		buf = &own
	case cap(b.chunk)-len(b.chunk) < size:
		b.chunk = make([]byte, 0, chunkBytes)
	}
	at := len(*buf)
	enc, err := wal.AppendFrame(*buf, rec)
	if err != nil {
		// The log refused the same record; replicas will need a full copy.
		b.resetLocked(seq + 1)
		return
	}
	*buf = enc
	frame := enc[at:len(enc):len(enc)]
	b.entries = append(b.entries, blEntry{frame: frame})
	b.size += int64(len(frame))
	for b.size > b.max && len(b.entries)-b.head > 1 {
		b.size -= int64(len(b.entries[b.head].frame))
		b.entries[b.head] = blEntry{}
		b.head++
		b.start++
	}
	if b.head > 1024 && b.head*2 > len(b.entries) {
		b.entries = append([]blEntry(nil), b.entries[b.head:]...)
		b.head = 0
	}
	if b.notify != nil {
		close(b.notify)
		b.notify = nil
	}
}

// reset empties the backlog; the next record it takes is next.
func (b *backlog) reset(next uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resetLocked(next)
}

func (b *backlog) resetLocked(next uint64) {
	b.entries, b.head, b.size, b.start = nil, 0, 0, next
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
	return b.size, b.start, len(b.entries) - b.head
}

// read appends to dst the frames from sequence from on, up to about
// maxBytes. ok is false when from is older than what the backlog holds
// (the reader must go to the log or take a full copy). When nothing is
// there yet, wait is closed by the next record.
func (b *backlog) read(dst [][]byte, from uint64, maxBytes int) (frames [][]byte, ok bool, wait <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if from < b.start {
		return dst, false, nil
	}
	i := b.head + int(from-b.start)
	if i >= len(b.entries) {
		if b.notify == nil {
			b.notify = make(chan struct{})
		}
		return dst, true, b.notify
	}
	n := 0
	for ; i < len(b.entries) && n < maxBytes; i++ {
		dst = append(dst, b.entries[i].frame)
		n += len(b.entries[i].frame)
	}
	return dst, true, nil
}
