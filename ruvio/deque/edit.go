package deque

// Insert puts v at position i, shifting the elements from i on one place
// back: Insert(0, v) is PushFront, Insert(Len(), v) is PushBack, and
// inserting after the element at j is Insert(j+1, v). It moves whichever
// side of i is shorter. It panics unless 0 <= i <= Len().
func (d *Deque) Insert(i int, v []byte) {
	d.check(i, d.n+1)
	d.grow(1)
	if i < d.n/2 {
		d.head = (d.head - 1) & (len(d.buf) - 1)
		for j := 0; j < i; j++ {
			d.buf[d.slot(j)] = d.buf[d.slot(j+1)]
		}
	} else {
		for j := d.n; j > i; j-- {
			d.buf[d.slot(j)] = d.buf[d.slot(j-1)]
		}
	}
	d.buf[d.slot(i)] = v
	d.n++
}

// RemoveAt deletes and returns the element at i, moving whichever side of
// i is shorter. It panics unless 0 <= i < Len().
func (d *Deque) RemoveAt(i int) []byte {
	d.check(i, d.n)
	v := d.buf[d.slot(i)]
	if i < d.n/2 {
		for j := i; j > 0; j-- {
			d.buf[d.slot(j)] = d.buf[d.slot(j-1)]
		}
		d.buf[d.head] = nil
		d.head = (d.head + 1) & (len(d.buf) - 1)
	} else {
		for j := i; j < d.n-1; j++ {
			d.buf[d.slot(j)] = d.buf[d.slot(j+1)]
		}
		d.buf[d.slot(d.n-1)] = nil
	}
	d.n--
	d.shrink()
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
	removed := 0
	take := func(e []byte) bool {
		if limit != 0 && int64(removed) >= limit {
			return false
		}
		if match(e) {
			removed++
			return true
		}
		return false
	}
	n := d.n
	if count >= 0 {
		// Compact towards the front; the survivors keep their order.
		w := 0
		for r := 0; r < n; r++ {
			e := d.buf[d.slot(r)]
			if !take(e) {
				d.buf[d.slot(w)] = e
				w++
			}
		}
		for j := w; j < n; j++ {
			d.buf[d.slot(j)] = nil
		}
		d.n = w
	} else {
		// Compact towards the back so the scan runs tail first.
		w := n - 1
		for r := n - 1; r >= 0; r-- {
			e := d.buf[d.slot(r)]
			if !take(e) {
				d.buf[d.slot(w)] = e
				w--
			}
		}
		for j := 0; j <= w; j++ {
			d.buf[d.slot(j)] = nil
		}
		d.head = d.slot(w + 1)
		d.n = n - (w + 1)
	}
	if removed > 0 {
		d.shrink()
	}
	return removed
}

// Trim keeps only the elements between start and stop inclusive, with the
// index rules of Span (what LTRIM keeps; an empty range empties the
// deque). It returns how many elements were removed.
func (d *Deque) Trim(start, stop int64) int {
	lo, count := Span(start, stop, d.n)
	removed := d.n - count
	if removed == 0 {
		return 0
	}
	for j := 0; j < lo; j++ {
		d.buf[d.slot(j)] = nil
	}
	for j := lo + count; j < d.n; j++ {
		d.buf[d.slot(j)] = nil
	}
	if count == 0 {
		d.head = 0
	} else {
		d.head = d.slot(lo)
	}
	d.n = count
	d.shrink()
	return removed
}

// Clone returns a deque with the same elements (shared, as elements are
// never written in place).
func (d *Deque) Clone() *Deque {
	c := &Deque{}
	c.grow(d.n)
	for e := range d.All() {
		c.PushBack(e)
	}
	return c
}
