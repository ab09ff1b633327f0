package sortedset

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Item is one element of a Set.
type Item struct {
	Member string
	Score  float64
}

// Set is a sorted set: unique members ordered by (score, member), with
// members compared bytewise, exactly as in Redis. Ranks are 0-based.
//
// Like Redis, a Set has two forms. While it holds at most 128 members of at
// most 64 bytes each it keeps them in one compact buffer (see packed); the
// first Add past either limit turns it into a skiplist with a member index,
// for good. Every operation answers identically in both forms.
//
// Scores must never be NaN: NaN has no place in the order, so Add panics on
// it. Callers computing scores (ZINCRBY of +inf and -inf, ZUNIONSTORE sums)
// must check the result first and reply "ERR resulting score is not a number
// (NaN)" themselves.
//
// The zero Set is empty and ready to use. A Set is not safe for concurrent
// use, and must not be modified while Each is iterating over it.
type Set struct {
	small packed    // the elements while big is nil
	big   *skiplist // the large form, once the set has outgrown small
}

// New returns an empty set.
func New() *Set { return &Set{} }

// Compare orders two items as a Set orders its members: by score, then
// bytewise by member. -0 and 0 are equal scores.
func Compare(a, b Item) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	return strings.Compare(a.Member, b.Member)
}

// FromItems returns a set holding items, in the form Redis gives a sorted
// set built whole (a ZUNIONSTORE or ZRANGESTORE result, a set loaded from a
// snapshot): compact only if all of items fit in it, so that a skiplist's
// -0 scores keep their sign from the first member on. Items should name
// each member once; a member given twice keeps its last score, and the
// form is still chosen by the count of items.
func FromItems(items []Item) *Set {
	s := New()
	tooLong := func(it Item) bool { return len(it.Member) > packedMaxMember }
	if len(items) > packedMaxLen || slices.ContainsFunc(items, tooLong) {
		s.big = newSkiplist(0, len(items))
	}
	for _, it := range items {
		s.Add(it.Member, it.Score)
	}
	return s
}

// Len returns the number of members.
func (s *Set) Len() int {
	if s.big != nil {
		return s.big.length
	}
	return s.small.len()
}

// Score returns member's score and whether member is present.
func (s *Set) Score(member string) (float64, bool) {
	if s.big != nil {
		x, ok := s.big.dict[member]
		if !ok {
			return 0, false
		}
		return x.score, true
	}
	i := s.small.find(member)
	if i < 0 {
		return 0, false
	}
	return s.small.score(i), true
}

// Add inserts member with score, or moves an existing member to score. It
// reports whether member was newly added. Re-adding with an equal score
// (including -0 for 0) changes nothing, as in Redis. Add panics if score is
// NaN.
func (s *Set) Add(member string, score float64) (added bool) {
	if score != score {
		panic("sortedset: NaN score for member " + member)
	}
	if s.big != nil {
		return s.big.add(member, score)
	}
	if i := s.small.find(member); i >= 0 {
		if s.small.score(i) != score {
			s.small.move(i, score)
		}
		return false
	}
	if s.small.len() >= packedMaxLen || len(member) > packedMaxMember {
		s.promote()
		return s.big.add(member, score)
	}
	insert(&s.small, search(s.small, score, member), member, score)
	return true
}

// promote turns the compact form into the skiplist, making room for the
// member about to be added.
func (s *Set) promote() {
	n := s.small.len()
	big := newSkiplist(0, n+1)
	for i := range n {
		// Appending in order: each insert's search ends at the tail.
		it := s.small.item(i)
		x := newNode(it.Member, it.Score, big.randomLevel())
		big.insert(x)
		big.dict[it.Member] = x
	}
	s.big, s.small = big, nil
}

// Remove deletes member and reports whether it was present.
func (s *Set) Remove(member string) bool {
	if s.big != nil {
		return s.big.remove(member)
	}
	i := s.small.find(member)
	if i < 0 {
		return false
	}
	s.small.deleteRange(i, i+1)
	return true
}

// Rank returns member's 0-based position in ascending order, or in descending
// order when reverse is set (ZREVRANK), and whether member is present.
func (s *Set) Rank(member string, reverse bool) (int, bool) {
	var r int
	if s.big != nil {
		var ok bool
		if r, ok = s.big.rank(member); !ok {
			return 0, false
		}
	} else if r = s.small.find(member); r < 0 {
		return 0, false
	}
	if reverse {
		r = s.Len() - 1 - r
	}
	return r, true
}

// ByRank returns the elements at positions start..stop inclusive. Positions
// are 0-based and count in ascending order, or in descending order when
// reverse is set (ZREVRANGE); the items come back in that same order. The
// caller resolves negative Redis indexes first; here a negative start reads as
// 0 and a stop past the end as the last position. It returns nil when the
// range is empty.
func (s *Set) ByRank(start, stop int, reverse bool) []Item {
	n := s.Len()
	start = max(start, 0)
	stop = min(stop, n-1)
	if start > stop {
		return nil
	}
	if reverse {
		return s.collect(n-1-start, stop-start+1, true)
	}
	return s.collect(start, stop-start+1, false)
}

