package wal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"path/filepath"
	"slices"
)

// CorruptError reports a segment that cannot be trusted: a bad record or
// header, or a break in the sequence numbers. Offset is where the bad record
// (or header) starts, which is also where TruncateAt would cut to drop it.
type CorruptError struct {
	File   string
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("wal: corrupt segment %s at offset %d: %s", e.File, e.Offset, e.Reason)
}

// ErrUnsupportedFormat is wrapped by Open's error for a segment written in a
// format version this build does not know.
var ErrUnsupportedFormat = errors.New("wal: unsupported segment format version")

// segFile is a segment file found in a directory.
type segFile struct {
	name string
	path string
	base uint64
}

// listSegments returns dir's segment files in sequence order.
func listSegments(fs fsys, dir string) ([]segFile, error) {
	names, err := fs.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("wal: list %s: %w", dir, err)
	}
	var segs []segFile
	for _, name := range names {
		if base, ok := parseSegmentName(name); ok {
			segs = append(segs, segFile{name: name, path: filepath.Join(dir, name), base: base})
		}
	}
	slices.SortFunc(segs, func(a, b segFile) int {
		switch {
		case a.base < b.base:
			return -1
		case a.base > b.base:
			return 1
		}
		return 0
	})
	return segs, nil
}

// segScan is what a full read of one segment found.
type segScan struct {
	size    int64 // file size
	records int
	first   uint64 // sequence of the first record; 0 if none
	last    uint64 // sequence of the last good record; 0 if none
	// end is the offset just past the last good record: where a torn tail
	// is cut. It is 0 when the header itself is bad.
	end int64
	// room is the zeros from end to the end of the file: a preallocated
	// segment's unwritten part.
	room    int64
	problem *CorruptError
	// torn marks a problem that may be a write cut short by a crash:
	// nothing valid follows it. Meaningful for the last segment only.
	torn bool
	// unsupported marks a header of an unknown format version.
	unsupported bool
}

