package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"
)

// Version is the format version this release writes. Load reads every
// version from 1 up to Version. Version 2 added each history entry's ID.
const Version = 2

const (
	magic    = "RUVIOSNP"
	endMagic = "RUVIOEND"

	// prefixLen is magic, version, bodyLen and bodyCRC: the part of the
	// header every version shares.
	prefixLen = len(magic) + 2 + 4 + 4

	// maxHeaderBody bounds the header body so a damaged length cannot make
	// the reader allocate much; a million epochs of history would still fit.
	maxHeaderBody = 1 << 20

	// blockSize is the largest block payload. Big enough that framing costs
	// nothing measurable, small enough that a reported offset narrows damage
	// down to 64 KiB and the reader's buffer stays small.
	blockSize = 64 << 10

	// frameLen is a block's len and crc.
	frameLen = 8

	// footerLen is the footer after its zero marker: count, headerCRC and
	// the end magic.
	footerLen = 8 + 4 + len(endMagic)
)

// Entry type codes, as in Redis's RDB.
const (
	typeString = 0
	typeList   = 1
	typeSet    = 2
	typeZSet   = 3
	typeHash   = 4
	// typeStream holds a stream as stream.Marshal encodes it.
	typeStream = 15
	// typeLibraries holds the node's function libraries (Libraries), as
	// Redis's RDB opcode for a function library is numbered; its key is
	// empty. A file without libraries is unchanged, so the version stays.
	typeLibraries = 245
	// typeArrivals holds the ranges slot moves brought to the shard
	// (Arrivals); its key is empty. A file without them is unchanged.
	typeArrivals = 244
)

// Arrivals is the value of the entry holding the ranges slot moves
// brought to the shard as of the image: an opaque payload (the shard's)
// that Load hands to its callback under the empty key. The log records
// that brought them are not replayed after a restart from the image, and
// a replica's full copy does not carry them.
type Arrivals []byte

// Libraries is the value of the entry holding the node's function
// libraries: an opaque payload (the shard's library image) that Load
// hands to its callback under the empty key.
type Libraries []byte

// castagnoli is the CRC-32C table; the polynomial has hardware support on
// amd64 and arm64, so checksumming costs little next to the disk.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrUnsupportedVersion is returned, wrapped, for a well-formed file whose
// format version this release does not know (written by a newer release).
var ErrUnsupportedVersion = errors.New("unsupported snapshot format version")

// EpochStart records that a stretch of the log's history, in Epoch and
// with the random ID drawn where it began, starts at sequence FirstSeq
// (repl.EpochStart). Files of version 1 carry no IDs: they read as 0.
type EpochStart struct{ Epoch, FirstSeq, ID uint64 }

// Header describes a snapshot. The key count lives in the footer, since it
// is only known once every key is written.
type Header struct {
	// Shard is the index of the shard the image belongs to.
	Shard int
	// Seq is the WAL sequence the image is consistent at: it holds every
	// record up to and including Seq and none after.
	Seq uint64
	// Epoch is the replication epoch at Seq.
	Epoch uint64
	// History lists the epochs the log went through, oldest first.
	History []EpochStart
	// CreatedMs is when the image was taken, in Unix milliseconds.
	CreatedMs int64
}

// CorruptError reports a snapshot file whose bytes do not form a valid
// snapshot: a checksum mismatch, a malformed structure or a truncation.
type CorruptError struct {
	File string
	// Offset is the file offset of the damaged block, field or structure.
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("snapshot %s is corrupt at offset %d: %s", e.File, e.Offset, e.Reason)
}

const (
	namePrefix = "snap-"
	nameSuffix = ".rsnap"
	tmpSuffix  = ".tmp"
	seqDigits  = 20 // enough for any uint64, so names sort by sequence
)

// FileName is the name of the complete snapshot at seq.
func FileName(seq uint64) string {
	return fmt.Sprintf("%s%0*d%s", namePrefix, seqDigits, seq, nameSuffix)
}

