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
		return scanLex(p.len(), func(i int) string { return packedMember(p, i) }, min, max, reverse)
	}
	members := s.big.members()
	return scanLex(len(members), func(i int) string { return members[i] }, min, max, reverse)
}

// packedMember is the compact form's i-th member, without a copy.
func packedMember(p packed, i int) string {
	b := p.member(i)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// members lists the skiplist's members in order.
func (s *skiplist) members() []string {
	members := make([]string, 0, s.length)
	for x := s.first(); x != nil; x = x.lv(0).forward {
		members = append(members, x.member)
	}
	return members
}

// lexLimit is RangeByLex over elements of different scores, with LIMIT
// applied as Redis applies it: from the run's first element (its last,
// reverse) it skips offset elements whatever they are, then takes up to
// count (all when count < 0) while each is still at most max (at least
// min, reverse). A skip can therefore land past elements out of range on
// one in range again, which Redis returns.
func (s *Set) lexLimit(min, max LexBound, reverse bool, offset, count int) []Item {
	var start, k int
	if s.big == nil {
		p := s.small
		start, k = limitLex(p.len(), func(i int) string { return packedMember(p, i) }, min, max, reverse, offset, count)
	} else {
		members := s.big.members()
		start, k = limitLex(len(members), func(i int) string { return members[i] }, min, max, reverse, offset, count)
	}
	if k == 0 {
		return nil
	}
	return s.collect(start, k, reverse)
}

// limitLex is lexLimit over n members in ascending (score, member) order:
// the index to collect from and how many.
func limitLex(n int, member func(int) string, min, max LexBound, reverse bool, offset, count int) (start, k int) {
	r := scanLex(n, member, min, max, reverse)
	if r.size() == 0 || offset < 0 || count == 0 {
		return 0, 0
	}
	start, step := r.lo+offset, 1
	if reverse {
		start, step = r.hi-1-offset, -1
	}
	for i := start; i >= 0 && i < n && (count < 0 || k < count); i += step {
		if (!reverse && !lexLteMax(member(i), max)) || (reverse && !lexGteMin(member(i), min)) {
			break
		}
		k++
	}
	return start, k
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