// RemoveRangeByRank deletes the elements at ascending positions start..stop
// inclusive (ZREMRANGEBYRANK after index normalisation, clamped as in
// ByRank) and returns how many were removed.
func (s *Set) RemoveRangeByRank(start, stop int) int {
	start = max(start, 0)
	stop = min(stop, s.Len()-1)
	if start > stop {
		return 0
	}
	return s.deleteRange(start, stop+1, nil)
}

// PopMin removes and returns up to count lowest elements, lowest first. It
// returns nil when count <= 0 or the set is empty.
func (s *Set) PopMin(count int) []Item {
	count = min(count, s.Len())
	if count <= 0 {
		return nil
	}
	items := make([]Item, 0, count)
	s.deleteRange(0, count, func(it Item) { items = append(items, it) })
	return items
}

// PopMax removes and returns up to count highest elements, highest first. It
// returns nil when count <= 0 or the set is empty.
func (s *Set) PopMax(count int) []Item {
	n := s.Len()
	count = min(count, n)
	if count <= 0 {
		return nil
	}
	items := make([]Item, 0, count)
	s.deleteRange(n-count, n, func(it Item) { items = append(items, it) })
	slices.Reverse(items)
	return items
}

// Each calls yield on every element in ascending order until yield returns
// false. Its signature is iter.Seq[Item], so `for it := range s.Each` works.
func (s *Set) Each(yield func(Item) bool) {
	if s.big != nil {
		s.big.each(yield)
		return
	}
	s.small.each(yield)
}

// itemAt returns the element at 0-based ascending position i, which must be
// in [0, Len()).
func (s *Set) itemAt(i int) Item {
	if s.big != nil {
		x := s.big.at(i)
		return Item{Member: x.member, Score: x.score}
	}
	return s.small.item(i)
}

// collect returns n items starting at 0-based ascending position pos and
// walking towards higher scores, or towards lower ones when backward is set.
func (s *Set) collect(pos, n int, backward bool) []Item {
	if n <= 0 {
		return nil
	}
	if s.big != nil {
		return s.big.collect(pos, n, backward)
	}
	step := 1
	if backward {
		n = min(n, pos+1)
		step = -1
	} else {
		n = min(n, s.small.len()-pos)
	}
	items := make([]Item, n)
	for k := range items {
		items[k] = s.small.item(pos + k*step)
	}
	return items
}

// deleteRange removes the elements at 0-based ascending positions [lo, hi),
// calling visit (if non-nil) on each in ascending order, and returns how many
// were removed.
func (s *Set) deleteRange(lo, hi int, visit func(Item)) int {
	if s.big != nil {
		return s.big.deleteRange(lo, hi, visit)
	}
	lo = max(lo, 0)
	hi = min(hi, s.small.len())
	if lo >= hi {
		return 0
	}
	if visit != nil {
		for i := lo; i < hi; i++ {
			visit(s.small.item(i))
		}
	}
	s.small.deleteRange(lo, hi)
	return hi - lo
}

// Random returns elements chosen with rng, with ZRANDMEMBER semantics:
//   - count > 0: min(count, Len()) distinct elements; in random order when
//     count < Len(), otherwise the whole set in ascending order (Redis, too,
//     does not shuffle the whole-set reply);
//   - count < 0: -count independent picks, so elements may repeat;
//   - count == 0 or an empty set: nil.
//
// The caller bounds -count; the result is allocated in full up front.
func (s *Set) Random(count int, rng *rand.Rand) []Item {
	n := s.Len()
	if count == 0 || n == 0 {
		return nil
	}
	if count < 0 {
		items := make([]Item, -count)
		for i := range items {
			items[i] = s.itemAt(rng.IntN(n))
		}
		return items
	}
	if count >= n {
		return s.collect(0, n, false)
	}
	if count*2 >= n {
		// A large share of the set: one ordered walk plus a partial
		// Fisher-Yates beats count separate O(log n) lookups.
		all := s.collect(0, n, false)
		for i := range count {
			j := i + rng.IntN(n-i)
			all[i], all[j] = all[j], all[i]
		}
		return all[:count:count]
	}
	// Floyd's algorithm draws count distinct positions in count steps.
	chosen := make(map[int]struct{}, count)
	picks := make([]int, 0, count)
	for j := n - count; j < n; j++ {
		p := rng.IntN(j + 1)
		if _, dup := chosen[p]; dup {
			p = j
		}
		chosen[p] = struct{}{}
		picks = append(picks, p)
	}
	// Floyd yields a uniform subset but not a uniform order.
	rng.Shuffle(len(picks), func(i, j int) { picks[i], picks[j] = picks[j], picks[i] })
	items := make([]Item, len(picks))
	for i, p := range picks {
		items[i] = s.itemAt(p)
	}
	return items
}

// Clone returns an independent copy of s in O(n), without any searching,
// in the same form as s.
func (s *Set) Clone() *Set {
	if s.big != nil {
		return &Set{big: s.big.clone()}
	}
	return &Set{small: s.small.clone()}
}

// String renders the set canonically, members in order with their scores,
// so two sets can be compared in tests and dumps.
func (s *Set) String() string {
	var b []byte
	b = append(b, '[')
	first := true
	s.Each(func(it Item) bool {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = strconv.AppendQuote(b, it.Member)
		b = append(b, ':')
		b = AppendScore(b, it.Score)
		return true
	})
	return string(append(b, ']'))
}
