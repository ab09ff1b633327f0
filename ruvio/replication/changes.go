package replication

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ruvio/ruvio/ruvio/wal"
)

// A ChangeReader reads a shard's records for a change stream (CHANGES
// SUBSCRIBE) as a replica stream does: from the backlog, and from the log
// for records the backlog no longer holds.
type ChangeReader struct {
	st     *ShardState
	bl     *backlog
	rd     *reader
	frames [][]byte
	recs   []wal.Record
}

// ErrChangesGone is returned by Read when the records asked for are no
// longer held: neither the backlog nor the log (the memory profile keeps
// none) goes back that far.
var ErrChangesGone = errors.New("records no longer held")

// NewChangeReader starts reading shard i's records. The shard's backlog
// is created if it has none yet (a node with no replica), as a replica's
// arrival would. Close it when done.
func (n *Node) NewChangeReader(i int) *ChangeReader {
	st := n.states[i]
	st.sh.Lock()
	bl := st.ensureBacklogLocked(n.config().Replication.BacklogBytes)
	st.sh.Unlock()
	return &ChangeReader{st: st, bl: bl, rd: bl.newReader()}
}

// Close ends the reader.
func (cr *ChangeReader) Close() { cr.bl.drop(cr.rd) }

// changeBatchBytes bounds one read's frames.
const changeBatchBytes = 64 << 10

// changeBatchRecords bounds one read from the log.
const changeBatchRecords = 512

var errBatchFull = errors.New("batch full")

// Read returns the records from sequence from on, a batch at a time,
// written to the log as the shard's profile promises (so a crash of this
// node does not take back what a consumer saw, any more than what a
// replica received). With nothing new it returns no record and a channel
// closed by the next one. The records stay valid until the next Read.
func (cr *ChangeReader) Read(from uint64) ([]wal.Record, <-chan struct{}, error) {
	cr.recs = cr.recs[:0]
	frames, ok, wait := cr.bl.read(cr.rd, cr.frames[:0], from, changeBatchBytes)
	cr.frames = frames
	if !ok {
		err := cr.st.sh.ReplayLog(from-1, func(r wal.Record) error {
			r.Ops = copyOps(r.Ops) // the replay reuses its buffers
			cr.recs = append(cr.recs, r)
			if len(cr.recs) >= changeBatchRecords {
				return errBatchFull
			}
			return nil
		})
		switch {
		case errors.Is(err, wal.ErrCompacted):
			return nil, nil, ErrChangesGone
		case err != nil && !errors.Is(err, errBatchFull):
			return nil, nil, err
		case len(cr.recs) == 0 || cr.recs[0].Seq != from:
			// The log was cut back (a full copy replaced it) or holds
			// nothing from there.
			return nil, nil, ErrChangesGone
		}
		return cr.recs, nil, nil
	}
	for _, f := range frames {
		r, err := wal.NewFrameReader(bytes.NewReader(f)).Next()
		if err != nil {
			return nil, nil, fmt.Errorf("record %d in the backlog: %w", from+uint64(len(cr.recs)), err)
		}
		cr.recs = append(cr.recs, r)
	}
	if n := len(cr.recs); n > 0 {
		if err := cr.st.sh.WriteOut(cr.recs[n-1].Seq); err != nil {
			return nil, nil, err
		}
	}
	return cr.recs, wait, nil
}

// copyOps copies a record's operations into one allocation.
func copyOps(ops [][][]byte) [][][]byte {
	n, args := 0, 0
	for _, op := range ops {
		args += len(op)
		for _, a := range op {
			n += len(a)
		}
	}
	buf := make([]byte, 0, n)
	flat := make([][]byte, 0, args)
	out := make([][][]byte, len(ops))
	for i, op := range ops {
		start := len(flat)
		for _, a := range op {
			buf = append(buf, a...)
			flat = append(flat, buf[len(buf)-len(a):len(buf):len(buf)])
		}
		out[i] = flat[start:len(flat):len(flat)]
	}
	return out
}