// onlyZeros reports whether everything r has left is zero bytes.
func onlyZeros(r io.Reader) (bool, error) {
	buf := make([]byte, 64<<10)
	zeros := make([]byte, len(buf))
	for {
		n, err := r.Read(buf)
		if !bytes.Equal(buf[:n], zeros[:n]) {
			return false, nil
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// next is the sequence the segment after this one must start with.
func (s *segScan) next(base uint64) uint64 {
	if s.records > 0 {
		return s.last + 1
	}
	return base
}

// scanSegment reads and verifies every record of one segment: header,
// framing, checksums, structure, and that sequences run base, base+1, ...
// I/O errors are returned; damage is described in the result.
func scanSegment(f file, sf segFile) (segScan, error) {
	var sc segScan
	size, err := f.Size()
	if err != nil {
		return sc, fmt.Errorf("wal: stat %s: %w", sf.path, err)
	}
	sc.size = size
	// lastGood is the sequence of the last good record, or the one before
	// the segment's base while there is none.
	lastGood := sf.base - min(sf.base, 1)
	bad := func(off int64, reason string) (segScan, error) {
		sc.problem = &CorruptError{File: sf.path, Offset: off, Reason: reason}
		valid, err := findValid(f, off+1, size, lastGood)
		if err != nil {
			return sc, fmt.Errorf("wal: read %s: %w", sf.path, err)
		}
		sc.torn = !valid
		return sc, nil
	}

	hdr := make([]byte, min(size, headerSize))
	if _, err := f.ReadAt(hdr, 0); err != nil && !errors.Is(err, io.EOF) {
		return sc, fmt.Errorf("wal: read %s: %w", sf.path, err)
	}
	h := decodeHeader(hdr)
	if h.unsupported {
		sc.problem = &CorruptError{File: sf.path, Offset: 0, Reason: h.reason}
		sc.unsupported = true
		return sc, nil
	}
	if h.reason != "" {
		return bad(0, h.reason)
	}
	if h.base != sf.base {
		// A checksummed header naming another sequence is not a torn write.
		sc.problem = &CorruptError{File: sf.path, Offset: 0,
			Reason: fmt.Sprintf("header says the segment starts at sequence %d, the file name says %d", h.base, sf.base)}
		return sc, nil
	}

	sc.end = headerSize
	r := bufio.NewReaderSize(io.NewSectionReader(f, headerSize, size-headerSize), 256<<10)
	var fh [frameHeaderSize]byte
	var body []byte
	expect := sf.base
	for off := int64(headerSize); off < size; {
		n, err := io.ReadFull(r, fh[:])
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return sc, fmt.Errorf("wal: read %s: %w", sf.path, err)
		}
		if bytes.Equal(fh[:n], make([]byte, n)) {
			// Zeros, a whole frame header or what is left of the file:
			// a preallocated segment's room after its last record, when
			// they run to the end of the file.
			zero, err := onlyZeros(r)
			if err != nil {
				return sc, fmt.Errorf("wal: read %s: %w", sf.path, err)
			}
			if zero {
				sc.room = size - off
				return sc, nil
			}
		}
		if err != nil {
			return bad(off, "incomplete record header")
		}
		fr := parseFrame(fh[:])
		if fr.length < minBodySize {
			return bad(off, fmt.Sprintf("invalid record length %d", fr.length))
		}
		if int64(fr.length) > size-off-frameHeaderSize {
			return bad(off, fmt.Sprintf("record length %d runs past the end of the file", fr.length))
		}
		if cap(body) < int(fr.length) {
			body = make([]byte, fr.length)
		}
		body = body[:fr.length]
		if _, err := io.ReadFull(r, body); err != nil {
			return sc, fmt.Errorf("wal: read %s: %w", sf.path, err)
		}
		if crc32.Checksum(body, castagnoli) != fr.crc {
			return bad(off, "checksum mismatch")
		}
		seq, _, _, reason := parseBody(body, nil)
		if reason != "" {
			return bad(off, reason)
		}
		if seq != expect {
			// The checksum matched, so this is no torn write: the
			// sequence itself is wrong.
			sc.problem = &CorruptError{File: sf.path, Offset: off,
				Reason: fmt.Sprintf("sequence %d where %d was expected", seq, expect)}
			return sc, nil
		}
		if sc.records == 0 {
			sc.first = seq
		}
		sc.records++
		sc.last, lastGood = seq, seq
		expect++
		off += frameHeaderSize + int64(fr.length)
		sc.end = off
	}
	return sc, nil
}

// findValidBudget caps the bytes findValid checksums. Finding nothing costs
// a few bytes per offset for zeros, but random junk of size G can make it
// checksum about G³/2³³ bytes (a length field that happens to fit, times the
// body it claims), less what the sequence check filters out. At several
// GB/s of CRC-32C the cap bounds the search to well under a second, enough
// to clear a few MiB of random junk; a real torn tail is at most one write
// batch, usually zeros. Past the cap findValid answers "maybe", which makes
// Open refuse rather than cut.
var findValidBudget int64 = 4 << 30 // a var so tests can shrink it

// findValid reports whether any offset in [from, size) of f may start a
// record whose checksum matches, whose body parses and whose sequence is
// above after. It decides between a torn tail (nothing valid follows the
// damage) and corruption in the middle of the log (something does). It runs
// only when a segment is damaged. Only the bytes up to the last one that
// is not zero are read into memory: a preallocated segment's zeros after a
// torn write cannot start a record (a frame of zeros has length 0), and a
// record starting before them reads them as zeros without holding them.
func findValid(f file, from, size int64, after uint64) (bool, error) {
	if from >= size {
		return false, nil
	}
	end, err := pastLastNonZero(f, from, size)
	if err != nil || end == from {
		return false, err
	}
	buf := make([]byte, end-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	rest := size - from // buf, then zeros to the end of the file
	// No record after the damage can have a sequence beyond this many
	// records past the last good one.
	maxSeq := after + 1 + uint64(rest)/(frameHeaderSize+minBodySize)
	if maxSeq < after {
		maxSeq = math.MaxUint64
	}
	budget := findValidBudget
	var hdr [frameHeaderSize]byte
	var head [binary.MaxVarintLen64]byte
	for p := 0; p < len(buf) && int64(p)+frameHeaderSize+minBodySize <= rest; p++ {
		fr := parseFrame(window(buf, p, frameHeaderSize, hdr[:]))
		if fr.length < minBodySize || int64(fr.length) > rest-int64(p)-frameHeaderSize {
			continue
		}
		at := p + frameHeaderSize
		// The sequence comes first in the body and costs nothing to
		// check, which spares most checksums over junk.
		if seq, n := binary.Uvarint(window(buf, at, min(len(head), int(fr.length)), head[:])); n <= 0 || seq <= after || seq > maxSeq {
			continue
		}
		if budget -= int64(fr.length); budget < 0 {
			return true, nil
		}
		body := window(buf, at, int(fr.length), nil)
		if crc32.Checksum(body, castagnoli) != fr.crc {
			continue
		}
		if _, _, _, reason := parseBody(body, nil); reason == "" {
			return true, nil
		}
	}
	return false, nil
}

// window returns the n bytes from at of buf followed by zeros: a slice of
// buf when buf holds them all, else scratch (or a new slice, when scratch
// is too small) filled with buf's part and zeros.
func window(buf []byte, at, n int, scratch []byte) []byte {
	if at+n <= len(buf) {
		return buf[at : at+n]
	}
	if cap(scratch) < n {
		scratch = make([]byte, n)
	}
	dst := scratch[:n]
	k := copy(dst, buf[min(at, len(buf)):])
	clear(dst[k:])
	return dst
}

// pastLastNonZero returns the offset just past the last byte in [from,
// size) of f that is not zero, from when there is none. It reads from the
// end a chunk at a time.
func pastLastNonZero(f file, from, size int64) (int64, error) {
	chunk := make([]byte, 1<<20)
	for end := size; end > from; {
		start := max(from, end-int64(len(chunk)))
		b := chunk[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != 0 {
				return start + int64(i) + 1, nil
			}
		}
		end = start
	}
	return from, nil
}
