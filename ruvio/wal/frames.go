package wal

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Replication ships records in the log's own frame encoding (length, CRC,
// body), so a replica checks every record it receives exactly as recovery
// checks the records it reads from disk.

// AppendFrame appends the framed encoding of r to dst.
func AppendFrame(dst []byte, r Record) ([]byte, error) {
	size := bodySize(r.Seq, r.Epoch, r.Ops)
	if size > maxBodySize {
		return dst, fmt.Errorf("wal: record %d encodes to %d bytes, over the %d-byte limit", r.Seq, size, uint64(maxBodySize))
	}
	return appendRecord(dst, r.Seq, r.Epoch, r.Ops, size), nil
}

// FrameSeq returns the sequence of the well-formed frame at the start of b
// (one AppendFrame produced).
func FrameSeq(b []byte) uint64 { return frameSeq(b) }

// FrameReader decodes frames one at a time from a stream.
type FrameReader struct {
	r    io.Reader
	hdr  [frameHeaderSize]byte
	body []byte
	dec  decoder
	// Max bounds a frame's body, so a hostile or confused peer cannot
	// make the reader allocate without limit (0: the format's limit).
	Max uint32
}

// NewFrameReader reads frames from r.
func NewFrameReader(r io.Reader) *FrameReader { return &FrameReader{r: r} }

// Next returns the next record. Its Ops alias the reader's buffers until
// the next call. A damaged frame is a *CorruptError; the end of the
// stream between frames is io.EOF.
func (f *FrameReader) Next() (Record, error) {
	if _, err := io.ReadFull(f.r, f.hdr[:]); err != nil {
		return Record{}, err
	}
	fr := parseFrame(f.hdr[:])
	corrupt := func(reason string) error { return &CorruptError{File: "(stream)", Reason: reason} }
	if fr.length < minBodySize || (f.Max > 0 && fr.length > f.Max) {
		return Record{}, corrupt(fmt.Sprintf("invalid record length %d", fr.length))
	}
	if cap(f.body) < int(fr.length) {
		f.body = make([]byte, fr.length)
	}
	body := f.body[:fr.length]
	if _, err := io.ReadFull(f.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Record{}, err
	}
	if crc32.Checksum(body, castagnoli) != fr.crc {
		return Record{}, corrupt("checksum mismatch")
	}
	seq, epoch, ops, reason := parseBody(body, &f.dec)
	if reason != "" {
		return Record{}, corrupt(reason)
	}
	return Record{Seq: seq, Epoch: epoch, Ops: ops}, nil
}

// FrameSize is the number of bytes AppendFrame adds for r.
func FrameSize(r Record) uint64 { return frameHeaderSize + bodySize(r.Seq, r.Epoch, r.Ops) }
