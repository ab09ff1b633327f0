package sortedset

import (
	"fmt"
	"math"
	"testing"
)

// check verifies every structural invariant of s: level-0 order and back
// links, the member index, tail, length, the disorder counter, the level in
// use, and every span at every level.
func (s *Set) check() error {
	if s.head == nil {
		if s.length != 0 || len(s.dict) != 0 || s.tail != nil {
			return fmt.Errorf("uninitialised set has length %d, %d indexed", s.length, len(s.dict))
		}
		return nil
	}
	pos := make(map[*node]int, s.length)
	var prev *node
	disorder, tallest, n := 0, 1, 0
	for x := s.head.levels[0].forward; x != nil; x = x.levels[0].forward {
		n++
		pos[x] = n
		switch {
		case x.score != x.score:
			return fmt.Errorf("NaN stored for %q", x.member)
		case x.backward != prev:
			return fmt.Errorf("bad backward link at %q", x.member)
		case prev != nil && !prev.before(x.score, x.member):
			return fmt.Errorf("%q (%v) is not before %q (%v)", prev.member, prev.score, x.member, x.score)
		case s.dict[x.member] != x:
			return fmt.Errorf("index does not point at node %q", x.member)
		case len(x.levels) < 1 || len(x.levels) > maxLevel:
			return fmt.Errorf("node %q has height %d", x.member, len(x.levels))
		}
		disorder += outOfOrder(prev, x)
		tallest = max(tallest, len(x.levels))
		prev = x
	}
	switch {
	case n != s.length:
		return fmt.Errorf("walked %d nodes, length says %d", n, s.length)
	case len(s.dict) != n:
		return fmt.Errorf("index holds %d members, list %d", len(s.dict), n)
	case s.tail != prev:
		return fmt.Errorf("stale tail")
	case disorder != s.disorder:
		return fmt.Errorf("disorder is %d, counter says %d", disorder, s.disorder)
	case tallest != s.level:
		return fmt.Errorf("tallest node is %d, level says %d", tallest, s.level)
	}
	for i := range s.level {
		x, p, linked := s.head, 0, 0
		for {
			l := x.levels[i]
			if l.forward == nil {
				if p+l.span != n {
					return fmt.Errorf("level %d: final span %d from position %d, length %d", i, l.span, p, n)
				}
				break
			}
			if len(l.forward.levels) <= i {
				return fmt.Errorf("level %d links to a node of height %d", i, len(l.forward.levels))
			}
			if got := pos[l.forward] - p; got != l.span {
				return fmt.Errorf("level %d: span %d from position %d, want %d", i, l.span, p, got)
			}
			x, p = l.forward, pos[l.forward]
			linked++
		}
		tall := 0
		for nd := range pos {
			if len(nd.levels) > i {
				tall++
			}
		}
		if linked != tall {
			return fmt.Errorf("level %d links %d nodes, %d are that tall", i, linked, tall)
		}
	}
	return nil
}

func mustCheck(t testing.TB, s *Set) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
}

// sameItems compares item lists exactly, telling -0 from 0.
func sameItems(a, b []Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Member != b[i].Member || math.Float64bits(a[i].Score) != math.Float64bits(b[i].Score) {
			return false
		}
	}
	return true
}
