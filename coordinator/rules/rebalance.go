package rules

import (
	"fmt"

	"github.com/ruvio/ruvio/ruvio/topology"
)

// Rebalancing: the plan of moves that evens the slots out across the
// groups in proportion to their shards. Balance is by slot count only.

// RebalanceStep is the most slots one planned move takes.
const RebalanceStep = 256

// PlannedMove is one move of a plan: slots First..Last from shard
// FromShard of group From to shard Shard of group To.
type PlannedMove struct {
	First, Last int
	From        string
	FromShard   int
	To          string
	Shard       int
}

// String is the plan's line: "8448-8703 a/0 -> b/0".
func (p PlannedMove) String() string {
	return fmt.Sprintf("%d-%d %s/%d -> %s/%d", p.First, p.Last, p.From, p.FromShard, p.To, p.Shard)
}

// Shares is how many slots each group of m should hold: 16384 times its
// shards over all shards, rounded down, and the slots left over one each
// to the groups that hold more than that already, so the fewest slots
// move (each leftover given to one of them is a slot that stays), in map
// order; when those are fewer than the leftovers, the rest go to the
// other groups in map order. The rule gives the same groups the
// leftovers all through a plan (a giver it picks stops one above its
// rounded share and stays picked; one it does not pick never came before
// the picked ones), so a plan worked out again after each move keeps its
// aim.
func Shares(m *topology.Map) []int {
	total := 0
	for _, g := range m.Groups {
		total += g.Shards
	}
	shares := make([]int, len(m.Groups))
	if total == 0 {
		return shares
	}
	left := 16384
	for i, g := range m.Groups {
		shares[i] = 16384 * g.Shards / total
		left -= shares[i]
	}
	var above, rest []int
	for i, g := range m.Groups {
		if holding(g) > shares[i] {
			above = append(above, i)
		} else {
			rest = append(rest, i)
		}
	}
	order := append(above, rest...)
	for k := 0; left > 0; k = (k + 1) % len(order) {
		shares[order[k]]++
		left--
	}
	return shares
}

func holding(g topology.Group) int {
	n := 0
	for _, r := range g.Ranges {
		n += r.Len()
	}
	return n
}

// shardLoad is how many slots each shard of g holds.
func shardLoad(g topology.Group) []int {
	load := make([]int, g.Shards)
	for _, r := range g.Ranges {
		if r.Shard >= 0 && r.Shard < g.Shards {
			load[r.Shard] += r.Len()
		}
	}
	return load
}

// NextMove is the first move of the plan for m (ok false when every
// group holds its share): at most RebalanceStep slots from the group with
// the most to spare to the one that lacks the most (the first in map
// order among equals), from the giver's fullest shard to the receiver's
// emptiest (the lowest-numbered among equals), taken next to a range the
// receiver holds, on that shard first, when the giver's shard has one
// there; otherwise the top of the giver shard's last range.
func NextMove(m *topology.Map) (PlannedMove, bool) {
	shares := Shares(m)
	giver, taker := -1, -1
	spare, lack := 0, 0
	for i, g := range m.Groups {
		d := holding(g) - shares[i]
		if d > spare {
			giver, spare = i, d
		}
		if -d > lack {
			taker, lack = i, -d
		}
	}
	if giver < 0 || taker < 0 {
		return PlannedMove{}, false
	}
	n := min(RebalanceStep, spare, lack)
	gv, tk := m.Groups[giver], m.Groups[taker]
	fromShard := argBest(shardLoad(gv), func(a, b int) bool { return a > b })
	toShard := argBest(shardLoad(tk), func(a, b int) bool { return a < b })
	var own []topology.Range
	for _, r := range gv.Ranges {
		if r.Shard == fromShard {
			own = append(own, r)
		}
	}
	mv := PlannedMove{From: gv.Name, FromShard: fromShard, To: tk.Name, Shard: toShard}
	for _, sameShard := range []bool{true, false} {
		for _, tr := range tk.Ranges {
			if sameShard != (tr.Shard == toShard) {
				continue
			}
			for _, r := range own {
				if r.Last+1 == tr.First { // the top of r, just below the receiver's range
					mv.First, mv.Last = max(r.First, r.Last-n+1), r.Last
					return mv, true
				}
				if tr.Last+1 == r.First { // the bottom of r, just above it
					mv.First, mv.Last = r.First, min(r.Last, r.First+n-1)
					return mv, true
				}
			}
		}
	}
	r := own[len(own)-1]
	mv.First, mv.Last = max(r.First, r.Last-n+1), r.Last
	return mv, true
}

func argBest(xs []int, better func(a, b int) bool) int {
	best := 0
	for i, x := range xs {
		if better(x, xs[best]) {
			best = i
		}
	}
	return best
}

// Plan is every move that evens m out, in order: each the NextMove of the
// map the moves before it leave.
func Plan(m *topology.Map) ([]PlannedMove, error) {
	var out []PlannedMove
	for {
		mv, ok := NextMove(m)
		if !ok {
			return out, nil
		}
		n, err := m.Move(mv.First, mv.Last, mv.To, mv.Shard)
		if err != nil {
			return out, fmt.Errorf("planned move %s: %w", mv, err)
		}
		out = append(out, mv)
		m = n
		if len(out) > 16384 {
			return out, fmt.Errorf("the plan does not end")
		}
	}
}
