package zsetcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// zscore is ZSCORE key member.
func zscore(c *command.Ctx) {
	s, ok := readSet(c, string(c.Args[1]))
	if !ok {
		return
	}
	if f, found := scoreOf(s, c.Args[2]); found {
		writeScore(c.W, f)
	} else {
		c.W.Null()
	}
}

// scoreOf returns member's score in s, which may be nil (a missing key).
func scoreOf(s *sortedset.Set, member []byte) (float64, bool) {
	if s == nil {
		return 0, false
	}
	return s.Score(string(member))
}

// zmscore is ZMSCORE key member [member ...]; a missing key reads as an
// empty set.
func zmscore(c *command.Ctx) {
	s, ok := readSet(c, string(c.Args[1]))
	if !ok {
		return
	}
	members := c.Args[2:]
	c.W.Array(len(members))
	for _, m := range members {
		if f, found := scoreOf(s, m); found {
			writeScore(c.W, f)
		} else {
			c.W.Null()
		}
	}
}

// zcard is ZCARD key.
func zcard(c *command.Ctx) {
	countIn(c, (*sortedset.Set).Len)
}

// parseScoreRange parses a min/max pair of score bounds, writing Redis's
// error when either is invalid.
func parseScoreRange(c *command.Ctx, min, max []byte) (lo, hi sortedset.ScoreBound, ok bool) {
	lo, err1 := sortedset.ParseScoreBound(string(min))
	hi, err2 := sortedset.ParseScoreBound(string(max))
	if err1 != nil || err2 != nil {
		c.W.Error(sortedset.ErrInvalidScoreBound.Error())
		return lo, hi, false
	}
	return lo, hi, true
}

// parseLexRange parses a min/max pair of lex bounds, writing Redis's error
// when either is invalid.
func parseLexRange(c *command.Ctx, min, max []byte) (lo, hi sortedset.LexBound, ok bool) {
	lo, err1 := sortedset.ParseLexBound(string(min))
	hi, err2 := sortedset.ParseLexBound(string(max))
	if err1 != nil || err2 != nil {
		c.W.Error(sortedset.ErrInvalidLexBound.Error())
		return lo, hi, false
	}
	return lo, hi, true
}

// zcount is ZCOUNT key min max. The range is checked before the key, as
// in Redis.
func zcount(c *command.Ctx) {
	if lo, hi, ok := parseScoreRange(c, c.Args[2], c.Args[3]); ok {
		countIn(c, func(s *sortedset.Set) int { return s.CountByScore(lo, hi) })
	}
}

// zlexcount is ZLEXCOUNT key min max.
func zlexcount(c *command.Ctx) {
	if lo, hi, ok := parseLexRange(c, c.Args[2], c.Args[3]); ok {
		countIn(c, func(s *sortedset.Set) int { return s.CountByLex(lo, hi) })
	}
}

// countIn answers count of the key's sorted set, 0 for a missing key.
func countIn(c *command.Ctx, count func(*sortedset.Set) int) {
	s, ok := readSet(c, string(c.Args[1]))
	switch {
	case !ok:
	case s == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(count(s)))
	}
}

// rankCmd returns ZRANK (reverse false) or ZREVRANK key member, in their
// Redis 7.0 form without WITHSCORE.
func rankCmd(reverse bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		s, ok := readSet(c, string(c.Args[1]))
		switch {
		case !ok:
		case s == nil:
			c.W.Null()
		default:
			if r, found := s.Rank(string(c.Args[2]), reverse); found {
				c.W.Int(int64(r))
			} else {
				c.W.Null()
			}
		}
	}
}
