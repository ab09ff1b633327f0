package sortedset

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"
)

// Redis keeps a sorted set as a listpack while it has at most
// zset-max-listpack-entries members, none longer than
// zset-max-listpack-value bytes; a Set does the same with its compact form,
// using Redis's default thresholds.
const (
	packedMaxLen    = 128
	packedMaxMember = 64
)

// packed is a Set's compact form: every element in one byte slice, in
// (score, member) order, with no per-element allocation and no index.
//
// Layout, for n elements:
//
//	[0]                 n
//	[1+10i : 1+10i+8]   element i's score, IEEE 754 bits, little-endian
//	[1+10i+8 : 1+10i+10] end of element i's member in the member area (uint16)
//	[1+10n :]           the member area: all members back to back
//
// The fixed-width headers give random access by position, so ranks and
// score bounds are binary searches; finding a member by name is a linear
// scan, as it is in a listpack, which at most packedMaxLen elements keeps
// cheap. The limits bound the member area to 8 KiB, well within uint16.
// An empty packed is nil.
type packed []byte

const packedHeader = 10 // bytes per element before the member area

func (p packed) len() int {
	if len(p) == 0 {
		return 0
	}
	return int(p[0])
}

func (p packed) score(i int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(p[1+packedHeader*i:]))
}

func (p packed) setScore(i int, score float64) {
	binary.LittleEndian.PutUint64(p[1+packedHeader*i:], math.Float64bits(score))
}

// end is where element i's member ends, relative to the member area.
func (p packed) end(i int) int {
	return int(binary.LittleEndian.Uint16(p[1+packedHeader*i+8:]))
}

func (p packed) setEnd(i, end int) {
	binary.LittleEndian.PutUint16(p[1+packedHeader*i+8:], uint16(end))
}

// start is where element i's member begins; i may be len() (the area's end).
func (p packed) start(i int) int {
	if i == 0 {
		return 0
	}
	return p.end(i - 1)
}

// member returns element i's member, aliasing p.
func (p packed) member(i int) []byte {
	base := 1 + packedHeader*p.len()
	return p[base+p.start(i) : base+p.end(i)]
}

// item returns element i with its member copied out, so it stays valid
// after p changes.
func (p packed) item(i int) Item {
	return Item{Member: string(p.member(i)), Score: p.score(i)}
}

// find returns member's position, or -1.
func (p packed) find(member string) int {
	n := p.len()
	base := 1 + packedHeader*n
	from := 0
	for i := range n {
		to := p.end(i)
		if to-from == len(member) && string(p[base+from:base+to]) == member {
			return i
		}
		from = to
	}
	return -1
}

// memberKey is what a member can be handed in as: a caller's string, or
// bytes of the set's own buffer.
type memberKey interface{ ~string | ~[]byte }

// before reports whether element i of p sorts strictly before (score,
// member). Comparing through string conversions in place copies nothing.
func before[M memberKey](p packed, i int, score float64, member M) bool {
	sc := p.score(i)
	return sc < score || (sc == score && string(p.member(i)) < string(member))
}

// search returns the position (score, member) would take in p: the number
// of elements sorting strictly before it.
func search[M memberKey](p packed, score float64, member M) int {
	return sort.Search(p.len(), func(i int) bool { return !before(p, i, score, member) })
}

// countScoreBelow is skiplist.countScoreBelow for the compact form.
func (p packed) countScoreBelow(v float64, orEqual bool) int {
	return sort.Search(p.len(), func(i int) bool {
		sc := p.score(i)
		return !(sc < v || (orEqual && sc == v))
	})
}

// countMemberBelow is skiplist.countMemberBelow for the compact form. It
// always bisects positions with sort.Search's probes: when members are in
// order along the set that finds the same boundary the skiplist's descent
// does, and when they are not it is exactly the skiplist's fallback, so both
// forms answer alike either way.
func (p packed) countMemberBelow(v string, orEqual bool) int {
	return sort.Search(p.len(), func(i int) bool {
		m := p.member(i)
		return !(string(m) < v || (orEqual && string(m) == v))
	})
}

