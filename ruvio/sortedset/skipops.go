package sortedset

// The large form's element operations; Set dispatches to them once it has
// outgrown the compact form.

// add is Set.Add on the skiplist; score is not NaN.
func (s *skiplist) add(member string, score float64) (added bool) {
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
func (s *skiplist) move(x *node, score float64) {
	prev, next := x.backward, x.lv(0).forward
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

// remove is Set.Remove on the skiplist.
func (s *skiplist) remove(member string) bool {
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

// rank returns member's 0-based ascending position and whether it is present.
func (s *skiplist) rank(member string) (int, bool) {
	x, ok := s.dict[member]
	if !ok {
		return 0, false
	}
	return s.rankOf(x), true
}

// each is Set.Each on the skiplist.
func (s *skiplist) each(yield func(Item) bool) {
	for x := s.first(); x != nil; x = x.lv(0).forward {
		if !yield(Item{Member: x.member, Score: x.score}) {
			return
		}
	}
}

// clone copies s in O(n), without any searching: the nodes are appended in
// order with the same heights, so the copy also has the same shape.
func (s *skiplist) clone() *skiplist {
	c := newSkiplist(0, s.length)
	var tails [maxLevel]*node // last node appended at each level
	var tailPos [maxLevel]int // its 1-based position (head = 0)
	for i := range tails {
		tails[i] = c.head
	}
	pos := 0
	var prev *node
	for x := s.first(); x != nil; x = x.lv(0).forward {
		pos++
		y := newNode(x.member, x.score, x.height)
		for i := range y.height {
			*tails[i].lv(i) = level{forward: y, span: pos - tailPos[i]}
			tails[i], tailPos[i] = y, pos
		}
		y.backward = prev
		prev = y
		c.dict[y.member] = y
	}
	c.level = s.level
	for i := range c.level {
		*tails[i].lv(i) = level{span: pos - tailPos[i]}
	}
	c.tail = prev
	c.length = s.length
	c.disorder = s.disorder
	return c
}
