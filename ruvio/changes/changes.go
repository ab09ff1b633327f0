// Package changes holds the change stream's decisions as pure code: the
// cursor a consumer keeps, where a consumer resumes on a shard whose
// history may have forked from the one it read (a failover, a restart
// that lost records), and which of a record's operations it is shown.
//
// A cursor names a record: its sequence, the replication epoch of the log
// it was read from (the generation) and the ID of the stretch of history
// holding it. The ID tells apart two stretches of the same epoch (the
// same primary before and after a restart that lost records, or two nodes
// promoted by hand to the same epoch number), which the epoch alone does
// not.
package changes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/repl"
)

// Cursor is a place in a shard's change stream: the consumer has seen
// every record up to and including Seq. Seq 0 is before the first
// record.
type Cursor struct {
	Epoch, Seq, Stretch uint64
}

// String renders the cursor as the stream shows it:
// <epoch>-<sequence>-<stretch>, decimal.
func (c Cursor) String() string {
	b := strconv.AppendUint(nil, c.Epoch, 10)
	b = append(b, '-')
	b = strconv.AppendUint(b, c.Seq, 10)
	b = append(b, '-')
	return string(strconv.AppendUint(b, c.Stretch, 10))
}

// ErrBadCursor is the reply to a cursor that does not parse.
const ErrBadCursor = "ERR Invalid change stream cursor: expected <epoch>-<sequence>-<stretch>, as the stream sent it"

// Parse reads a cursor String wrote.
func Parse(s string) (Cursor, error) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return Cursor{}, fmt.Errorf("%s", ErrBadCursor)
	}
	var v [3]uint64
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return Cursor{}, fmt.Errorf("%s", ErrBadCursor)
		}
		v[i] = n
	}
	return Cursor{Epoch: v[0], Seq: v[1], Stretch: v[2]}, nil
}

// Resume is where a consumer goes on.
type Resume struct {
	// From is the sequence of the first record to send.
	From uint64
	// Rewound: the consumer saw records this shard's history does not
	// hold (its log forked after At.Seq, or its stretch is unknown
	// here). It is sent ["rewound", At] first and must undo or reload
	// what it applied after At.Seq.
	Rewound bool
	At      Cursor
}

// Decide finds where a consumer holding cursor c resumes on a shard
// whose history is h and whose last record is last.
//
//   - Seq 0 is before every history: the stream starts at the first record.
//   - A cursor in a stretch h holds (same epoch and ID) resumes after it,
//     unless the shard's copy of that stretch ends before c.Seq: the shard
//     forked a newer epoch after fewer records (a failover promoted a
//     replica that had not received them), or restarted with fewer. Then
//     the consumer is rewound to the stretch's end, the last record both
//     hold.
//   - A stretch h does not hold (a history that was dropped, a restart
//     that kept nothing) shares no record this shard can name: rewound
//     to 0, reload everything.
//
// The rewound cursor names the fork point in the shard's newest stretch:
// the generation the consumer reads from now on.
func Decide(h []repl.EpochStart, last uint64, c Cursor) Resume {
	if c.Seq == 0 {
		return Resume{From: 1}
	}
	for i, s := range h {
		if s.Epoch != c.Epoch || s.ID != c.Stretch {
			continue
		}
		end := last
		if i+1 < len(h) {
			end = h[i+1].FirstSeq - 1
		}
		if c.Seq <= end {
			return Resume{From: c.Seq + 1}
		}
		return rewound(h, end)
	}
	return rewound(h, 0)
}

func rewound(h []repl.EpochStart, at uint64) Resume {
	return Resume{From: at + 1, Rewound: true, At: Newest(h, at)}
}

// Newest is a cursor at seq in the newest stretch of h: the one a
// consumer that starts now, or was rewound to seq, is reading.
func Newest(h []repl.EpochStart, seq uint64) Cursor {
	if len(h) == 0 {
		return Cursor{Seq: seq}
	}
	s := h[len(h)-1]
	return Cursor{Epoch: s.Epoch, Seq: seq, Stretch: s.ID}
}

// Holding is the cursor of record seq on a shard whose history is h: the
// stretch is the last one that began at or before seq (none for seq 0).
func Holding(h []repl.EpochStart, seq uint64) Cursor {
	c := Cursor{Seq: seq}
	for _, s := range h {
		if s.FirstSeq > seq {
			break
		}
		c.Epoch, c.Stretch = s.Epoch, s.ID
	}
	return c
}

// NewestID is the ID of h's newest stretch (0 for none): a stream's view
// of the history it decided on.
func NewestID(h []repl.EpochStart) uint64 {
	if len(h) == 0 {
		return 0
	}
	return h[len(h)-1].ID
}

// At is the cursor of record seq of epoch on a shard whose history is h:
// the stretch is the newest one of that epoch that began at or before
// seq.
func At(h []repl.EpochStart, epoch, seq uint64) Cursor {
	c := Cursor{Epoch: epoch, Seq: seq}
	for _, s := range h {
		if s.FirstSeq > seq {
			break
		}
		if s.Epoch == epoch {
			c.Stretch = s.ID
		}
	}
	return c
}

// InternalPrefix begins the names of the log's own operations (a stretch
// of history beginning, slots arriving, the function libraries): the
// stream leaves them out.
const InternalPrefix = "ruvio-"

// Visible returns the operations of a record a consumer is shown: every
// one but the log's own. It returns ops itself when it holds none of
// those.
func Visible(ops [][][]byte) [][][]byte {
	var out [][][]byte
	for i, op := range ops {
		switch {
		case internal(op):
			if out == nil {
				out = append(make([][][]byte, 0, len(ops)), ops[:i]...)
			}
		case out != nil:
			out = append(out, op)
		}
	}
	if out == nil {
		return ops
	}
	return out
}

func internal(op [][]byte) bool {
	return len(op) > 0 && len(op[0]) >= len(InternalPrefix) && strings.EqualFold(string(op[0][:len(InternalPrefix)]), InternalPrefix)
}
