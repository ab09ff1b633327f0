package zsetcmd

import (
	"unsafe"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// Error replies of ZADD and ZINCRBY in Redis 7's words.
const (
	errXXNX      = "ERR XX and NX options at the same time are not compatible"
	errGTLTNX    = "ERR GT, LT, and/or NX options at the same time are not compatible"
	errIncrPairs = "ERR INCR option supports a single increment-element pair"
	errNaN       = "ERR resulting score is not a number (NaN)"
)

// addOptions are ZADD's flags.
type addOptions struct {
	nx, xx, gt, lt, ch, incr bool
}

// parseAddOptions consumes ZADD's flags from args[2:] as Redis does: every
// leading argument that names a flag is one, the first that does not is
// the first score. It returns the index of that score.
func parseAddOptions(args [][]byte, o *addOptions) int {
	return 2 + command.ParseFlags(args[2:], []string{"nx", "xx", "gt", "lt", "ch", "incr"},
		&o.nx, &o.xx, &o.gt, &o.lt, &o.ch, &o.incr)
}

func zadd(c *command.Ctx) { addGeneric(c, false) }

// zincrby is ZINCRBY key increment member. Redis runs it through ZADD's
// code with INCR set, flag parsing included, which is why "ZINCRBY key nx
// member" is a syntax error rather than an invalid float; that is kept.
func zincrby(c *command.Ctx) { addGeneric(c, true) }

// addGeneric is ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [...],
// and ZINCRBY when incr is set. Every argument is validated before the
// key is looked at, so the command applies fully or not at all.
func addGeneric(c *command.Ctx, incr bool) {
	o := addOptions{incr: incr}
	first := parseAddOptions(c.Args, &o)
	rest := c.Args[first:]
	if len(rest) == 0 || len(rest)%2 != 0 {
		c.W.Error(command.ErrSyntax)
		return
	}
	pairs := len(rest) / 2
	switch {
	case o.nx && o.xx:
		c.W.Error(errXXNX)
		return
	case (o.gt || o.lt) && o.nx, o.gt && o.lt:
		c.W.Error(errGTLTNX)
		return
	case o.incr && pairs > 1:
		c.W.Error(errIncrPairs)
		return
	}
	// The scores of a few pairs stay on the stack.
	var few [8]float64
	scores := few[:]
	if pairs > len(few) {
		scores = make([]float64, pairs)
	}
	scores = scores[:pairs]
	for i := range scores {
		f, ok := parseScore(rest[2*i])
		if !ok {
			c.W.Error(command.ErrNotFloat)
			return
		}
		scores[i] = f
	}

	s, key, ok := command.LookupWriteKey[*sortedset.Set](c)
	if !ok {
		return
	}
	created := false
	if s == nil && !o.xx {
		s = sortedset.New()
		created = true
	}
	var added, updated, processed int
	var last float64
	if s != nil {
		for i, score := range scores {
			res, newScore := addOne(s, rest[2*i+1], score, o)
			if res == addNaN {
				// Only INCR of an existing member can get here, and INCR
				// takes a single pair, so nothing was changed before.
				c.W.Error(errNaN)
				return
			}
			switch res {
			case addAdded:
				added++
			case addUpdated:
				updated++
			}
			if res != addNop {
				processed++
				last = newScore
			}
		}
	}
	switch {
	case created:
		// Never empty: without XX the first pair is always added.
		c.DB.Set(key, s)
		c.Dirty += added + updated
	case s != nil:
		c.Changed(key, s.Len(), added+updated)
	}
	if added+updated > 0 {
		event := "zadd"
		if o.incr {
			event = "zincr"
		}
		c.NotifyString(notify.Zset, event, key)
	}
	switch {
	case !o.incr:
		n := added
		if o.ch {
			n += updated
		}
		c.W.Int(int64(n))
	case processed > 0:
		writeScore(c.W, last)
	default:
		c.W.Null()
	}
}

// addResult is what ZADD did with one element.
type addResult int

const (
	addNop     addResult = iota // skipped by NX, XX, GT or LT
	addSame                     // processed, score unchanged
	addUpdated                  // existing member moved to a new score
	addAdded                    // new member
	addNaN                      // INCR produced NaN; nothing changed
)

// addOne applies one score/member pair under o, as Redis's zsetAdd, and
// returns what happened with the member's resulting score. The member's
// bytes become a string of their own only when the set changes: a ZADD
// that finds the member at its score allocates nothing.
func addOne(s *sortedset.Set, arg []byte, score float64, o addOptions) (addResult, float64) {
	cur, exists := s.Score(unsafe.String(unsafe.SliceData(arg), len(arg)))
	if !exists {
		if o.xx {
			return addNop, 0
		}
		s.Add(string(arg), score)
		return addAdded, score
	}
	if o.nx {
		return addNop, 0
	}
	if o.incr {
		score += cur
		if score != score {
			return addNaN, 0
		}
	}
	if (o.lt && score >= cur) || (o.gt && score <= cur) {
		return addNop, 0
	}
	if score == cur {
		// Redis replies the computed score, which differs from the stored
		// one only in the sign of a zero.
		return addSame, score
	}
	s.Add(string(arg), score)
	return addUpdated, score
}

// zrem is ZREM key member [member ...].
func zrem(c *command.Ctx) {
	removeFrom(c, func(s *sortedset.Set) int {
		n := 0
		for _, m := range c.Args[2:] {
			if s.Remove(string(m)) {
				n++
				if s.Len() == 0 {
					break
				}
			}
		}
		return n
	})
}
