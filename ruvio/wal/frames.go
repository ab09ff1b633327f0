package wal

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
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
	r   io.Reader
	hdr [frameHeaderSize]byte
	// frame is the last frame read, header and body, so Frame can hand
	// it on without encoding the record again.
	frame []byte
	dec   decoder
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
	rec, err := f.next()
	if err != nil {
		f.frame = f.frame[:0] // Frame hands on only frames Next returned
	}
	return rec, err
}

func (f *FrameReader) next() (Record, error) {
	if _, err := io.ReadFull(f.r, f.hdr[:]); err != nil {
		return Record{}, err
	}
	fr := parseFrame(f.hdr[:])
	corrupt := func(reason string) error { return &CorruptError{File: "(stream)", Reason: reason} }
	if fr.length < minBodySize || (f.Max > 0 && fr.length > f.Max) {
		return Record{}, corrupt(fmt.Sprintf("invalid record length %d", fr.length))
	}
	body, err := f.readBody(int(fr.length))
	if err != nil {
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

// growStep is the most the reader allocates ahead of the bytes that
// actually arrived: a header that claims a huge body costs its sender the
// bytes, not the reader the memory.
const growStep = 1 << 20

// Frame returns the encoded frame (header and body) of the record Next
// last returned, valid until the next call: what AppendFrame would
// produce for it, so a replica keeps the primary's frame as it came.
func (f *FrameReader) Frame() []byte { return f.frame }

// readBody reads the n-byte body of a frame into the reader's buffer,
// after the header just read, growing the buffer no faster than the body
// arrives.
func (f *FrameReader) readBody(n int) ([]byte, error) {
	f.frame = append(f.frame[:0], f.hdr[:]...)
	if cap(f.frame) >= frameHeaderSize+n {
		f.frame = f.frame[:frameHeaderSize+n]
		if _, err := io.ReadFull(f.r, f.frame[frameHeaderSize:]); err != nil {
			return nil, unexpected(err)
		}
		return f.frame[frameHeaderSize:], nil
	}
	for len(f.frame) < frameHeaderSize+n {
		step := min(frameHeaderSize+n-len(f.frame), max(growStep, len(f.frame)))
		f.frame = slices.Grow(f.frame, step)
		if _, err := io.ReadFull(f.r, f.frame[len(f.frame):len(f.frame)+step]); err != nil {
			return nil, unexpected(err)
		}
		f.frame = f.frame[:len(f.frame)+step]
	}
	return f.frame[frameHeaderSize:], nil
}

// unexpected turns the end of the stream inside a frame into
// io.ErrUnexpectedEOF: only the end between frames is a clean io.EOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// FrameSize is the number of bytes AppendFrame adds for r.
func FrameSize(r Record) uint64 { return frameHeaderSize + bodySize(r.Seq, r.Epoch, r.Ops) }
