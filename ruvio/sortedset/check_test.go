package sortedset

import (
	"fmt"
	"math"
	"testing"
)

// check verifies every structural invariant of whichever form s is in.
func (s *Set) check() error {
	if s.big != nil {
		if s.small != nil {
			return fmt.Errorf("a skiplist set still holds a compact buffer of %d bytes", len(s.small))
		}
		return s.big.check()
	}
	return s.small.check()
}

// check verifies the compact form's layout: the count, the member ends,
// the buffer's length, the limits, order and uniqueness.
func (p packed) check() error {
	if len(p) == 0 {
		if p != nil {
			return fmt.Errorf("empty compact form is not nil")
		}
		return nil
	}
	n := p.len()
	if n == 0 || n > packedMaxLen {
		return fmt.Errorf("compact form holds %d elements", n)
	}
	if len(p) < packedPrefix {
		return fmt.Errorf("compact form of %d bytes has no widths", len(p))
	}
	sw, ew := p.widths()
	if (sw != 1 && sw != 2 && sw != 4 && sw != 8) || (ew != 1 && ew != 2) {
		return fmt.Errorf("widths %d and %d", sw, ew)
	}
	if len(p) < p.base() {
		return fmt.Errorf("%d bytes cannot hold %d headers", len(p), n)
	}
	seen := make(map[string]bool, n)
	prevEnd := 0
	for i := range n {
		end := p.end(i)
		switch {
		case end < prevEnd:
			return fmt.Errorf("element %d ends at %d, before %d", i, end, prevEnd)
		case end-prevEnd > packedMaxMember:
			return fmt.Errorf("element %d is %d bytes long", i, end-prevEnd)
		case p.base()+end > len(p):
			return fmt.Errorf("element %d ends past the buffer", i)
		}
		prevEnd = end
		m, sc := string(p.member(i)), p.score(i)
		switch {
		case sc != sc:
			return fmt.Errorf("NaN stored for %q", m)
		case scoreWidth(sc) > sw:
			return fmt.Errorf("score %v of %q stored in %d bytes", sc, m, sw)
		case seen[m]:
			return fmt.Errorf("%q stored twice", m)
		case i > 0 && !before(p, i-1, sc, m):
			return fmt.Errorf("%q (%v) is not after %q (%v)", m, sc, p.member(i-1), p.score(i-1))
		}
		seen[m] = true
	}
	if want := p.base() + prevEnd; len(p) != want {
		return fmt.Errorf("compact form is %d bytes, its elements need %d", len(p), want)
	}
	return nil
}

// check verifies every structural invariant of the skiplist: level-0 order
// and back links, the member index, tail, length, the disorder counter, the
// level in use, and every span at every level.
func (s *skiplist) check() error {
	pos := make(map[*node]int, s.length)
	var prev *node
	disorder, tallest, n := 0, 1, 0
	for x := s.head.lv(0).forward; x != nil; x = x.lv(0).forward {
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
		case x.height < 1 || x.height > maxLevel:
			return fmt.Errorf("node %q has height %d", x.member, x.height)
		}
		disorder += outOfOrder(prev, x)
		tallest = max(tallest, x.height)
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
			l := x.lv(i)
			if l.forward == nil {
				if p+l.span != n {
					return fmt.Errorf("level %d: final span %d from position %d, length %d", i, l.span, p, n)
				}
				break
			}
			if l.forward.height <= i {
				return fmt.Errorf("level %d links to a node of height %d", i, l.forward.height)
			}
			if got := pos[l.forward] - p; got != l.span {
				return fmt.Errorf("level %d: span %d from position %d, want %d", i, l.span, p, got)
			}
			x, p = l.forward, pos[l.forward]
			linked++
		}
		tall := 0
		for nd := range pos {
			if nd.height > i {
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