// insert puts (member, score) at position i, which must be where it sorts;
// member must not be present.
func insert[M memberKey](p *packed, i int, member M, score float64) {
	n := p.len()
	old := len(*p)
	if old == 0 {
		old = 1 // the count byte
	}
	need := old + packedHeader + len(member)
	if cap(*p) < need {
		// Grow to the allocator's size class for exactly need bytes rather
		// than doubling: a small set is written once far more often than it
		// grows, and the class's own rounding leaves room for the next few.
		grown := slices.Grow([]byte(nil), need)
		grown = append(grown, *p...)
		*p = grown
	}
	b := (*p)[:need]
	ins := 0
	if n > 0 {
		ins = packed(b).start(i)
	}
	oldBase := 1 + packedHeader*n
	newBase := oldBase + packedHeader
	area := old - oldBase
	// Members first, from the back, so nothing is overwritten before it
	// has moved; the headers then grow into the area's old first bytes.
	copy(b[newBase+ins+len(member):], b[oldBase+ins:oldBase+area])
	copy(b[newBase+ins:], member)
	copy(b[newBase:], b[oldBase:oldBase+ins])
	copy(b[1+packedHeader*(i+1):newBase], b[1+packedHeader*i:oldBase])
	b[0] = byte(n + 1)
	q := packed(b)
	for j := i + 1; j <= n; j++ {
		q.setEnd(j, q.end(j)+len(member))
	}
	q.setScore(i, score)
	q.setEnd(i, ins+len(member))
	*p = q
}

// deleteRange removes the elements at positions [lo, hi), 0 <= lo < hi <= len().
func (p *packed) deleteRange(lo, hi int) {
	b := *p
	n, k := b.len(), hi-lo
	if k == n {
		*p = nil
		return
	}
	from, to := b.start(lo), b.start(hi)
	gone := to - from
	oldBase := 1 + packedHeader*n
	newBase := oldBase - packedHeader*k
	area := len(b) - oldBase
	// Headers first: they shrink into space no member needs any more.
	copy(b[1+packedHeader*lo:], b[1+packedHeader*hi:oldBase])
	b[0] = byte(n - k)
	for j := lo; j < n-k; j++ {
		b.setEnd(j, b.end(j)-gone)
	}
	copy(b[newBase:], b[oldBase:oldBase+from])
	copy(b[newBase+from:], b[oldBase+to:oldBase+area])
	b = b[:len(b)-packedHeader*k-gone]
	if len(b) <= cap(b)/2 {
		// Give back what a shrunken set no longer needs, as listpacks do.
		b = append(slices.Grow([]byte(nil), len(b)), b...)
	}
	*p = b
}

// move gives element i a new score, shifting it to where it now sorts.
func (p *packed) move(i int, score float64) {
	b := *p
	n := b.len()
	m := b.member(i)
	// Still between the same neighbours: the common small ZINCRBY step.
	if (i == 0 || before(b, i-1, score, m)) && (i == n-1 || !before(b, i+1, score, m)) {
		b.setScore(i, score)
		return
	}
	// The member's bytes move with the rest when it is taken out.
	var buf [packedMaxMember]byte
	member := buf[:copy(buf[:], m)]
	p.deleteRange(i, i+1)
	insert(p, search(*p, score, member), member, score)
}

// each is Set.Each on the compact form.
func (p packed) each(yield func(Item) bool) {
	for i := range p.len() {
		if !yield(p.item(i)) {
			return
		}
	}
}

// clone returns an independent copy using no more capacity than it needs.
func (p packed) clone() packed {
	if len(p) == 0 {
		return nil
	}
	return append(slices.Grow([]byte(nil), len(p)), p...)
}
