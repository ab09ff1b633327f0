package sortedset

import "unsafe"

// Lex ranges over elements of different scores. Members are then not in
// bytewise order, and Redis's answer is what its search finds, which
// this file reproduces.

// mixedScores reports whether the elements' scores differ.
func (s *Set) mixedScores() bool {
	if s.big != nil {
		return s.big.length > 1 && s.big.first().score != s.big.tail.score
	}
	n := s.small.len()
	return n > 1 && s.small.score(0) != s.small.score(n-1)
}

// lexScan is the run of a lex range over elements of different scores,
// found as Redis finds it in a small sorted set (its listpack form), so
// that the answers are Redis's: nothing unless the last element is at
// least min and the first at most max; then, walking up from the first
// element at least min, the elements up to the first above max (or,
// reverse, walking down from the last element at most max, those down to
// the first below min). It reads every element; the compact form's
// without allocating.
func (s *Set) lexScan(min, max LexBound, reverse bool) run {
	if s.big == nil {
		p := s.small
		return scanLex(p.len(), func(i int) string {
			b := p.member(i)
			return unsafe.String(unsafe.SliceData(b), len(b))
		}, min, max, reverse)
	}
	members := make([]string, 0, s.big.length)
	for x := s.big.first(); x != nil; x = x.lv(0).forward {
		members = append(members, x.member)
	}
	return scanLex(len(members), func(i int) string { return members[i] }, min, max, reverse)
}

// scanLex is lexScan over n members in ascending (score, member) order.
func scanLex(n int, member func(int) string, min, max LexBound, reverse bool) run {
	if n == 0 || emptyLexRange(min, max) || !lexGteMin(member(n-1), min) || !lexLteMax(member(0), max) {
		return run{}
	}
	if reverse {
		hi := n
		for hi > 0 && !lexLteMax(member(hi-1), max) {
			hi--
		}
		if hi == 0 || !lexGteMin(member(hi-1), min) {
			return run{}
		}
		lo := hi - 1
		for lo > 0 && lexGteMin(member(lo-1), min) {
			lo--
		}
		return run{lo: lo, hi: hi}
	}
	lo := 0
	for lo < n && !lexGteMin(member(lo), min) {
		lo++
	}
	if lo == n || !lexLteMax(member(lo), max) {
		return run{}
	}
	hi := lo + 1
	for hi < n && lexLteMax(member(hi), max) {
		hi++
	}
	return run{lo: lo, hi: hi}
}

// emptyLexRange reports whether min..max holds no string at all.
func emptyLexRange(min, max LexBound) bool {
	switch {
	case min.Inf > 0 || max.Inf < 0:
		return true
	case min.Inf < 0 || max.Inf > 0:
		return false
	}
	return min.Value > max.Value || (min.Value == max.Value && (min.Exclusive || max.Exclusive))
}

func lexGteMin(m string, min LexBound) bool {
	switch {
	case min.Inf != 0:
		return min.Inf < 0
	case min.Exclusive:
		return m > min.Value
	}
	return m >= min.Value
}

func lexLteMax(m string, max LexBound) bool {
	switch {
	case max.Inf != 0:
		return max.Inf > 0
	case max.Exclusive:
		return m < max.Value
	}
	return m <= max.Value
}
