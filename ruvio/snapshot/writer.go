package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// errClosed is returned by a Writer used after Commit or Abort.
var errClosed = errors.New("snapshot writer already committed or aborted")

// retainCap is the buffer capacity kept across Flushes; a buffer grown
// past it by one big batch or value is dropped instead, so an idle shard
// does not hold on to the memory of its largest snapshot batch.
const retainCap = 1 << 20

// Writer writes one snapshot. Add encodes entries into memory only, and
// Flush and Commit do the writing, so a caller can hold its shard's lock
// around Add and release it before the disk is touched:
//
//	w, err := snapshot.Create(dir, h)
//	for each batch of keys {
//		lock; w.Add(...) for each key; unlock
//		w.Flush()
//	}
//	path, err := w.Commit() // or w.Abort() on failure
//
// A Writer is not safe for concurrent use. Without Flush, everything is
// buffered until Commit.
type Writer struct {
	f         *os.File
	dir       string
	tmp       string // the file being written
	final     string // its name once committed
	headerCRC uint32

	// buf holds bytes not yet written: sealed blocks in buf[:sealed], then
	// the open block (its frame header reserved at buf[open:open+frameLen])
	// when open >= 0.
	buf    []byte
	sealed int
	open   int

	// blockSize is the payload size at which a block is sealed; tests
	// shrink it to make entries cross many block boundaries.
	blockSize int

	count int64
	err   error // sticky: the first failure, or errClosed
}

// Create starts the snapshot described by h in dir. It creates
// snap-<seq>.rsnap.tmp (replacing one left by a crash) but writes nothing
// to it yet: the header is buffered like the entries.
func Create(dir string, h Header) (*Writer, error) {
	if h.Shard < 0 {
		return nil, fmt.Errorf("snapshot: negative shard index %d", h.Shard)
	}
	final := filepath.Join(dir, FileName(h.Seq))
	tmp := final + tmpSuffix
	if !claim(tmp) {
		return nil, fmt.Errorf("snapshot: %s is already being written", tmp)
	}
	// No writer of this process owns tmp, so an existing file is left from
	// a crash or a failed write: start over.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		release(tmp)
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	w := &Writer{f: f, dir: dir, tmp: tmp, final: final, open: -1, blockSize: blockSize}
	w.buf = make([]byte, 0, 2*(blockSize+frameLen))
	w.buf, w.headerCRC = appendHeader(w.buf, &h)
	w.sealed = len(w.buf)
	return w, nil
}

// Add encodes key and its entry. It copies everything it needs, keeping no
// reference to e or its value once it returns. A value of a type the
// keyspace does not use is an error and adds nothing.
func (w *Writer) Add(key string, e *keyspace.Entry) error {
	if w.err != nil {
		return w.err
	}
	if e == nil {
		return fmt.Errorf("snapshot: key %q: nil entry", key)
	}
	switch v := e.Val.(type) {
	case []byte:
		w.entryHead(typeString, key, e.ExpireAt)
		w.putBytes(v)
	case *deque.Deque:
		if v == nil {
			return fmt.Errorf("snapshot: key %q: nil list", key)
		}
		w.entryHead(typeList, key, e.ExpireAt)
		w.putUvarint(uint64(v.Len()))
		for el := range v.All() {
			w.putBytes(el)
		}
	case map[string]struct{}:
		w.entryHead(typeSet, key, e.ExpireAt)
		w.putUvarint(uint64(len(v)))
		for m := range v {
			w.putString(m)
		}
	case *sortedset.Set:
		if v == nil {
			return fmt.Errorf("snapshot: key %q: nil sorted set", key)
		}
		w.entryHead(typeZSet, key, e.ExpireAt)
		w.putUvarint(uint64(v.Len()))
		var score [8]byte
		for it := range v.Each {
			w.putString(it.Member)
			binary.LittleEndian.PutUint64(score[:], math.Float64bits(it.Score))
			put(w, score[:])
		}
	case *hash.Hash:
		if v == nil {
			return fmt.Errorf("snapshot: key %q: nil hash", key)
		}
		w.entryHead(typeHash, key, e.ExpireAt)
		w.putUvarint(uint64(v.Len()))
		for f, val := range v.Range {
			w.putString(f)
			w.putBytes(val)
		}
	case *stream.Stream:
		w.entryHead(typeStream, key, e.ExpireAt)
		w.putBytes(v.Marshal())
	default:
		return fmt.Errorf("snapshot: key %q: unsupported value type %T", key, e.Val)
	}
	w.count++
	return nil
}

// AddLibraries encodes the node's function libraries, which Load gives
// back as a Libraries value under the empty key.
func (w *Writer) AddLibraries(payload []byte) error { return w.addOpaque(typeLibraries, payload) }

// AddArrivals encodes the ranges slot moves brought to the shard, which
// Load gives back as an Arrivals value under the empty key.
func (w *Writer) AddArrivals(payload []byte) error { return w.addOpaque(typeArrivals, payload) }

// addOpaque encodes an entry of type typ holding payload, key empty.
func (w *Writer) addOpaque(typ byte, payload []byte) error {
	if w.err != nil {
		return w.err
	}
	w.entryHead(typ, "", 0)
	w.putBytes(payload)
	w.count++
	return nil
}

