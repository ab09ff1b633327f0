package check

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/slots"
	clustermap "github.com/ruvio/ruvio/ruvio/topology"
)

// Slot moves: the coordinators' operator records each move it followed
// (history.ObsMove: from COORDINATOR MOVE to the STATUS poll that found
// it ended, its range and destination in Detail) and each rebalance
// (history.ObsRebalance). What the clients saw of a move is measured on
// the moved keys (those whose slot is in a moved range) in two ways:
//
//   - SlowestWriteMs: the longest acknowledged write of one command (an
//     add or a write; a compare-and-set is several round trips) on the
//     moved keys in flight during a move, from its first send to its
//     success. A
//     client retries TRYAGAIN inside the op (7 retries doubling from
//     5 ms), so this holds the whole stretch from the write's first
//     TRYAGAIN to its success, plus one round trip.
//   - FreezeMs: the longest stretch between two acknowledged writes on
//     a move's keys that overlaps that move: what all the clients together
//     saw, including writes that gave up (TRYAGAIN past the retries) and
//     the round trips and pacing between writes, so at least the longest
//     write and about 1/rate even without a move.
//
// The final reads of the moved keys must come from the new owner: a read
// another group answered is a violation (its map did not follow the
// move).

// MoveResult is the slot moves' figures (Summary.Moves).
type MoveResult struct {
	// Moves counts the moves recorded, Committed those that committed.
	Moves     int64 `json:"moves"`
	Committed int64 `json:"committed"`
	// Starts is the largest move_starts a move ended with (2 or more: it
	// began again after a failover).
	Starts *int64 `json:"starts"`
	// MoveMs is the longest move, RebalanceMs the longest rebalance, as
	// polled (every 20 ms).
	MoveMs      *int64 `json:"move_ms"`
	RebalanceMs *int64 `json:"rebalance_ms"`
	// Rebalanced says a rebalance ended done; null without one.
	Rebalanced *bool `json:"rebalanced"`
	// SlowestWriteMs and FreezeMs: see above, the worst move's; null
	// without a committed move or without writes on its keys.
	SlowestWriteMs *int64 `json:"slowest_write_ms"`
	FreezeMs       *int64 `json:"freeze_ms"`
	// MovedWrites counts the acknowledged writes on the moved keys;
	// WriteRate is them per second over the span of the workload's ops.
	MovedWrites int64 `json:"moved_writes"`
	WriteRate   int64 `json:"write_rate"`
	// FinalOnOwner and FinalElsewhere count the final reads of the moved
	// keys the new owner answered, and the others.
	FinalOnOwner   int64 `json:"final_on_owner"`
	FinalElsewhere int64 `json:"final_elsewhere"`
}

// String is the figures for a status line.
func (m MoveResult) String() string {
	s := fmt.Sprintf("moves=%d committed=%d moved_writes=%d write_rate=%d/s final_on_owner=%d final_elsewhere=%d",
		m.Moves, m.Committed, m.MovedWrites, m.WriteRate, m.FinalOnOwner, m.FinalElsewhere)
	for _, f := range []struct {
		name string
		v    *int64
	}{{"starts", m.Starts}, {"move_ms", m.MoveMs}, {"rebalance_ms", m.RebalanceMs},
		{"slowest_write_ms", m.SlowestWriteMs}, {"freeze_ms", m.FreezeMs}} {
		if f.v != nil {
			s += fmt.Sprintf(" %s=%d", f.name, *f.v)
		}
	}
	return s
}

// movedRange is one recorded move as Detail spells it.
type movedRange struct {
	first, last int
	to          string
}

// parseMoveDetail reads "first-last src/shard -> dst/shard: ..." (ok
// false for anything else, e.g. a refusal).
func parseMoveDetail(d string) (movedRange, bool) {
	head, _, _ := strings.Cut(d, ":")
	f := strings.Fields(head)
	if len(f) != 4 || f[2] != "->" {
		return movedRange{}, false
	}
	r, err := clustermap.ParseRange(f[0])
	if err != nil {
		return movedRange{}, false
	}
	to, _, _ := strings.Cut(f[3], "/")
	return movedRange{first: r.First, last: r.Last, to: to}, true
}

// moveStarts reads "move_starts N" from a Detail (0 when absent).
func moveStarts(d string) int64 {
	_, rest, ok := strings.Cut(d, "move_starts ")
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimRight(strings.Fields(rest + " ")[0], ","), 10, 64)
	return n
}

