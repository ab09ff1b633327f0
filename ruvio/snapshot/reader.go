package snapshot

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// readBufSize is the bufio buffer: several blocks per read system call.
const readBufSize = 256 << 10

// Load reads the snapshot at path, calling fn with each entry in file
// order, and returns its header. Every value handed to fn is freshly
// allocated and owned by fn; nothing aliases the reader's buffers.
//
// Any damage (checksum mismatch, malformed structure, truncation) is a
// *CorruptError, and a file from a newer release wraps
// ErrUnsupportedVersion. Entries come only from blocks whose checksum
// matched, but damage later in the file is found only when the reader gets
// there, so on any error the caller must discard what fn built. An error
// from fn stops the load and is returned wrapped. The returned Header is
// the zero Header when the header itself could not be read.
func Load(path string, fn func(key string, e keyspace.Entry) error) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("snapshot: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Header{}, fmt.Errorf("snapshot: %w", err)
	}
	r := &reader{
		file: path,
		br:   bufio.NewReaderSize(f, readBufSize),
		size: st.Size(),
	}
	h, err := r.header()
	if err != nil {
		return Header{}, err
	}
	r.buf = make([]byte, blockSize)
	for {
		key, e, ok := r.entry()
		if r.err != nil {
			return h, r.err
		}
		if !ok {
			break
		}
		r.entries++
		if err := fn(key, e); err != nil {
			return h, fmt.Errorf("snapshot %s: %w", path, err)
		}
	}
	return h, r.footer()
}

// Verify reads the whole snapshot at path, checking every checksum and
// structure, and returns its header and entry count. It is Load without a
// consumer, for `ruvio check-data`.
func Verify(path string) (Header, int64, error) {
	var n int64
	h, err := Load(path, func(string, keyspace.Entry) error {
		n++
		return nil
	})
	return h, n, err
}

// reader decodes one snapshot file. Its decoding methods share a sticky
// error: after the first failure they return zero values and do nothing,
// so entry decoding reads straight through and checks r.err once.
type reader struct {
	file string
	br   *bufio.Reader
	size int64 // file size: bounds every count and length
	off  int64 // file offset of the next byte br returns

	version   uint16
	headerCRC uint32

	buf      []byte // block payload buffer, reused for every block
	block    []byte // the current block's verified payload
	pos      int    // next byte of block to decode
	blockOff int64  // file offset of block[0]

	end       bool  // the footer marker was read
	footerOff int64 // its offset

	scratch []byte // assembles strings that cross a block boundary
	entries int64
	err     error
}

func (r *reader) corrupt(at int64, format string, args ...any) error {
	return &CorruptError{File: r.file, Offset: at, Reason: fmt.Sprintf(format, args...)}
}

// fail sets the sticky error, keeping the first.
func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// readFail turns a failed read of what, which started at offset at, into
// a CorruptError when the file simply ended, or an I/O error otherwise.
func (r *reader) readFail(at int64, err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.corrupt(at, "file truncated in %s", what)
	}
	return fmt.Errorf("snapshot %s: reading at offset %d: %w", r.file, at, err)
}

// readFull reads len(p) bytes of what, starting at r.off.
func (r *reader) readFull(p []byte, at int64, what string) error {
	n, err := io.ReadFull(r.br, p)
	r.off += int64(n)
	if err != nil {
		return r.readFail(at, err, what)
	}
	return nil
}

// header reads and checks the header; errors are returned, not sticky.
func (r *reader) header() (Header, error) {
	var pre [prefixLen]byte
	n, err := io.ReadFull(r.br, pre[:])
	r.off += int64(n)
	if got := pre[:min(n, len(magic))]; string(got) != magic[:len(got)] {
		return Header{}, r.corrupt(0, "bad magic %q: not a ruvio snapshot", got)
	}
	if err != nil {
		at := int64(0)
		if n >= len(magic) {
			at = int64(len(magic))
		}
		return Header{}, r.readFail(at, err, "the header")
	}
	// Everything after the magic is covered by the header checksum, so
	// its problems are reported at the first byte it covers.
	const at = int64(len(magic))
	vl := pre[len(magic) : len(magic)+6]
	version := binary.LittleEndian.Uint16(vl[0:2])
	bodyLen := binary.LittleEndian.Uint32(vl[2:6])
	sum := binary.LittleEndian.Uint32(pre[len(magic)+6:])
	if bodyLen > maxHeaderBody {
		return Header{}, r.corrupt(at, "header length %d exceeds %d", bodyLen, maxHeaderBody)
	}
	body := make([]byte, bodyLen)
	if err := r.readFull(body, at, "the header"); err != nil {
		return Header{}, err
	}
	if headerCRC(vl, body) != sum {
		return Header{}, r.corrupt(at, "header checksum mismatch")
	}
	// Only now is the version known to be what the writer wrote, rather
	// than a damaged byte.
	var h Header
	var reason string
	switch version {
	case 1, 2:
		h, reason = decodeHeader(body, version)
	default:
		return Header{}, fmt.Errorf("snapshot %s: %w %d (this release reads versions 1 to %d; was the file written by a newer ruvio?)",
			r.file, ErrUnsupportedVersion, version, Version)
	}
	if reason != "" {
		return Header{}, r.corrupt(at, "%s", reason)
	}
	r.version, r.headerCRC = version, sum
	return h, nil
}

