package sortedset

import (
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// maxLevel caps node height. With p = 1/4 a 32-level list is enough for far
// more elements than fit in memory, and it matches Redis's ZSKIPLIST_MAXLEVEL.
const maxLevel = 32

// level is one forward link of a node.
type level struct {
	forward *node
	// span counts the level-0 steps from the owning node to forward. When
	// forward is nil it counts the nodes after the owner instead, so the spans
	// along every level always add up to the set's length; that is what lets
	// insert and unlink adjust spans without special-casing the list end.
	span int
}

// node is one element. The head sentinel is a node with maxLevel levels and
// no member.
//
// A node's levels are not a slice: they are an array laid out right after
// the node in the same allocation (see nodeOf), reached through lv. Nodes
// up to height 4 make up 255/256 of all nodes, and dropping the slice
// header takes the common height-1 node from 80 to 64 bytes; keeping the
// links next to the score also saves a cache miss on every hop of a search,
// since a hop reads the score and the next link together.
type node struct {
	member   string
	score    float64
	backward *node // previous node at level 0; nil for the first node
	height   int   // how many levels follow the node
}

// nodeOf is the allocation behind a node of height up to H: the node, then
// its levels. The array type sizes the allocation and lets the collector
// see the forward pointers.
type nodeOf[H any] struct {
	node
	//lint:ignore U1000 read through node.lv's unsafe.Add, never by name
	arr H
}

const (
	nodeSize  = unsafe.Sizeof(node{})
	levelSize = unsafe.Sizeof(level{})
)

// lv returns level i of n, which must be below n.height. The levels start
// nodeSize bytes into n's allocation, as nodeOf lays them out.
func (n *node) lv(i int) *level {
	return (*level)(unsafe.Add(unsafe.Pointer(n), nodeSize+uintptr(i)*levelSize))
}

func newNode(member string, score float64, height int) *node {
	var n *node
	switch {
	case height == 1:
		n = &new(nodeOf[[1]level]).node
	case height == 2:
		n = &new(nodeOf[[2]level]).node
	case height == 3:
		n = &new(nodeOf[[3]level]).node
	case height == 4:
		n = &new(nodeOf[[4]level]).node
	case height <= 8:
		n = &new(nodeOf[[8]level]).node
	case height <= 16:
		n = &new(nodeOf[[16]level]).node
	default:
		n = &new(nodeOf[[maxLevel]level]).node
	}
	n.member = member
	n.score = score
	n.height = height
	return n
}

// before reports whether n sorts strictly before the key (score, member).
// Members compare bytewise, as Redis's memcmp-based sdscmp does.
func (n *node) before(score float64, member string) bool {
	return n.score < score || (n.score == score && n.member < member)
}

// outOfOrder reports 1 when a and b are both real nodes and a's member sorts
// after b's. Summed over adjacent pairs it tells whether list order is also
// member order, which decides how lexicographic searches may run.
func outOfOrder(a, b *node) int {
	if a != nil && b != nil && a.member > b.member {
		return 1
	}
	return 0
}

// skiplist is a Set's large form: a span-counting skiplist ordered by
// (score, member) plus an index from member to node. Its fields are what
// the whole Set used to be before small sets got a compact form.
type skiplist struct {
	head   *node // sentinel with maxLevel levels
	tail   *node
	dict   map[string]*node
	length int
	level  int // levels in use: the tallest node's height, at least 1
	// disorder counts adjacent pairs whose members are out of byte order; zero
	// means lexicographic searches can descend the skiplist directly.
	disorder int
	seed     uint64 // splitmix64 state for node heights
}

// newSkiplist returns an empty skiplist with room in its index for hint
// members. A zero seed is replaced by a random one.
func newSkiplist(seed uint64, hint int) *skiplist {
	s := &skiplist{
		head:  newNode("", 0, maxLevel),
		level: 1,
		dict:  make(map[string]*node, hint),
		seed:  seed,
	}
	for s.seed == 0 {
		// math/rand/v2's top-level source is per-thread and lock-free; it only
		// seeds the list's own generator, which is then used without any sharing.
		s.seed = rand.Uint64()
	}
	return s
}

// randomLevel draws a node height with P(height > k) = 4^-k using a
// splitmix64 step on the set's private state.
func (s *skiplist) randomLevel() int {
	s.seed += 0x9e3779b97f4a7c15
	z := s.seed
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	// Every pair of low zero bits is an independent 1-in-4 event.
	return min(bits.TrailingZeros64(z)/2+1, maxLevel)
}

// first returns the lowest node, or nil when the set is empty.
func (s *skiplist) first() *node {
	return s.head.lv(0).forward
}

// seek records, for every level in use, the last node that sorts strictly
// before (score, member), and that node's 1-based position (head = 0) when
// rank is non-nil.
func (s *skiplist) seek(score float64, member string, update *[maxLevel]*node, rank *[maxLevel]int) {
	x := s.head
	r := 0
	for i := s.level - 1; i >= 0; i-- {
		for f := x.lv(i).forward; f != nil && f.before(score, member); f = x.lv(i).forward {
			r += x.lv(i).span
			x = f
		}
		update[i] = x
		if rank != nil {
			rank[i] = r
		}
	}
}

// insert links x, whose member, score and height are already set, into the
// list. The caller maintains the member index.
func (s *skiplist) insert(x *node) {
	var update [maxLevel]*node
	var rank [maxLevel]int
	s.seek(x.score, x.member, &update, &rank)
	height := x.height
	if height > s.level {
		for i := s.level; i < height; i++ {
			update[i] = s.head
			rank[i] = 0
			// An unused head level points past the end, so its span is the
			// whole (pre-insert) length.
			*s.head.lv(i) = level{span: s.length}
		}
		s.level = height
	}
	for i := range height {
		u := update[i].lv(i)
		stepsFromU := rank[0] - rank[i] // level-0 steps from update[i] to update[0]
		*x.lv(i) = level{forward: u.forward, span: u.span - stepsFromU}
		u.forward = x
		u.span = stepsFromU + 1
	}
	// Links above x's height now jump over one more node.
	for i := height; i < s.level; i++ {
		update[i].lv(i).span++
	}

	prev := update[0]
	if prev == s.head {
		prev = nil
	}
	next := x.lv(0).forward
	x.backward = prev
	if next != nil {
		next.backward = x
	} else {
		s.tail = x
	}
	s.disorder += outOfOrder(prev, x) + outOfOrder(x, next) - outOfOrder(prev, next)
	s.length++
}

// unlink removes x given the predecessors seek found for it. update stays
// valid for x's successor, which is what lets range deletion unlink a run of
// nodes after a single descent.
func (s *skiplist) unlink(x *node, update *[maxLevel]*node) {
	for i := 0; i < s.level; i++ {
		u := update[i].lv(i)
		if u.forward == x {
			u.span += x.lv(i).span - 1
			u.forward = x.lv(i).forward
		} else {
			u.span--
		}
	}
	prev, next := x.backward, x.lv(0).forward
	if next != nil {
		next.backward = prev
	} else {
		s.tail = prev
	}
	for s.level > 1 && s.head.lv(s.level-1).forward == nil {
		s.level--
	}
	s.disorder += outOfOrder(prev, next) - outOfOrder(prev, x) - outOfOrder(x, next)
	s.length--
}

// rankOf returns the 0-based ascending position of x, which must be in the set.
func (s *skiplist) rankOf(x *node) int {
	n := s.head
	r := 0
	for i := s.level - 1; i >= 0; i-- {
		for f := n.lv(i).forward; f != nil && (f == x || f.before(x.score, x.member)); f = n.lv(i).forward {
			r += n.lv(i).span
			n = f
		}
		if n == x {
			break
		}
	}
	return r - 1
}

// at returns the node at 0-based ascending position i, which must be in
// [0, Len()).
func (s *skiplist) at(i int) *node {
	if i == s.length-1 {
		return s.tail // common for reverse ranges and PopMax
	}
	want := i + 1 // the head sits at position 0
	x := s.head
	traversed := 0
	for lv := s.level - 1; lv >= 0; lv-- {
		for x.lv(lv).forward != nil && traversed+x.lv(lv).span <= want {
			traversed += x.lv(lv).span
			x = x.lv(lv).forward
		}
		if traversed == want {
			return x
		}
	}
	return nil
}

// countScoreBelow returns how many elements have score < v, or score <= v
// when orEqual is set, and the last of them (the head when there are none),
// which saves range queries a second descent. Scores are the primary sort
// key, so this is a plain O(log n) descent.
func (s *skiplist) countScoreBelow(v float64, orEqual bool) (int, *node) {
	if s.length == 0 {
		return 0, nil
	}
	x := s.head
	r := 0
	for i := s.level - 1; i >= 0; i-- {
		for f := x.lv(i).forward; f != nil && (f.score < v || (orEqual && f.score == v)); f = x.lv(i).forward {
			r += x.lv(i).span
			x = f
		}
	}
	return r, x
}

// countMemberBelow returns the position of the first element whose member is
// not < v (not <= v when orEqual is set), searching in list order, and like
// countScoreBelow the element before it when that comes for free (else nil).
//
// When list order is also member order (always the case when all scores are
// equal, the only case Redis specifies for lex ranges) this is an O(log n)
// descent. Otherwise the predicate is not monotonic along the list and a
// descent's answer would depend on the random node heights, so two replicas
// holding the same elements could disagree; a bisection over positions,
// probing exactly as sort.Search does, makes the answer a function of the
// element sequence alone at O(log² n) cost.
func (s *skiplist) countMemberBelow(v string, orEqual bool) (int, *node) {
	below := func(m string) bool { return m < v || (orEqual && m == v) }
	if s.length == 0 {
		return 0, nil
	}
	if s.disorder == 0 {
		x := s.head
		r := 0
		for i := s.level - 1; i >= 0; i-- {
			for f := x.lv(i).forward; f != nil && below(f.member); f = x.lv(i).forward {
				r += x.lv(i).span
				x = f
			}
		}
		return r, x
	}
	lo, hi := 0, s.length
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if below(s.at(mid).member) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// deleteRange removes the elements at 0-based ascending positions [lo, hi),
// calling visit (if non-nil) on each in ascending order, and returns how many
// were removed.
func (s *skiplist) deleteRange(lo, hi int, visit func(Item)) int {
	lo = max(lo, 0)
	hi = min(hi, s.length)
	if lo >= hi {
		return 0
	}
	var update [maxLevel]*node
	x := s.head
	traversed := 0
	for i := s.level - 1; i >= 0; i-- {
		for x.lv(i).forward != nil && traversed+x.lv(i).span <= lo {
			traversed += x.lv(i).span
			x = x.lv(i).forward
		}
		update[i] = x
	}
	x = x.lv(0).forward
	for range hi - lo {
		next := x.lv(0).forward
		if visit != nil {
			visit(Item{Member: x.member, Score: x.score})
		}
		s.unlink(x, &update)
		delete(s.dict, x.member)
		x = next
	}
	return hi - lo
}

// collect returns n items starting at 0-based ascending position pos and
// walking towards higher scores, or towards lower ones when backward is set.
func (s *skiplist) collect(pos, n int, backward bool) []Item {
	if n <= 0 {
		return nil
	}
	return s.collectFrom(s.at(pos), n, backward)
}

// collectFrom is collect starting at node x.
func (s *skiplist) collectFrom(x *node, n int, backward bool) []Item {
	items := make([]Item, 0, n)
	for x != nil && len(items) < n {
		items = append(items, Item{Member: x.member, Score: x.score})
		if backward {
			x = x.backward
		} else {
			x = x.lv(0).forward
		}
	}
	return items
}
