package zsetcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// rangeBy is what a range command's min and max address.
type rangeBy int

const (
	byAuto  rangeBy = iota // ZRANGE: BYSCORE or BYLEX may follow, else ranks
	byRank                 // positions
	byScore                // score bounds
	byLex                  // member bounds
)

// rangeDir is a range command's direction.
type rangeDir int

const (
	dirAuto    rangeDir = iota // ZRANGE: REV may follow, else forward
	dirForward                 // ascending
	dirReverse                 // descending; score and lex ranges read max first
)

// rangeQuery is a parsed range request.
type rangeQuery struct {
	by         rangeBy
	reverse    bool
	withScores bool
	// offset and limit are LIMIT's; limit -1 means none.
	offset, limit int64
	start, stop   int64 // by rank
	scoreMin      sortedset.ScoreBound
	scoreMax      sortedset.ScoreBound
	lexMin        sortedset.LexBound
	lexMax        sortedset.LexBound
}

// Error replies of option combinations ZRANGE refuses.
const (
	errLimitByRank = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errScoresByLex = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
)

// parseRange parses args = min max [options] as Redis 7's
// zrangeGenericCommand: first the options (a keyword the command does not
// take, or one given twice where Redis refuses it, is a syntax error; LIMIT
// needs two integers), then the combinations, then the range itself. by
// and dir are fixed by the command, or byAuto/dirAuto for ZRANGE and
// ZRANGESTORE; store refuses WITHSCORES, as ZRANGESTORE does. It writes
// the error and reports false on failure.
func parseRange(c *command.Ctx, args [][]byte, by rangeBy, dir rangeDir, store bool) (rangeQuery, bool) {
	q := rangeQuery{limit: -1}
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case !store && command.Eq(a, "withscores"):
			q.withScores = true
		case command.Eq(a, "limit") && len(args)-i-1 >= 2:
			off, lim, ok := c.IntArgs(args[i+1], args[i+2])
			if !ok {
				return q, false
			}
			q.offset, q.limit = off, lim
			i += 2
		case dir == dirAuto && command.Eq(a, "rev"):
			dir = dirReverse
		case by == byAuto && command.Eq(a, "bylex"):
			by = byLex
		case by == byAuto && command.Eq(a, "byscore"):
			by = byScore
		default:
			c.W.Error(command.ErrSyntax)
			return q, false
		}
	}
	if by == byAuto {
		by = byRank
	}
	q.by = by
	q.reverse = dir == dirReverse
	// Redis tests the count, not the offset: "LIMIT 5 -1" passes by rank.
	if q.limit != -1 && by == byRank {
		c.W.Error(errLimitByRank)
		return q, false
	}
	if q.withScores && by == byLex {
		c.W.Error(errScoresByLex)
		return q, false
	}
	min, max := args[0], args[1]
	if q.reverse && by != byRank {
		min, max = max, min
	}
	var ok bool
	switch by {
	case byRank:
		q.start, q.stop, ok = c.IntArgs(min, max)
	case byScore:
		q.scoreMin, q.scoreMax, ok = parseScoreRange(c, min, max)
	case byLex:
		q.lexMin, q.lexMax, ok = parseLexRange(c, min, max)
	}
	return q, ok
}

// rankSpan resolves Redis rank indexes (negative ones count from the end)
// against a set of n elements into an inclusive ascending-position span;
// ok is false when the span is empty.
func rankSpan(start, stop int64, n int) (int, int, bool) {
	ln := int64(n)
	if start < 0 {
		start += ln
	}
	if stop < 0 {
		stop += ln
	}
	start = max(start, 0)
	if start > stop || start >= ln {
		return 0, 0, false
	}
	stop = min(stop, ln-1)
	return int(start), int(stop), true
}

// run returns the elements q selects from s, in reply order.
func (q *rangeQuery) run(s *sortedset.Set) []sortedset.Item {
	switch q.by {
	case byScore:
		return s.RangeByScore(q.scoreMin, q.scoreMax, q.reverse, int(q.offset), int(q.limit))
	case byLex:
		return s.RangeByLex(q.lexMin, q.lexMax, q.reverse, int(q.offset), int(q.limit))
	}
	start, stop, ok := rankSpan(q.start, q.stop, s.Len())
	if !ok {
		return nil
	}
	return s.ByRank(start, stop, q.reverse)
}

// rangeCmd returns ZRANGE (byAuto, dirAuto) or one of its older forms:
// ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX, ZREVRANGE.
func rangeCmd(by rangeBy, dir rangeDir) func(*command.Ctx) {
	return func(c *command.Ctx) {
		q, ok := parseRange(c, c.Args[2:], by, dir, false)
		if !ok {
			return
		}
		s, ok := readSet(c, string(c.Args[1]))
		if !ok {
			return
		}
		if s == nil {
			c.W.Array(0)
			return
		}
		writeItems(c.W, q.run(s), q.withScores)
	}
}

// zrangestore is ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT
// offset count]: dst becomes the selected elements (losing any old value
// and time to live), or is deleted when none are selected. The result is a
// function of src's elements, so the command replays as sent.
func zrangestore(c *command.Ctx) {
	q, ok := parseRange(c, c.Args[3:], byAuto, dirAuto, true)
	if !ok {
		return
	}
	src, ok := readSet(c, string(c.Args[2]))
	if !ok {
		return
	}
	var items []sortedset.Item
	if src != nil {
		items = q.run(src)
	}
	dst := string(c.Args[1])
	if len(items) == 0 {
		if c.DB.Delete(dst) {
			c.Dirty++
			c.NotifyString(notify.Generic, "del", dst)
		}
		c.W.Int(0)
		return
	}
	c.DB.Set(dst, sortedset.FromItems(items))
	c.Dirty++
	notifyAsSent(c, dst)
	c.W.Int(int64(len(items)))
}