// next loads and verifies the next block. It returns false at the footer
// marker (setting r.end) or on error.
func (r *reader) next() bool {
	if r.err != nil || r.end {
		return false
	}
	at := r.off
	var frame [frameLen]byte
	if err := r.readFull(frame[:4], at, "a block or footer marker"); err != nil {
		r.fail(err)
		return false
	}
	n := binary.LittleEndian.Uint32(frame[:4])
	if n == 0 {
		r.end, r.footerOff = true, at
		return false
	}
	if n > blockSize {
		r.fail(r.corrupt(at, "block length %d exceeds %d", n, blockSize))
		return false
	}
	payload := r.buf[:n]
	if err := r.readFull(frame[4:], at, "a block"); err != nil {
		r.fail(err)
		return false
	}
	if err := r.readFull(payload, at, "a block"); err != nil {
		r.fail(err)
		return false
	}
	if blockCRC(frame[:4], payload) != binary.LittleEndian.Uint32(frame[4:]) {
		r.fail(r.corrupt(at, "block checksum mismatch"))
		return false
	}
	r.block, r.pos, r.blockOff = payload, 0, at+frameLen
	return true
}

// fill loads the next block in the middle of an entry, where the end of
// the blocks means the entry was cut off.
func (r *reader) fill() bool {
	if r.next() {
		return true
	}
	if r.err == nil {
		r.fail(r.corrupt(r.footerOff, "entry %d is cut off by the end of the blocks", r.entries))
	}
	return false
}

// at is the file offset of the next byte to decode.
func (r *reader) at() int64 { return r.blockOff + int64(r.pos) }

// footer checks the footer once the marker has been read.
func (r *reader) footer() error {
	var f [footerLen]byte
	if err := r.readFull(f[:], r.footerOff, "the footer"); err != nil {
		return err
	}
	count := binary.LittleEndian.Uint64(f[0:8])
	hcrc := binary.LittleEndian.Uint32(f[8:12])
	switch {
	case string(f[12:]) != endMagic:
		return r.corrupt(r.footerOff, "bad end magic %q", f[12:])
	case hcrc != r.headerCRC:
		return r.corrupt(r.footerOff, "footer belongs to another header (header checksum %08x, footer has %08x)", r.headerCRC, hcrc)
	case count != uint64(r.entries):
		return r.corrupt(r.footerOff, "footer counts %d entries but the blocks hold %d", count, r.entries)
	}
	if _, err := r.br.ReadByte(); err == nil {
		return r.corrupt(r.off, "unexpected data after the footer")
	} else if err != io.EOF {
		return fmt.Errorf("snapshot %s: reading at offset %d: %w", r.file, r.off, err)
	}
	return nil
}

// entry decodes the next entry; ok is false at the end of the blocks or on
// error (r.err tells which).
func (r *reader) entry() (key string, e keyspace.Entry, ok bool) {
	if r.pos == len(r.block) && !r.next() {
		return "", e, false
	}
	start := r.at()
	typ := r.byte()
	if typ > typeHash && typ != typeStream && typ != typeLibraries && typ != typeArrivals {
		r.fail(r.corrupt(start, "entry %d has unknown type %d", r.entries, typ))
		return "", e, false
	}
	key = r.str(r.length())
	e.ExpireAt = r.varint()
	switch typ {
	case typeString:
		e.Val = r.stringValue(r.length())
	case typeList:
		e.Val = r.list()
	case typeSet:
		e.Val = r.set()
	case typeZSet:
		e.Val = r.zset()
	case typeHash:
		e.Val = r.hash()
	case typeStream:
		e.Val = r.stream()
	case typeLibraries:
		e.Val = Libraries(r.bytes(r.length()))
	case typeArrivals:
		e.Val = Arrivals(r.bytes(r.length()))
	}
	if r.err != nil {
		return "", keyspace.Entry{}, false
	}
	return key, e, true
}

func (r *reader) list() *deque.Deque {
	n := r.count(1)
	elems := make([][]byte, n)
	for i := range elems {
		if elems[i] = r.bytes(r.length()); r.err != nil {
			return nil
		}
	}
	return deque.New(elems...)
}

func (r *reader) set() map[string]struct{} {
	n := r.count(1)
	m := make(map[string]struct{}, n)
	for range n {
		if m[r.str(r.length())] = struct{}{}; r.err != nil {
			return nil
		}
	}
	if len(m) != n {
		r.fail(r.corrupt(r.at(), "entry %d: set repeats a member", r.entries))
	}
	return m
}