// Buffered is the number of encoded bytes waiting for Flush or Commit.
func (w *Writer) Buffered() int { return len(w.buf) }

// Flush writes the blocks filled so far. The open block stays in memory
// until it fills or Commit seals it, so every block but the last is full.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.sealed == 0 {
		return nil
	}
	if _, err := w.f.Write(w.buf[:w.sealed]); err != nil {
		return w.fail(fmt.Errorf("snapshot: writing %s: %w", w.tmp, err))
	}
	rest := w.buf[w.sealed:]
	if cap(w.buf) > retainCap && len(rest) <= retainCap/2 {
		w.buf = make([]byte, 0, 2*(blockSize+frameLen))
	}
	w.buf = append(w.buf[:0], rest...)
	if w.open >= 0 {
		w.open -= w.sealed
	}
	w.sealed = 0
	return nil
}

// Commit finishes the snapshot: it writes the footer, fsyncs the file,
// renames it to its final name and fsyncs the directory, so once Commit
// returns the snapshot survives a crash. On failure the temporary file is
// removed.
func (w *Writer) Commit() (path string, err error) {
	if err := w.err; err != nil {
		// A failed Flush left a temporary file no one will finish.
		w.Abort()
		return "", err
	}
	if w.open >= 0 {
		w.seal()
	}
	w.buf = binary.LittleEndian.AppendUint32(w.buf, 0)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(w.count))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, w.headerCRC)
	w.buf = append(w.buf, endMagic...)
	w.sealed = len(w.buf)
	if err := w.Flush(); err != nil {
		w.Abort()
		return "", err
	}
	if err := w.f.Sync(); err != nil {
		w.Abort()
		return "", fmt.Errorf("snapshot: syncing %s: %w", w.tmp, err)
	}
	if err := w.f.Close(); err != nil {
		w.f = nil
		w.Abort()
		return "", fmt.Errorf("snapshot: closing %s: %w", w.tmp, err)
	}
	w.f = nil
	if err := os.Rename(w.tmp, w.final); err != nil {
		w.Abort()
		return "", fmt.Errorf("snapshot: %w", err)
	}
	// The rename is done: from here the temporary name is gone, and only
	// the directory entry's durability is in question.
	release(w.tmp)
	w.err = errClosed
	w.buf = nil
	if err := syncDir(w.dir); err != nil {
		return "", err
	}
	return w.final, nil
}

// Abort gives the snapshot up and removes its temporary file. It is safe
// to call more than once, and does nothing after a successful Commit.
func (w *Writer) Abort() {
	if w.err == errClosed {
		return
	}
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	os.Remove(w.tmp)
	release(w.tmp)
	w.err = errClosed
	w.buf = nil
}

// fail records err as the writer's sticky error and returns it.
func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// entryHead encodes an entry's type, key and expiry.
func (w *Writer) entryHead(typ byte, key string, expireAt int64) {
	w.putByte(typ)
	w.putString(key)
	w.putVarint(expireAt)
}

// room is the payload space left in the open block.
func (w *Writer) room() int {
	if w.open < 0 {
		return 0
	}
	return w.blockSize - (len(w.buf) - w.open - frameLen)
}

// openBlock reserves the frame header of a new block.
func (w *Writer) openBlock() {
	w.open = len(w.buf)
	w.buf = append(w.buf, make([]byte, frameLen)...)
}

// seal fills in the open block's frame header and marks it ready to write.
func (w *Writer) seal() {
	frame := w.buf[w.open : w.open+frameLen]
	payload := w.buf[w.open+frameLen:]
	binary.LittleEndian.PutUint32(frame[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:8], blockCRC(frame[0:4], payload))
	w.open = -1
	w.sealed = len(w.buf)
}

// put appends p to the entry stream, sealing blocks as they fill, so a
// value of any size is split across as many blocks as it needs.
func put[T string | []byte](w *Writer, p T) {
	for len(p) > 0 {
		if w.open < 0 {
			w.openBlock()
		}
		room := w.room()
		n := min(room, len(p))
		w.buf = append(w.buf, p[:n]...)
		p = p[n:]
		if n == room {
			w.seal()
		}
	}
}

func (w *Writer) putByte(c byte) {
	if w.room() > 1 {
		w.buf = append(w.buf, c)
		return
	}
	put(w, []byte{c})
}

func (w *Writer) putUvarint(v uint64) {
	// The common case, a varint well inside the open block, appends in
	// place; near a block's end the varint goes through put to be split.
	if w.room() > binary.MaxVarintLen64 {
		w.buf = binary.AppendUvarint(w.buf, v)
		return
	}
	var tmp [binary.MaxVarintLen64]byte
	put(w, tmp[:binary.PutUvarint(tmp[:], v)])
}

func (w *Writer) putVarint(v int64) {
	if w.room() > binary.MaxVarintLen64 {
		w.buf = binary.AppendVarint(w.buf, v)
		return
	}
	var tmp [binary.MaxVarintLen64]byte
	put(w, tmp[:binary.PutVarint(tmp[:], v)])
}

func (w *Writer) putBytes(b []byte) {
	w.putUvarint(uint64(len(b)))
	put(w, b)
}

func (w *Writer) putString(s string) {
	w.putUvarint(uint64(len(s)))
	put(w, s)
}
