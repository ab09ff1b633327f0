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
// Layout, for n elements with scores sw bytes wide and member ends ew bytes
// wide (each element's header is h = sw+ew bytes):
//
//	[0]                     n
//	[1]                     sw in the low four bits, ew in the high four
//	[2+h*i : 2+h*i+sw]      element i's score
//	[2+h*i+sw : 2+h*(i+1)]  where element i's member ends in the member area
//	[2+h*n :]               the member area: all members back to back
//
// A score is stored as a little-endian int8, int16 or int32 when every
// score in the set is an integer that narrow (what ZADD of counters,
// ranks and small ids gives), and as float64 bits otherwise; member ends
// take one byte while the member area fits in 255 bytes, two after. A
// value too wide for the current widths re-encodes the buffer once with
// wider ones; they only narrow again when the set empties, so a set pays
// that cost a handful of times at most.
//
// The fixed-width headers give random access by position, so ranks and
// score bounds are binary searches; finding a member by name is a linear
// scan, as it is in a listpack, which at most packedMaxLen elements keeps
// cheap. The limits bound the member area to 8 KiB, well within uint16.
// An empty packed is nil.
type packed []byte

// packedPrefix is the count byte and the widths byte.
const packedPrefix = 2

func (p packed) len() int {
	if len(p) == 0 {
		return 0
	}
	return int(p[0])
}

// widths returns the score and member-end widths in bytes; zero for nil.
func (p packed) widths() (sw, ew int) {
	if len(p) == 0 {
		return 0, 0
	}
	return int(p[1] & 0x0f), int(p[1] >> 4)
}

// header is where element i's header starts.
func (p packed) header(i int) int {
	sw, ew := p.widths()
	return packedPrefix + (sw+ew)*i
}

// base is where the member area starts.
func (p packed) base() int { return p.header(p.len()) }

func (p packed) score(i int) float64 {
	b := p[p.header(i):]
	switch p[1] & 0x0f {
	case 1:
		return float64(int8(b[0]))
	case 2:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// setScore stores score, which must fit the score width, for element i.
// -0 is stored as 0, as Redis's listpack stores it (ZADD z -0 a, then
// ZSCORE z a, answers 0); a skiplist keeps the sign.
func (p packed) setScore(i int, score float64) {
	if score == 0 {
		score = 0
	}
	b := p[p.header(i):]
	switch p[1] & 0x0f {
	case 1:
		b[0] = byte(int8(score))
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(int16(score)))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(int32(score)))
	default:
		binary.LittleEndian.PutUint64(b, math.Float64bits(score))
	}
}

// scoreWidth is the narrowest score width that holds score exactly (-0
// is stored as 0: setScore).
func scoreWidth(score float64) int {
	switch {
	case score != math.Trunc(score):
		return 8
	case score >= math.MinInt8 && score <= math.MaxInt8:
		return 1
	case score >= math.MinInt16 && score <= math.MaxInt16:
		return 2
	case score >= math.MinInt32 && score <= math.MaxInt32:
		return 4
	}
	return 8
}

// endWidth is the member-end width a member area of size bytes needs.
func endWidth(size int) int {
	if size <= math.MaxUint8 {
		return 1
	}
	return 2
}

// end is where element i's member ends, relative to the member area.
func (p packed) end(i int) int {
	sw, ew := p.widths()
	b := p[packedPrefix+(sw+ew)*i+sw:]
	if ew == 1 {
		return int(b[0])
	}
	return int(binary.LittleEndian.Uint16(b))
}

func (p packed) setEnd(i, end int) {
	sw, ew := p.widths()
	b := p[packedPrefix+(sw+ew)*i+sw:]
	if ew == 1 {
		b[0] = byte(end)
	} else {
		binary.LittleEndian.PutUint16(b, uint16(end))
	}
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
	base := p.base()
	return p[base+p.start(i) : base+p.end(i)]
}

// item returns element i with its member copied out, so it stays valid
// after p changes.
func (p packed) item(i int) Item {
	return Item{Member: string(p.member(i)), Score: p.score(i)}
}

