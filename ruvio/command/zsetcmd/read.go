package zsetcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// zscore is ZSCORE key member.
func zscore(c *command.Ctx) {
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	if f, ok := s.Score(string(c.Args[2])); ok {
		writeScore(c.W, f)
	} else {
		c.W.Null()
	}
}

// zmscore is ZMSCORE key member [member ...]; a missing key reads as an
// empty set.
func zmscore(c *command.Ctx) {
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	members := c.Args[2:]
	c.W.Array(len(members))
	for _, m := range members {
		var f float64
		found := false
		if s != nil {
			f, found = s.Score(string(m))
		}
		if found {
			writeScore(c.W, f)
		} else {
			c.W.Null()
		}
	}
}

// zcard is ZCARD key.
func zcard(c *command.Ctx) {
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(s.Len()))
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
	lo, hi, ok := parseScoreRange(c, c.Args[2], c.Args[3])
	if !ok {
		return
	}
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(s.CountByScore(lo, hi)))
}

// zlexcount is ZLEXCOUNT key min max.
func zlexcount(c *command.Ctx) {
	lo, hi, ok := parseLexRange(c, c.Args[2], c.Args[3])
	if !ok {
		return
	}
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(s.CountByLex(lo, hi)))
}

// rankCmd returns ZRANK (reverse false) or ZREVRANK key member, in their
// Redis 7.0 form without WITHSCORE.
func rankCmd(reverse bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		s, ok := lookup(c, string(c.Args[1]), true)
		if !ok {
			return
		}
		if s == nil {
			c.W.Null()
			return
		}
		if r, ok := s.Rank(string(c.Args[2]), reverse); ok {
			c.W.Int(int64(r))
		} else {
			c.W.Null()
		}
	}
}