func (r *reader) zset() *sortedset.Set {
	n := r.count(9)
	items := make([]sortedset.Item, 0, n)
	for range n {
		member := r.str(r.length())
		score := math.Float64frombits(r.u64())
		if r.err != nil {
			return nil
		}
		if score != score {
			// sortedset.Add panics on NaN, and no set can hold one.
			r.fail(r.corrupt(r.at()-8, "entry %d: NaN score", r.entries))
			return nil
		}
		items = append(items, sortedset.Item{Member: member, Score: score})
	}
	// Built whole, as Redis loads one, so a large set keeps -0 scores.
	s := sortedset.FromItems(items)
	if s.Len() != n {
		r.fail(r.corrupt(r.at(), "entry %d: sorted set repeats a member", r.entries))
		return nil
	}
	return s
}

func (r *reader) stream() *stream.Stream {
	at := r.at()
	b := r.bytes(r.length())
	if r.err != nil {
		return nil
	}
	s, err := stream.Unmarshal(b)
	if err != nil {
		r.fail(r.corrupt(at, "entry %d: %v", r.entries, err))
		return nil
	}
	return s
}

func (r *reader) hash() *hash.Hash {
	n := r.count(2)
	h := hash.New()
	// The hash copies each value, so one buffer serves them all.
	var val []byte
	for range n {
		f := r.str(r.length())
		vn := r.length()
		if r.err != nil {
			return nil
		}
		if cap(val) < vn {
			val = make([]byte, vn)
		}
		val = val[:vn]
		if r.read(val); r.err != nil {
			return nil
		}
		h.Set(f, val)
	}
	if h.Len() != n {
		r.fail(r.corrupt(r.at(), "entry %d: hash repeats a field", r.entries))
	}
	return h
}

// remaining bounds the bytes still decodable: everything left in the file.
func (r *reader) remaining() int64 { return r.size - r.at() }

// length reads a byte length, which must fit in what is left of the file.
func (r *reader) length() int {
	at := r.at()
	n := r.uvarint()
	if r.err == nil && n > uint64(r.remaining()) {
		r.fail(r.corrupt(at, "entry %d: length %d exceeds the rest of the file", r.entries, n))
		return 0
	}
	return int(n)
}

// count reads an element count; each element takes at least minLen bytes,
// so the count is bounded before anything is allocated for it.
func (r *reader) count(minLen int64) int {
	at := r.at()
	n := r.uvarint()
	if r.err == nil && n > uint64(r.remaining()/minLen) {
		r.fail(r.corrupt(at, "entry %d: %d elements cannot fit in the rest of the file", r.entries, n))
		return 0
	}
	return int(n)
}

func (r *reader) byte() byte {
	if r.pos == len(r.block) && !r.fill() {
		return 0
	}
	c := r.block[r.pos]
	r.pos++
	return c
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	if v, n := binary.Uvarint(r.block[r.pos:]); n > 0 {
		r.pos += n
		return v
	}
	// The varint crosses into the next block (or is malformed): go byte
	// by byte.
	at := r.at()
	var x uint64
	for i := range binary.MaxVarintLen64 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			return x | uint64(c)<<(7*i)
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	r.fail(r.corrupt(at, "entry %d: varint overflows 64 bits", r.entries))
	return 0
}

func (r *reader) varint() int64 {
	ux := r.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (r *reader) u64() uint64 {
	if r.err == nil && len(r.block)-r.pos >= 8 {
		v := binary.LittleEndian.Uint64(r.block[r.pos:])
		r.pos += 8
		return v
	}
	var b [8]byte
	r.read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// read fills dst from the entry stream, crossing blocks as needed.
func (r *reader) read(dst []byte) {
	for len(dst) > 0 && r.err == nil {
		if r.pos == len(r.block) && !r.fill() {
			return
		}
		k := copy(dst, r.block[r.pos:])
		r.pos += k
		dst = dst[k:]
	}
}

// bytes returns the next n bytes in a new slice.
func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	r.read(b)
	return b
}

// stringValue returns the next n bytes as a string value, laid out as
// the commands store one (keyspace.NewString), allocated once.
func (r *reader) stringValue(n int) any {
	if r.err != nil {
		return nil
	}
	if n <= len(r.block)-r.pos {
		v := keyspace.NewString(r.block[r.pos : r.pos+n])
		r.pos += n
		return v
	}
	return keyspace.OwnString(r.bytes(n))
}

// str returns the next n bytes as a string, allocated once.
func (r *reader) str(n int) string {
	if r.err != nil {
		return ""
	}
	if n <= len(r.block)-r.pos {
		s := string(r.block[r.pos : r.pos+n])
		r.pos += n
		return s
	}
	if n > blockSize {
		// Too big to keep a scratch buffer around for; rare.
		return string(r.bytes(n))
	}
	if cap(r.scratch) < n {
		r.scratch = make([]byte, blockSize)
	}
	b := r.scratch[:n]
	r.read(b)
	return string(b)
}
