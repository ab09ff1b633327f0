package sortedset

import "errors"

// Errors returned by the bound parsers, worded as the Redis replies.
var (
	ErrInvalidScoreBound = errors.New("ERR min or max is not a float")
	ErrInvalidLexBound   = errors.New("ERR min or max not valid string range item")
)

// ScoreBound is one end of a score interval. Use math.Inf for the open ends;
// Value must not be NaN.
type ScoreBound struct {
	Value     float64
	Exclusive bool
}

// ParseScoreBound parses a ZRANGEBYSCORE-style bound: "1.5", "(1.5", "-inf",
// "+inf", "inf", "(inf", and anything else C strtod accepts in full. Like
// Redis (which calls strtod directly here) it is more lenient than
// ParseScore: leading whitespace is skipped, out-of-range magnitudes become
// ±inf or 0, and an empty number ("" or "(") reads as 0.
func ParseScoreBound(s string) (ScoreBound, error) {
	var b ScoreBound
	if len(s) > 0 && s[0] == '(' {
		b.Exclusive = true
		s = s[1:]
	}
	if s == "" {
		// strtod converts nothing, and Redis only checks that it stopped at
		// the terminating NUL, which it did.
		return b, nil
	}
	f, _, ok := ParseCFloat(trimCSpace(s))
	if !ok || f != f {
		return ScoreBound{}, ErrInvalidScoreBound
	}
	b.Value = f
	return b, nil
}

// LexBound is one end of a member interval. Inf is -1 for "-" (below every
// member) and +1 for "+" (above every member), in which case Value and
// Exclusive are ignored; otherwise Inf is 0 and Value is compared bytewise.
type LexBound struct {
	Value     string
	Exclusive bool
	Inf       int
}

// ParseLexBound parses a ZRANGEBYLEX-style bound: "[a" (inclusive), "(a"
// (exclusive), "-" or "+".
func ParseLexBound(s string) (LexBound, error) {
	switch {
	case s == "-":
		return LexBound{Inf: -1}, nil
	case s == "+":
		return LexBound{Inf: 1}, nil
	case len(s) > 0 && s[0] == '[':
		return LexBound{Value: s[1:]}, nil
	case len(s) > 0 && s[0] == '(':
		return LexBound{Value: s[1:], Exclusive: true}, nil
	}
	return LexBound{}, ErrInvalidLexBound
}

// All range operations below reduce an interval to the half-open run of
// ascending positions [lo, hi) it covers, where lo counts the elements below
// min and hi the elements up to max. An empty or inverted interval (min > max,
// or min == max with either end exclusive) simply yields hi <= lo, so it
// needs no special casing, and counts come straight from two O(log n) descents.
type run struct {
	lo, hi int
	// The skiplist's descents also yield the element just before lo (the
	// head sentinel when lo is 0) and the one at hi-1, letting an unskipped
	// walk start without a third descent. Either is nil when unknown, and
	// always in the compact form, which reaches any position directly.
	beforeLo, last *node
}

func (s *Set) scoreRun(min, max ScoreBound) run {
	if s.big == nil {
		return run{lo: s.small.countScoreBelow(min.Value, min.Exclusive), hi: s.small.countScoreBelow(max.Value, !max.Exclusive)}
	}
	lo, beforeLo := s.big.countScoreBelow(min.Value, min.Exclusive)
	hi, last := s.big.countScoreBelow(max.Value, !max.Exclusive)
	return run{lo: lo, hi: hi, beforeLo: beforeLo, last: last}
}

func (s *Set) lexRun(min, max LexBound) run {
	if s.mixedScores() {
		return s.lexScan(min, max, false)
	}
	if s.big == nil {
		return run{lo: s.small.lexBelow(min, min.Exclusive), hi: s.small.lexBelow(max, !max.Exclusive)}
	}
	lo, beforeLo := s.big.lexBelow(min, min.Exclusive)
	hi, last := s.big.lexBelow(max, !max.Exclusive)
	return run{lo: lo, hi: hi, beforeLo: beforeLo, last: last}
}