// ComputeMoves measures the moves of h; nil when it recorded none.
func ComputeMoves(h *history.History, groups []Group) *MoveResult {
	var m MoveResult
	// windows are the committed moves' [start, end] in ns.
	type window struct {
		from, to int64
		r        movedRange
	}
	var windows []window
	var ranges []movedRange
	seen := false
	for _, o := range h.Observations {
		switch o.Kind {
		case history.ObsMove:
			seen = true
			m.Moves++
			m.MoveMs = maxPtr(m.MoveMs, int64Ptr(o.EndMs-o.StartMs))
			if n := moveStarts(o.Detail); n > 0 {
				m.Starts = maxPtr(m.Starts, int64Ptr(n))
			}
			if r, ok := parseMoveDetail(o.Detail); ok && o.Type == history.OK {
				m.Committed++
				ranges = append(ranges, r)
				windows = append(windows, window{o.StartMs * int64(time.Millisecond), o.EndMs * int64(time.Millisecond), r})
			}
		case history.ObsRebalance:
			seen = true
			m.RebalanceMs = maxPtr(m.RebalanceMs, int64Ptr(o.EndMs-o.StartMs))
			done := o.Type == history.OK && (m.Rebalanced == nil || *m.Rebalanced)
			m.Rebalanced = &done
		}
	}
	if !seen {
		return nil
	}
	// owner is the group the last committed move of a key's slot gave
	// it to ("" for a key no move touched).
	owner := func(key string) string {
		s := slots.OfString(key)
		to := ""
		for _, r := range ranges {
			if s >= r.first && s <= r.last {
				to = r.to
			}
		}
		return to
	}
	nodes := map[string][]string{}
	for _, g := range groups {
		nodes[g.Name] = g.Nodes
	}
	var acks []*history.Op
	var lo, hi int64 = -1, 0
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Final {
			if to := owner(op.Key); to != "" && op.Type == history.OK {
				if slices.Contains(nodes[to], op.Node) {
					m.FinalOnOwner++
				} else {
					m.FinalElsewhere++
				}
			}
			continue
		}
		if lo < 0 || op.T0 < lo {
			lo = op.T0
		}
		hi = max(hi, op.T1)
		if op.Type == history.OK && isWrite(op) && owner(op.Key) != "" {
			acks = append(acks, op)
		}
	}
	m.MovedWrites = int64(len(acks))
	if span := hi - lo; lo >= 0 && span > 0 {
		m.WriteRate = m.MovedWrites * int64(time.Second) / span
	}
	sort.Slice(acks, func(i, j int) bool { return acks[i].T1 < acks[j].T1 })
	for _, w := range windows {
		// The writes on this move's keys: a rebalance's moves freeze
		// their ranges one after another.
		var mine []*history.Op
		for _, op := range acks {
			if s := slots.OfString(op.Key); s >= w.r.first && s <= w.r.last {
				mine = append(mine, op)
			}
		}
		for _, op := range mine {
			if op.F != history.FCAS && op.T0 <= w.to && op.T1 >= w.from {
				m.SlowestWriteMs = maxPtr(m.SlowestWriteMs, int64Ptr((op.T1-op.T0)/int64(time.Millisecond)))
			}
		}
		// Gaps between consecutive acknowledged writes that overlap the
		// window; the last write before the window opens the first, the
		// end of the workload closes a gap no write ends. A move that
		// outlasts the workload is measured as far as the workload saw
		// it: past its end nothing was tried.
		prev := int64(-1)
		for _, op := range mine {
			if prev >= 0 && op.T1 >= w.from && prev <= w.to {
				m.FreezeMs = maxPtr(m.FreezeMs, int64Ptr((op.T1-prev)/int64(time.Millisecond)))
			}
			prev = op.T1
		}
		if prev >= 0 && prev < w.to {
			m.FreezeMs = maxPtr(m.FreezeMs, int64Ptr((hi-prev)/int64(time.Millisecond)))
		}
	}
	return &m
}

// movesChecker measures the moves (Summary.Moves) and holds the final
// reads of the moved keys to the new owner.
type movesChecker struct{ groups []Group }

func (movesChecker) Name() string { return "moves" }

func (c movesChecker) Check(h *history.History) Result {
	m := ComputeMoves(h, c.groups)
	var r Result
	if m == nil {
		return r.judged()
	}
	if m.FinalElsewhere > 0 {
		r.violate("moves: %d final reads of moved keys were answered by a node outside the group the keys moved to", m.FinalElsewhere)
	}
	r.Figures = func(s *Summary) { s.Moves = m }
	return r.judged()
}

// mergeMoves folds one more run's move figures into m: counts add up,
// times are the worst run's.
func mergeMoves(m, r *MoveResult) *MoveResult {
	if r == nil {
		return m
	}
	if m == nil {
		c := *r
		return &c
	}
	m.Moves += r.Moves
	m.Committed += r.Committed
	m.Starts = maxPtr(m.Starts, r.Starts)
	m.MoveMs = maxPtr(m.MoveMs, r.MoveMs)
	m.RebalanceMs = maxPtr(m.RebalanceMs, r.RebalanceMs)
	if r.Rebalanced != nil {
		done := *r.Rebalanced && (m.Rebalanced == nil || *m.Rebalanced)
		m.Rebalanced = &done
	}
	m.SlowestWriteMs = maxPtr(m.SlowestWriteMs, r.SlowestWriteMs)
	m.FreezeMs = maxPtr(m.FreezeMs, r.FreezeMs)
	m.MovedWrites += r.MovedWrites
	m.WriteRate = max(m.WriteRate, r.WriteRate)
	m.FinalOnOwner += r.FinalOnOwner
	m.FinalElsewhere += r.FinalElsewhere
	return m
}

// MoveExpectations are a slot-move scenario's thresholds.
type MoveExpectations struct {
	// MinCommitted is the moves that must commit.
	MinCommitted int64 `json:"min_committed,omitempty"`
	// MinStarts is the move_starts some move must have ended with (2: it
	// began again after a failover); 0 checks nothing.
	MinStarts int64 `json:"min_starts,omitempty"`
	// Rebalanced requires a rebalance that ended done.
	Rebalanced bool `json:"rebalanced,omitempty"`
}

func gateMoves(m *MoveResult, e *MoveExpectations) []string {
	if e == nil {
		return nil
	}
	if m == nil {
		return []string{"moves: none recorded, want a move followed to its end"}
	}
	var miss []string
	if m.Committed < e.MinCommitted {
		miss = append(miss, fmt.Sprintf("moves committed = %d, want >= %d", m.Committed, e.MinCommitted))
	}
	if e.MinStarts > 0 && (m.Starts == nil || *m.Starts < e.MinStarts) {
		miss = append(miss, fmt.Sprintf("move_starts = %s, want >= %d", fmtPtr(m.Starts), e.MinStarts))
	}
	if e.Rebalanced && (m.Rebalanced == nil || !*m.Rebalanced) {
		miss = append(miss, "rebalance did not end done")
	}
	return miss
}

func fmtPtr(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}
