package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"
)

const (
	// segmentMagic opens every segment file.
	segmentMagic = "RUVIOWAL"
	// formatVersion is the only segment format this build reads and writes.
	formatVersion uint32 = 1
	// headerSize is the length of a version-1 segment header.
	headerSize = 24
	// frameHeaderSize is the length and CRC in front of every record body.
	frameHeaderSize = 8
	// minBodySize is the smallest possible body (seq, epoch and nops of one
	// byte each); it keeps zero-filled space from parsing as a record.
	minBodySize = 3
	// maxBodySize is what the u32 length field can express.
	maxBodySize = math.MaxUint32

	segmentPrefix = "wal-"
	segmentSuffix = ".log"
	seqDigits     = 20
)

// castagnoli is the CRC-32C table; the stdlib uses the SSE4.2/ARMv8 CRC
// instructions for it, so checksumming costs little next to the copy.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// segmentName is the file name of the segment whose first record is base.
func segmentName(base uint64) string {
	return fmt.Sprintf("%s%0*d%s", segmentPrefix, seqDigits, base, segmentSuffix)
}

// parseSegmentName returns the base sequence a segment file name encodes. It
// accepts only names segmentName could have produced, so stray files that
// merely look similar are left alone.
func parseSegmentName(name string) (uint64, bool) {
	if len(name) != len(segmentPrefix)+seqDigits+len(segmentSuffix) ||
		!strings.HasPrefix(name, segmentPrefix) || !strings.HasSuffix(name, segmentSuffix) {
		return 0, false
	}
	digits := name[len(segmentPrefix) : len(segmentPrefix)+seqDigits]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	base, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return base, true
}

// appendHeader appends a version-1 segment header for base.
func appendHeader(dst []byte, base uint64) []byte {
	start := len(dst)
	dst = append(dst, segmentMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, formatVersion)
	dst = binary.LittleEndian.AppendUint64(dst, base)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// headerResult classifies a segment header.
type headerResult struct {
	base uint64
	// reason is empty for a good header.
	reason string
	// unsupported marks a well-formed header of a format version this build
	// does not know: never a torn write, always a refusal.
	unsupported bool
	version     uint32
}

// decodeHeader checks the first bytes of a segment. Magic and version come
// first because they are the only fields every format version keeps in place.
func decodeHeader(b []byte) headerResult {
	if len(b) < 12 {
		return headerResult{reason: "incomplete segment header"}
	}
	if string(b[:8]) != segmentMagic {
		return headerResult{reason: "bad segment magic"}
	}
	v := binary.LittleEndian.Uint32(b[8:12])
	switch {
	case v == 0:
		// A zero version is what a header zeroed by a crash looks like.
		return headerResult{reason: "bad segment header version 0"}
	case v > formatVersion:
		return headerResult{
			reason:      fmt.Sprintf("unsupported format version %d (this build reads version %d)", v, formatVersion),
			unsupported: true,
			version:     v,
		}
	}
	if len(b) < headerSize {
		return headerResult{reason: "incomplete segment header"}
	}
	if crc32.Checksum(b[:20], castagnoli) != binary.LittleEndian.Uint32(b[20:24]) {
		return headerResult{reason: "segment header checksum mismatch"}
	}
	return headerResult{base: binary.LittleEndian.Uint64(b[12:20]), version: v}
}

// bodySize is the encoded body length of a record, computed up front so that
// an oversized record is refused before anything is appended.
func bodySize(seq, epoch uint64, ops [][][]byte) uint64 {
	n := uvarintLen(seq) + uvarintLen(epoch) + uvarintLen(uint64(len(ops)))
	for _, argv := range ops {
		n += uvarintLen(uint64(len(argv)))
		for _, arg := range argv {
			n += uvarintLen(uint64(len(arg))) + uint64(len(arg))
		}
	}
	return n
}

func uvarintLen(v uint64) uint64 {
	n := uint64(1)
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// appendRecord appends the framed encoding of one record to dst. The caller
// has checked that the body fits maxBodySize.
func appendRecord(dst []byte, seq, epoch uint64, ops [][][]byte, size uint64) []byte {
	start := len(dst)
	dst = growBytes(dst, frameHeaderSize+int(size))
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	dst = binary.AppendUvarint(dst, seq)
	dst = binary.AppendUvarint(dst, epoch)
	dst = binary.AppendUvarint(dst, uint64(len(ops)))
	for _, argv := range ops {
		dst = binary.AppendUvarint(dst, uint64(len(argv)))
		for _, arg := range argv {
			dst = binary.AppendUvarint(dst, uint64(len(arg)))
			dst = append(dst, arg...)
		}
	}
	body := dst[start+frameHeaderSize:]
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(body)))
	binary.LittleEndian.PutUint32(dst[start+4:], crc32.Checksum(body, castagnoli))
	return dst
}

