package zsetcmd

import (
	"math"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// source is one input of the sorted-set algebra: a sorted set, or a plain
// set whose members all score 1, as Redis accepts; both nil for a missing
// key.
type source struct {
	z      *sortedset.Set
	s      map[string]struct{}
	weight float64
}

func (s source) size() int {
	if s.z != nil {
		return s.z.Len()
	}
	return len(s.s)
}

// score returns member's score in s.
func (s source) score(member string) (float64, bool) {
	if s.z != nil {
		return s.z.Score(member)
	}
	if _, in := s.s[member]; in {
		return 1, true
	}
	return 0, false
}

// each calls fn with every element of s.
func (s source) each(fn func(member string, score float64)) {
	if s.z != nil {
		for it := range s.z.Each {
			fn(it.Member, it.Score)
		}
		return
	}
	for m := range s.s {
		fn(m, 1)
	}
}

// setOp is the algebra's operation.
type setOp int

const (
	opUnion setOp = iota
	opInter
	opDiff
)

// aggregate says how scores of one member combine.
type aggregate int

const (
	aggSum aggregate = iota
	aggMin
	aggMax
)

// combine aggregates y into x as Redis's zunionInterAggregate: MIN and
// MAX keep x unless y compares below or above it (so a NaN y changes
// nothing), and a sum that is NaN counts as 0.
func (a aggregate) combine(x, y float64) float64 {
	switch a {
	case aggMin:
		if y < x {
			return y
		}
		return x
	case aggMax:
		if y > x {
			return y
		}
		return x
	}
	if s := x + y; !math.IsNaN(s) {
		return s
	}
	// inf + -inf: Redis counts the sum as 0.
	return 0
}

// weighted is score times weight, 0 for the NaN of 0 * inf as in Redis.
func weighted(score, weight float64) float64 {
	if v := score * weight; !math.IsNaN(v) {
		return v
	}
	return 0
}

// algebraArgs are the parsed arguments of ZUNION, ZINTER, ZDIFF, their
// STORE forms and ZINTERCARD.
type algebraArgs struct {
	srcs       []source
	agg        aggregate
	withScores bool
	limit      int64
}

// parseAlgebra reads numkeys at position at, the keys that follow, and
// the options op and the form (store, cardOnly) allow, in Redis 7's order
// of checks: the count, then every key's type (a sorted set or a set),
// then the options.
func parseAlgebra(c *command.Ctx, at int, op setOp, store, cardOnly bool) (algebraArgs, bool) {
	var a algebraArgs
	n, ok := c.IntArg(c.Args[at])
	if !ok {
		return a, false
	}
	if n < 1 {
		c.W.Error("ERR at least 1 input key is needed for '" + strings.ToLower(string(c.Args[0])) + "' command")
		return a, false
	}
	if n > int64(len(c.Args)-at-1) {
		c.W.Error(command.ErrSyntax)
		return a, false
	}
	keys := c.Args[at+1 : at+1+int(n)]
	a.srcs = make([]source, len(keys))
	for i, k := range keys {
		var e = c.DB.Get(string(k))
		if !store {
			e = c.DB.Read(string(k))
		}
		a.srcs[i].weight = 1
		if e == nil {
			continue
		}
		switch v := e.Val.(type) {
		case *sortedset.Set:
			a.srcs[i].z = v
		case map[string]struct{}:
			a.srcs[i].s = v
		default:
			c.W.Error(command.ErrWrongType)
			return a, false
		}
	}
	opts := c.Args[at+1+int(n):]
	for len(opts) > 0 {
		switch {
		case op != opDiff && !cardOnly && len(opts) > len(keys) && command.Eq(opts[0], "weights"):
			for i := range a.srcs {
				w, ok := parseScore(opts[1+i])
				if !ok {
					c.W.Error("ERR weight value is not a float")
					return a, false
				}
				a.srcs[i].weight = w
			}
			opts = opts[1+len(keys):]
		case op != opDiff && !cardOnly && len(opts) >= 2 && command.Eq(opts[0], "aggregate"):
			switch {
			case command.Eq(opts[1], "sum"):
				a.agg = aggSum
			case command.Eq(opts[1], "min"):
				a.agg = aggMin
			case command.Eq(opts[1], "max"):
				a.agg = aggMax
			default:
				c.W.Error(command.ErrSyntax)
				return a, false
			}
			opts = opts[2:]
		case !store && !cardOnly && command.Eq(opts[0], "withscores"):
			a.withScores = true
			opts = opts[1:]
		case cardOnly && len(opts) >= 2 && command.Eq(opts[0], "limit"):
			l, ok := command.ParseInt(opts[1])
			if !ok || l < 0 {
				c.W.Error("ERR LIMIT can't be negative")
				return a, false
			}
			a.limit = l
			opts = opts[2:]
		default:
			c.W.Error(command.ErrSyntax)
			return a, false
		}
	}
	return a, true
}

// compute returns the members of op's result over srcs with their scores,
// each once, in no particular order.
func compute(op setOp, a algebraArgs) []sortedset.Item {
	var out []sortedset.Item
	srcs := a.srcs
	if op != opDiff {
		// Smallest first, as Redis orders them (stably), which fixes the
		// order scores are summed in.
		srcs = slices.Clone(srcs)
		slices.SortStableFunc(srcs, func(x, y source) int { return x.size() - y.size() })
	}
	switch op {
	case opUnion:
		acc := map[string]float64{}
		var order []string
		for _, s := range srcs {
			s.each(func(m string, score float64) {
				v := weighted(score, s.weight)
				if old, seen := acc[m]; seen {
					acc[m] = a.agg.combine(old, v)
				} else {
					acc[m] = v
					order = append(order, m)
				}
			})
		}
		out = make([]sortedset.Item, len(order))
		for i, m := range order {
			out[i] = sortedset.Item{Member: m, Score: acc[m]}
		}
	case opInter:
		if len(srcs) == 0 || srcs[0].size() == 0 {
			return out
		}
		srcs[0].each(func(m string, score float64) {
			v := weighted(score, srcs[0].weight)
			for _, o := range srcs[1:] {
				s, in := o.score(m)
				if !in {
					return
				}
				// Unlike the first source's, a later source's product
				// is aggregated as it is, NaN included: Redis's ZINTER
				// zeroes only the first, so -inf * 2 + -inf * 0 is 0.
				v = a.agg.combine(v, s*o.weight)
			}
			out = append(out, sortedset.Item{Member: m, Score: v})
		})
	case opDiff:
		srcs[0].each(func(m string, score float64) {
			for _, o := range srcs[1:] {
				if _, in := o.score(m); in {
					return
				}
			}
			out = append(out, sortedset.Item{Member: m, Score: score})
		})
	}
	return out
}

// algebraCmd returns ZUNION, ZINTER or ZDIFF numkeys key [key ...]
// [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES] (no WEIGHTS
// nor AGGREGATE for ZDIFF): the result in score order.
func algebraCmd(op setOp) func(*command.Ctx) {
	return func(c *command.Ctx) {
		a, ok := parseAlgebra(c, 1, op, false, false)
		if !ok {
			return
		}
		// Redis answers from a skiplist built for the result, so a
		// computed -0 keeps its sign here, unlike in a small stored set.
		res := compute(op, a)
		slices.SortFunc(res, sortedset.Compare)
		writeItems(c.W, res, a.withScores)
	}
}

// storeCmd returns ZUNIONSTORE, ZINTERSTORE or ZDIFFSTORE destination
// numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...], answering the size
// of the result stored at destination (replacing any value and time to
// live), which an empty result deletes.
func storeCmd(op setOp) func(*command.Ctx) {
	return func(c *command.Ctx) {
		a, ok := parseAlgebra(c, 2, op, true, false)
		if !ok {
			return
		}
		res := sortedset.FromItems(compute(op, a))
		dest := string(c.Args[1])
		if res.Len() == 0 {
			if c.DB.Delete(dest) {
				c.Dirty++
				c.NotifyString(notify.Generic, "del", dest)
			}
		} else {
			c.DB.Set(dest, res)
			c.Dirty++
			notifyAsSent(c, dest)
		}
		c.W.Int(int64(res.Len()))
	}
}

// zintercard is ZINTERCARD numkeys key [key ...] [LIMIT limit]: the size
// of the intersection, counting no further than limit when it is not 0.
func zintercard(c *command.Ctx) {
	a, ok := parseAlgebra(c, 1, opInter, false, true)
	if !ok {
		return
	}
	srcs := slices.Clone(a.srcs)
	slices.SortStableFunc(srcs, func(x, y source) int { return x.size() - y.size() })
	var n int64
	if srcs[0].size() > 0 {
		srcs[0].each(func(m string, _ float64) {
			if a.limit > 0 && n >= a.limit {
				return
			}
			for _, o := range srcs[1:] {
				if _, in := o.score(m); !in {
					return
				}
			}
			n++
		})
	}
	c.W.Int(n)
}
