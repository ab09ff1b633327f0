package sortedset

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// Item is one element of a Set.
type Item struct {
	Member string
	Score  float64
}

// Set is a sorted set: unique members ordered by (score, member), with
// members compared bytewise, exactly as in Redis. Ranks are 0-based.
//
// Scores must never be NaN: NaN has no place in the order, so Add panics on
// it. Callers computing scores (ZINCRBY of +inf and -inf, ZUNIONSTORE sums)
// must check the result first and reply "ERR resulting score is not a number
// (NaN)" themselves.
//
// The zero Set is empty and ready to use. A Set is not safe for concurrent
// use, and must not be modified while Each is iterating over it.
type Set struct {
	head   *node // sentinel with maxLevel levels; nil until the first Add
	tail   *node
	dict   map[string]*node
	length int
	level  int // levels in use: the tallest node's height, at least 1
	// disorder counts adjacent pairs whose members are out of byte order; zero
	// means lexicographic searches can descend the skiplist directly.
	disorder int
	seed     uint64 // splitmix64 state for node heights
}

// New returns an empty set.
func New() *Set {
	s := &Set{}
	s.init()
	return s
}

// Len returns the number of members.
func (s *Set) Len() int { return s.length }

// Score returns member's score and whether member is present.
func (s *Set) Score(member string) (float64, bool) {
	x, ok := s.dict[member]
	if !ok {
		return 0, false
	}
	return x.score, true
}

// Add inserts member with score, or moves an existing member to score. It
// reports whether member was newly added. Re-adding with an equal score
// (including -0 for 0) changes nothing, as in Redis. Add panics if score is
// NaN.
func (s *Set) Add(member string, score float64) (added bool) {
	if score != score {
		panic("sortedset: NaN score for member " + member)
	}
	s.init()
	if x, ok := s.dict[member]; ok {
		if x.score != score {
			s.move(x, score)
		}
		return false
	}
	x := newNode(member, score, s.randomLevel())
	s.insert(x)
	s.dict[member] = x
	return true
}

// move gives x a new score, keeping the node (and its height) so that an
// update allocates nothing.
func (s *Set) move(x *node, score float64) {
	prev, next := x.backward, x.levels[0].forward
	if (prev == nil || prev.before(score, x.member)) && (next == nil || !next.before(score, x.member)) {
		// Still between the same neighbours: common for small ZINCRBY steps.
		x.score = score
		return
	}
	var update [maxLevel]*node
	s.seek(x.score, x.member, &update, nil)
	s.unlink(x, &update)
	x.score = score
	s.insert(x)
}

// Remove deletes member and reports whether it was present.
func (s *Set) Remove(member string) bool {
	x, ok := s.dict[member]
	if !ok {
		return false
	}
	var update [maxLevel]*node
	s.seek(x.score, x.member, &update, nil)
	s.unlink(x, &update)
	delete(s.dict, member)
	return true
}

// Rank returns member's 0-based position in ascending order, or in descending
// order when reverse is set (ZREVRANK), and whether member is present.
func (s *Set) Rank(member string, reverse bool) (int, bool) {
	x, ok := s.dict[member]
	if !ok {
		return 0, false
	}
	r := s.rankOf(x)
	if reverse {
		r = s.length - 1 - r
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
	start = max(start, 0)
	stop = min(stop, s.length-1)
	if start > stop {
		return nil
	}
	if reverse {
		return s.collect(s.length-1-start, stop-start+1, true)
	}
	return s.collect(start, stop-start+1, false)
}

// RemoveRangeByRank deletes the elements at ascending positions start..stop
// inclusive (ZREMRANGEBYRANK after index normalisation, clamped as in
// ByRank) and returns how many were removed.
func (s *Set) RemoveRangeByRank(start, stop int) int {
	start = max(start, 0)
	stop = min(stop, s.length-1)
	if start > stop {
		return 0
	}
	return s.deleteRange(start, stop+1, nil)
}

// PopMin removes and returns up to count lowest elements, lowest first. It
// returns nil when count <= 0 or the set is empty.
func (s *Set) PopMin(count int) []Item {
	count = min(count, s.length)
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
	count = min(count, s.length)
	if count <= 0 {
		return nil
	}
	items := make([]Item, 0, count)
	s.deleteRange(s.length-count, s.length, func(it Item) { items = append(items, it) })
	slices.Reverse(items)
	return items
}

// Each calls yield on every element in ascending order until yield returns
// false. Its signature is iter.Seq[Item], so `for it := range s.Each` works.
func (s *Set) Each(yield func(Item) bool) {
	for x := s.first(); x != nil; x = x.levels[0].forward {
		if !yield(Item{Member: x.member, Score: x.score}) {
			return
		}
	}
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
	n := s.length
	if count == 0 || n == 0 {
		return nil
	}
	if count < 0 {
		items := make([]Item, -count)
		for i := range items {
			x := s.at(rng.IntN(n))
			items[i] = Item{Member: x.member, Score: x.score}
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
		x := s.at(p)
		items[i] = Item{Member: x.member, Score: x.score}
	}
	return items
}

// Clone returns an independent copy of s in O(n), without any searching: the
// nodes are appended in order with the same heights, so the copy also has the
// same shape as the original.
func (s *Set) Clone() *Set {
	c := New()
	if s.length == 0 {
		return c
	}
	c.dict = make(map[string]*node, s.length)
	var tails [maxLevel]*node // last node appended at each level
	var tailPos [maxLevel]int // its 1-based position (head = 0)
	for i := range tails {
		tails[i] = c.head
	}
	pos := 0
	var prev *node
	for x := s.first(); x != nil; x = x.levels[0].forward {
		pos++
		y := newNode(x.member, x.score, len(x.levels))
		for i := range y.levels {
			tails[i].levels[i] = level{forward: y, span: pos - tailPos[i]}
			tails[i], tailPos[i] = y, pos
		}
		y.backward = prev
		prev = y
		c.dict[y.member] = y
	}
	c.level = s.level
	for i := range c.level {
		tails[i].levels[i] = level{span: pos - tailPos[i]}
	}
	c.tail = prev
	c.length = s.length
	c.disorder = s.disorder
	return c
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