// growBytes makes room for n more bytes in one step, so a large record does
// not go through several doublings of the pending buffer.
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), 2*cap(b)+n)
	copy(nb, b)
	return nb
}

// frame is the parsed fixed part of a record frame.
type frame struct {
	length uint32
	crc    uint32
}

func parseFrame(b []byte) frame {
	return frame{
		length: binary.LittleEndian.Uint32(b[0:4]),
		crc:    binary.LittleEndian.Uint32(b[4:8]),
	}
}

// decoder turns record bodies into Records, reusing its slices from one
// record to the next; the argv slices alias the body.
type decoder struct {
	args   [][]byte
	counts []int
	ops    [][][]byte
}

// parseBody validates a body whose checksum has already matched and returns
// its fields. With a nil decoder it only validates, allocating nothing; with
// one, the returned ops alias body and d's buffers until the next call.
func parseBody(body []byte, d *decoder) (seq, epoch uint64, ops [][][]byte, reason string) {
	p := body
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return 0, false
		}
		p = p[n:]
		return v, true
	}
	var nops uint64
	var ok bool
	if seq, ok = next(); !ok {
		return 0, 0, nil, "malformed record: bad sequence"
	}
	if epoch, ok = next(); !ok {
		return 0, 0, nil, "malformed record: bad epoch"
	}
	if nops, ok = next(); !ok {
		return 0, 0, nil, "malformed record: bad op count"
	}
	// Every op and every argument takes at least one byte, which bounds the
	// counts by what is left and keeps a hostile count from allocating.
	if nops > uint64(len(p)) {
		return 0, 0, nil, "malformed record: op count exceeds body"
	}
	if d != nil {
		d.args, d.counts = d.args[:0], d.counts[:0]
	}
	for i := uint64(0); i < nops; i++ {
		argc, ok := next()
		if !ok || argc > uint64(len(p)) {
			return 0, 0, nil, "malformed record: bad argument count"
		}
		for j := uint64(0); j < argc; j++ {
			n, ok := next()
			if !ok || n > uint64(len(p)) {
				return 0, 0, nil, "malformed record: bad argument length"
			}
			if d != nil {
				d.args = append(d.args, p[:n:n])
			}
			p = p[n:]
		}
		if d != nil {
			d.counts = append(d.counts, int(argc))
		}
	}
	if len(p) != 0 {
		return 0, 0, nil, "malformed record: trailing bytes"
	}
	if d == nil {
		return seq, epoch, nil, ""
	}
	d.ops = d.ops[:0]
	at := 0
	for _, c := range d.counts {
		d.ops = append(d.ops, d.args[at:at+c:at+c])
		at += c
	}
	return seq, epoch, d.ops, ""
}

// FrameKey reads, without checking the CRC, the first framed record in b:
// its frame's length (header and body) and the second argument of its
// first op, the key of a command such as SET. ok is false when b does not
// start with a whole frame or its first op has no second argument. It is
// for hints (fetching a key's memory ahead of applying the record), never
// for applying the record.
func FrameKey(b []byte) (key []byte, size int, ok bool) {
	if len(b) < frameHeaderSize {
		return nil, 0, false
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > len(b)-frameHeaderSize {
		return nil, 0, false
	}
	size = frameHeaderSize + n
	p := b[frameHeaderSize:size]
	// sequence, epoch, op count, the first op's argument count
	for range 4 {
		_, m := binary.Uvarint(p)
		if m <= 0 {
			return nil, size, false
		}
		p = p[m:]
	}
	for arg := 0; arg < 2; arg++ {
		l, m := binary.Uvarint(p)
		if m <= 0 || l > uint64(len(p)-m) {
			return nil, size, false
		}
		key, p = p[m:m+int(l)], p[m+int(l):]
	}
	return key, size, true
}