// parseName returns the sequence of a snapshot file name and whether it is
// a temporary one. ok is false for any other name, so stray files in the
// directory are left alone.
func parseName(name string) (seq uint64, tmp, ok bool) {
	rest, found := strings.CutPrefix(name, namePrefix)
	if !found {
		return 0, false, false
	}
	if r, isTmp := strings.CutSuffix(rest, nameSuffix+tmpSuffix); isTmp {
		rest, tmp = r, true
	} else if r, done := strings.CutSuffix(rest, nameSuffix); done {
		rest = r
	} else {
		return 0, false, false
	}
	if len(rest) != seqDigits {
		return 0, false, false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return 0, false, false
		}
	}
	seq, err := strconv.ParseUint(rest, 10, 64)
	if err != nil {
		return 0, false, false // 20 digits can exceed uint64
	}
	return seq, tmp, true
}

// appendHeader appends the whole header (prefix and body) for h and
// returns the header CRC the footer repeats.
func appendHeader(b []byte, h *Header) ([]byte, uint32) {
	var body []byte
	body = binary.AppendUvarint(body, uint64(h.Shard))
	body = binary.AppendUvarint(body, h.Seq)
	body = binary.AppendUvarint(body, h.Epoch)
	body = binary.AppendUvarint(body, uint64(len(h.History)))
	for _, e := range h.History {
		body = binary.AppendUvarint(body, e.Epoch)
		body = binary.AppendUvarint(body, e.FirstSeq)
		body = binary.AppendUvarint(body, e.ID)
	}
	body = binary.AppendVarint(body, h.CreatedMs)

	b = append(b, magic...)
	start := len(b)
	b = binary.LittleEndian.AppendUint16(b, Version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	crc := headerCRC(b[start:], body)
	b = binary.LittleEndian.AppendUint32(b, crc)
	b = append(b, body...)
	return b, crc
}

// headerCRC checksums the version and length fields (vl) and the body.
func headerCRC(vl, body []byte) uint32 {
	return crc32.Update(crc32.Checksum(vl, castagnoli), castagnoli, body)
}

// blockCRC checksums a block's length field and payload.
func blockCRC(lenField, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(lenField, castagnoli), castagnoli, payload)
}

// decodeHeader parses a header body of version 1 (no history IDs) or 2.
// It reports a reason instead of an error so the caller can attach the
// file and offset.
func decodeHeader(body []byte, version uint16) (Header, string) {
	var h Header
	d := body
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(d)
		if n <= 0 {
			return 0, false
		}
		d = d[n:]
		return v, true
	}
	shard, ok1 := next()
	seq, ok2 := next()
	epoch, ok3 := next()
	n, ok4 := next()
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return h, "malformed header body"
	}
	if shard > math.MaxInt32 {
		return h, fmt.Sprintf("shard index %d out of range", shard)
	}
	// Each history entry takes at least two bytes: bound n before
	// allocating for it.
	if n > uint64(len(d)/2) {
		return h, fmt.Sprintf("epoch history of %d entries does not fit the header", n)
	}
	h.Shard, h.Seq, h.Epoch = int(shard), seq, epoch
	if n > 0 {
		h.History = make([]EpochStart, n)
		for i := range h.History {
			e, okE := next()
			f, okF := next()
			id, okI := uint64(0), true
			if version >= 2 {
				id, okI = next()
			}
			if !okE || !okF || !okI {
				return h, "malformed epoch history"
			}
			h.History[i] = EpochStart{Epoch: e, FirstSeq: f, ID: id}
		}
	}
	created, k := binary.Varint(d)
	if k <= 0 {
		return h, "malformed creation time"
	}
	if k != len(d) {
		return h, fmt.Sprintf("%d unexpected bytes after the header fields", len(d)-k)
	}
	h.CreatedMs = created
	return h, ""
}
