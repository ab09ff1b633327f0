package deque

import "slices"

// splice replaces the elements at positions [i, j) with repl. It pops and
// pushes back whichever side of the range is shorter, so it costs the
// shorter side's length plus the range's: what Redis's linked list pays to
// walk to the same place.
func (d *Deque) splice(i, j int, repl ...[]byte) {
	if j <= d.n-i {
		// The front side: take off the first j elements, put back the
		// first i of them and repl before what is left.
		taken := make([][]byte, j)
		for k := range taken {
			taken[k], _ = d.PopFront()
		}
		for k := len(repl) - 1; k >= 0; k-- {
			d.PushFront(repl[k])
		}
		for k := i - 1; k >= 0; k-- {
			d.PushFront(taken[k])
		}
		return
	}
	// The back side: take off the last n-i elements, put back repl and
	// those past j.
	taken := make([][]byte, d.n-i)
	for k := len(taken) - 1; k >= 0; k-- {
		taken[k], _ = d.PopBack()
	}
	for _, v := range repl {
		d.PushBack(v)
	}
	for _, v := range taken[j-i:] {
		d.PushBack(v)
	}
}

// Insert puts a copy of v at position i, shifting the elements from i on
// one place back: Insert(0, v) is PushFront, Insert(Len(), v) is
// PushBack, and inserting after the element at j is Insert(j+1, v). It
// panics unless 0 <= i <= Len().
func (d *Deque) Insert(i int, v []byte) {
	d.check(i, d.n+1)
	d.splice(i, i, v)
}

// RemoveAt deletes and returns the element at i. It panics unless
// 0 <= i < Len().
func (d *Deque) RemoveAt(i int) []byte {
	d.check(i, d.n)
	v := d.Index(i)
	d.splice(i, i+1)
	return v
}

// Remove deletes elements for which match reports true, with LREM's
// count rule: count > 0 removes at most count matches scanning from the
// front, count < 0 at most -count scanning from the back, 0 removes every
// match. match sees each element at most once, in scan order, and is not
// called after the limit is reached. It returns how many were removed.
func (d *Deque) Remove(count int64, match func([]byte) bool) int {
	limit := count
	if limit < 0 {
		limit = -limit
	}
	// First find the positions, lowest and highest, then splice out
	// the range between them keeping what did not match.
	var hit []int
	scan, pos, step := d.All(), 0, 1
	if count < 0 {
		scan, pos, step = d.Backward(), d.n-1, -1
	}
	for e := range scan {
		if limit != 0 && int64(len(hit)) >= limit {
			break
		}
		if match(e) {
			hit = append(hit, pos)
		}
		pos += step
	}
	if len(hit) == 0 {
		return 0
	}
	if count < 0 {
		slices.Reverse(hit) // found from the back
	}
	lo, hi := hit[0], hit[len(hit)-1]
	keep := make([][]byte, 0, hi-lo+1-len(hit))
	next, p := hit, lo
	for e := range d.from(lo) {
		if p > hi {
			break
		}
		if p == next[0] {
			next = next[1:]
		} else {
			keep = append(keep, e)
		}
		p++
	}
	d.splice(lo, hi+1, keep...)
	return len(hit)
}

// Trim keeps only the elements between start and stop inclusive, with the
// index rules of Span (what LTRIM keeps; an empty range empties the
// deque). It returns how many elements were removed.
func (d *Deque) Trim(start, stop int64) int {
	lo, count := Span(start, stop, d.n)
	removed := d.n - count
	for range lo {
		d.PopFront()
	}
	for d.n > count {
		d.PopBack()
	}
	return removed
}

// Clone returns a deque with the same elements. The chunks' buffers are
// shared until either deque would write where the other reads, which
// neither does (see chunk).
func (d *Deque) Clone() *Deque {
	c := &Deque{n: d.n}
	c.chunks.s = make([]*chunk, 0, d.chunks.len())
	for ci := range d.chunks.len() {
		c.chunks.s = append(c.chunks.s, d.chunks.at(ci).clone())
	}
	return c
}