// find returns member's position, or -1. It is the compact form's one
// linear scan, so it reads the member ends directly rather than through end.
func (p packed) find(member string) int {
	n := p.len()
	if n == 0 {
		return -1
	}
	sw, ew := p.widths()
	h := sw + ew
	base := packedPrefix + h*n
	from := 0
	for off := packedPrefix + sw; off < base; off += h {
		to := int(p[off])
		if ew == 2 {
			to |= int(p[off+1]) << 8
		}
		// The last byte first: it is where members built from a common
		// prefix and a counter differ, and it saves most full compares.
		if to-from == len(member) && (to == from || p[base+to-1] == member[len(member)-1]) &&
			string(p[base+from:base+to]) == member {
			return (off - packedPrefix - sw) / h
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
	sw, ew := p.widths()
	area := old - p.base()
	if n == 0 {
		area = 0
	}
	if scoreWidth(score) > sw || endWidth(area+len(member)) > ew {
		reencode(p, max(sw, scoreWidth(score)), max(ew, endWidth(area+len(member))), i, member, score)
		return
	}
	h := sw + ew
	need := old + h + len(member)
	if cap(*p) < need {
		*p = append(allocPacked(need), *p...)
	}
	b := (*p)[:need]
	ins := packed(b).start(i)
	oldBase := packedPrefix + h*n
	newBase := oldBase + h
	// Members first, from the back, so nothing is overwritten before it
	// has moved; the headers then grow into the area's old first bytes.
	copy(b[newBase+ins+len(member):], b[oldBase+ins:oldBase+area])
	copy(b[newBase+ins:], member)
	copy(b[newBase:], b[oldBase:oldBase+ins])
	copy(b[packedPrefix+h*(i+1):newBase], b[packedPrefix+h*i:oldBase])
	b[0] = byte(n + 1)
	q := packed(b)
	for j := i + 1; j <= n; j++ {
		q.setEnd(j, q.end(j)+len(member))
	}
	q.setScore(i, score)
	q.setEnd(i, ins+len(member))
	*p = q
}

// reencode rewrites p with score width sw and end width ew, inserting
// (member, score) at position i on the way.
func reencode[M memberKey](p *packed, sw, ew, i int, member M, score float64) {
	old := *p
	n := old.len()
	h := sw + ew
	area := len(member)
	if n > 0 {
		area += len(old) - old.base()
	}
	b := allocPacked(packedPrefix + h*(n+1) + area)[:packedPrefix+h*(n+1)]
	b[0], b[1] = byte(n+1), byte(sw|ew<<4)
	q := packed(b)
	for j := range n + 1 {
		var sc float64
		switch {
		case j < i:
			sc = old.score(j)
			b = append(b, old.member(j)...)
		case j == i:
			sc = score
			b = append(b, member...)
		default:
			sc = old.score(j - 1)
			b = append(b, old.member(j-1)...)
		}
		q.setScore(j, sc)
		q.setEnd(j, len(b)-len(q))
	}
	*p = b
}

// allocPacked returns an empty slice with room for size bytes: the
// allocator's size class for exactly size rather than a doubling, since a
// small set is written far more often than it grows, and the class's own
// rounding leaves room for the next few elements.
func allocPacked(size int) packed {
	return slices.Grow([]byte(nil), size)
}

// deleteRange removes the elements at positions [lo, hi), 0 <= lo < hi <= len().
func (p *packed) deleteRange(lo, hi int) {
	b := *p
	n, k := b.len(), hi-lo
	if k == n {
		*p = nil
		return
	}
	sw, ew := b.widths()
	h := sw + ew
	from, to := b.start(lo), b.start(hi)
	gone := to - from
	oldBase := packedPrefix + h*n
	newBase := oldBase - h*k
	area := len(b) - oldBase
	// Headers first: they shrink into space no member needs any more.
	copy(b[packedPrefix+h*lo:], b[packedPrefix+h*hi:oldBase])
	b[0] = byte(n - k)
	for j := lo; j < n-k; j++ {
		b.setEnd(j, b.end(j)-gone)
	}
	copy(b[newBase:], b[oldBase:oldBase+from])
	copy(b[newBase+from:], b[oldBase+to:oldBase+area])
	b = b[:len(b)-h*k-gone]
	if len(b) <= cap(b)/2 {
		// Give back what a shrunken set no longer needs, as listpacks do.
		b = append(allocPacked(len(b)), b...)
	}
	*p = b
}

// move gives element i a new score, shifting it to where it now sorts.
func (p *packed) move(i int, score float64) {
	b := *p
	n := b.len()
	m := b.member(i)
	sw, _ := b.widths()
	// Still between the same neighbours: the common small ZINCRBY step.
	if scoreWidth(score) <= sw && (i == 0 || before(b, i-1, score, m)) && (i == n-1 || !before(b, i+1, score, m)) {
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
	return append(allocPacked(len(p)), p...)
}