// lexBelow counts the elements below b's value, or up to and including it
// when orEqual is set, returning the last of them as countMemberBelow does.
func (s *skiplist) lexBelow(b LexBound, orEqual bool) (int, *node) {
	switch {
	case b.Inf < 0:
		return 0, s.head
	case b.Inf > 0:
		return s.length, s.tail
	}
	return s.countMemberBelow(b.Value, orEqual)
}

// lexBelow is skiplist.lexBelow for the compact form.
func (p packed) lexBelow(b LexBound, orEqual bool) int {
	switch {
	case b.Inf < 0:
		return 0
	case b.Inf > 0:
		return p.len()
	}
	return p.countMemberBelow(b.Value, orEqual)
}

// size is the number of elements in the run, 0 when inverted.
func (r run) size() int {
	if r.hi < r.lo {
		return 0
	}
	return r.hi - r.lo
}

// window applies a LIMIT offset/count to the run, walking up from lo, or
// down from hi-1 when reverse is set.
func (s *Set) window(r run, reverse bool, offset, count int) []Item {
	n := r.size()
	if n <= 0 || offset < 0 || offset >= n || count == 0 {
		return nil
	}
	n -= offset
	if count > 0 {
		n = min(n, count)
	}
	switch {
	case reverse && offset == 0 && r.last != nil:
		return s.big.collectFrom(r.last, n, true)
	case reverse:
		return s.collect(r.hi-1-offset, n, true)
	case offset == 0 && r.beforeLo != nil:
		return s.big.collectFrom(r.beforeLo.lv(0).forward, n, false)
	default:
		return s.collect(r.lo+offset, n, false)
	}
}

// RangeByScore returns the elements with min <= score <= max (each end
// exclusive if so marked). Bounds are always given as (min, max); reverse
// only changes the direction, so ZREVRANGEBYSCORE key max min becomes
// RangeByScore(min, max, true, ...) and yields highest scores first.
//
// offset and count are LIMIT: skip offset elements in the chosen direction,
// then return at most count of them (all when count < 0). A negative offset
// yields nil, matching Redis. The result is nil when nothing matches.
func (s *Set) RangeByScore(min, max ScoreBound, reverse bool, offset, count int) []Item {
	return s.window(s.scoreRun(min, max), reverse, offset, count)
}

// RangeByLex returns the elements with min <= member <= max, bytewise (each
// end exclusive if so marked), with the same (min, max)-plus-reverse and
// offset/count conventions as RangeByScore.
//
// As in Redis the result is only meaningful when all scores are equal.
// When they are not, the run is found as Redis finds it in a small sorted
// set (lexScan), whatever the set's size: Redis's large form answers by
// its skiplist's random shape, while this depends only on the elements,
// so replicas agree. Count and remove by lex use the forward run.
func (s *Set) RangeByLex(min, max LexBound, reverse bool, offset, count int) []Item {
	if s.mixedScores() {
		return s.lexLimit(min, max, reverse, offset, count)
	}
	return s.window(s.lexRun(min, max), reverse, offset, count)
}

// CountByScore returns how many elements RangeByScore(min, max, ...) covers,
// in O(log n).
func (s *Set) CountByScore(min, max ScoreBound) int {
	return s.scoreRun(min, max).size()
}

// CountByLex returns how many elements RangeByLex(min, max, ...) covers, in
// O(log n) when all scores are equal.
func (s *Set) CountByLex(min, max LexBound) int {
	return s.lexRun(min, max).size()
}

// RemoveRangeByScore deletes the elements RangeByScore(min, max, ...) covers
// and returns how many were removed.
func (s *Set) RemoveRangeByScore(min, max ScoreBound) int {
	r := s.scoreRun(min, max)
	return s.deleteRange(r.lo, r.hi, nil)
}

// RemoveRangeByLex deletes the elements RangeByLex(min, max, ...) covers and
// returns how many were removed.
func (s *Set) RemoveRangeByLex(min, max LexBound) int {
	r := s.lexRun(min, max)
	return s.deleteRange(r.lo, r.hi, nil)
}
