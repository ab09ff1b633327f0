package wal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// segView is one segment as a Replay sees it: the bytes written when the
// Replay started, read through a reference the Replay holds.
type segView struct {
	path  string
	bound int64
	h     *handle
}

// Replay calls fn for every record with Seq > after, in order, up to the
// Last() of the moment Replay is called, and returns the first error fn
// returns. It runs concurrently with Append, the writer, DropBefore and
// Close: it takes a consistent cut under the lock — the segments, how much
// of each was written, and copies of the encoded records still in memory —
// and then reads without the lock, so records appended after the call are
// not included (call again from the last Seq seen to continue).
//
// Record.Ops and the argvs inside alias Replay's buffers: they are valid
// only until fn returns; copy what must outlive the call.
//
// If records after `after` have been dropped (or, in Memory mode, were
// never kept) Replay returns an error wrapping ErrCompacted without calling
// fn. A record that no longer verifies is a *CorruptError.
func (l *Log) Replay(after uint64, fn func(Record) error) error {
	if l.mode == Memory {
		if last := l.last.Load(); after < last {
			return fmt.Errorf("%w: memory mode keeps no records (asked for %d..%d)", ErrCompacted, after+1, last)
		}
		return nil
	}

	l.mu.Lock()
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return err
	}
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	hi := l.last.Load()
	if after >= hi {
		l.mu.Unlock()
		return nil
	}
	if after+1 < l.base0 {
		base0 := l.base0
		l.mu.Unlock()
		return fmt.Errorf("%w: asked for records from %d, the log starts at %d", ErrCompacted, after+1, base0)
	}
	// Start at the last segment beginning at or before after+1; earlier
	// ones hold only records the caller has.
	start := 0
	for i, s := range l.segs {
		if s.base <= after+1 {
			start = i
		}
	}
	views := make([]segView, 0, len(l.segs)-start)
	for _, s := range l.segs[start:] {
		s.h.acquire()
		views = append(views, segView{path: s.path, bound: s.size, h: s.h})
	}
	// The bytes being written and those waiting for the writer are not (all)
	// in the file yet as far as the bounds above say; copy them so the
	// writer can reuse its buffers.
	tail := make([]byte, 0, len(l.inflight)+len(l.pending))
	tail = append(tail, l.inflight...)
	tail = append(tail, l.pending...)
	l.mu.Unlock()
	defer func() {
		for _, v := range views {
			v.h.release()
		}
	}()

	rp := replayer{after: after, expect: after + 1, fn: fn}
	for _, v := range views {
		r := bufio.NewReaderSize(io.NewSectionReader(v.h.f, headerSize, v.bound-headerSize), 256<<10)
		if err := rp.read(r, v.path, headerSize); err != nil {
			return err
		}
	}
	if err := rp.read(bytes.NewReader(tail), "(in-memory tail)", 0); err != nil {
		return err
	}
	if rp.expect != hi+1 {
		return fmt.Errorf("wal: replay ended at sequence %d, expected %d", rp.expect-1, hi)
	}
	return nil
}

// replayer decodes a stream of frames and feeds records past `after` to fn,
// checking that they come without gaps or repeats.
type replayer struct {
	after  uint64
	expect uint64
	fn     func(Record) error
	dec    decoder
	body   []byte
}

// read consumes frames from r until EOF; base is the file offset of r's
// first byte, for error reports.
func (rp *replayer) read(r io.Reader, path string, base int64) error {
	var fh [frameHeaderSize]byte
	off := base
	corrupt := func(reason string) error {
		return &CorruptError{File: path, Offset: off, Reason: reason}
	}
	for {
		if _, err := io.ReadFull(r, fh[:]); err != nil {
			switch {
			case errors.Is(err, io.EOF):
				return nil
			case errors.Is(err, io.ErrUnexpectedEOF):
				return corrupt("incomplete record header")
			}
			return fmt.Errorf("wal: read %s: %w", path, err)
		}
		fr := parseFrame(fh[:])
		if fr.length < minBodySize {
			return corrupt(fmt.Sprintf("invalid record length %d", fr.length))
		}
		if cap(rp.body) < int(fr.length) {
			rp.body = make([]byte, fr.length)
		}
		body := rp.body[:fr.length]
		if _, err := io.ReadFull(r, body); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return corrupt("incomplete record")
			}
			return fmt.Errorf("wal: read %s: %w", path, err)
		}
		if crc32.Checksum(body, castagnoli) != fr.crc {
			return corrupt("checksum mismatch")
		}
		seq, epoch, ops, reason := parseBody(body, &rp.dec)
		if reason != "" {
			return corrupt(reason)
		}
		if seq > rp.after {
			if seq != rp.expect {
				return corrupt(fmt.Sprintf("sequence %d where %d was expected", seq, rp.expect))
			}
			rp.expect++
			if err := rp.fn(Record{Seq: seq, Epoch: epoch, Ops: ops}); err != nil {
				return err
			}
		}
		off += frameHeaderSize + int64(fr.length)
	}
}
