package deque

// ends is a slice that grows and shrinks at both ends in amortised O(1).
// The live elements are s[lo:]; the slots before lo are free room for
// pushes at the front, the capacity past len(s) room for pushes at the
// back. The zero value is empty and ready to use.
type ends[T any] struct {
	s  []T
	lo int
}

// minEnds is the smallest backing array allocated.
const minEnds = 4

func (e *ends[T]) len() int { return len(e.s) - e.lo }

func (e *ends[T]) at(i int) T { return e.s[e.lo+i] }

func (e *ends[T]) set(i int, v T) { e.s[e.lo+i] = v }

func (e *ends[T]) first() T { return e.s[e.lo] }

func (e *ends[T]) last() T { return e.s[len(e.s)-1] }

func (e *ends[T]) pushBack(v T) {
	if len(e.s) == cap(e.s) {
		if e.lo >= cap(e.s)/2 {
			e.slide(false)
		} else {
			e.move(2*e.len()+1, false)
		}
	}
	e.s = append(e.s, v)
}

func (e *ends[T]) pushFront(v T) {
	if e.lo == 0 {
		if cap(e.s)-len(e.s) >= cap(e.s)/2 && cap(e.s) > len(e.s) {
			e.slide(true)
		} else {
			e.move(2*e.len()+1, true)
		}
	}
	e.lo--
	e.s[e.lo] = v
}

// slide moves the live elements within the array to its end (front) or
// its start, when the room the push needs is at the other end: a queue
// that pushes at one end and pops at the other reuses its array.
func (e *ends[T]) slide(front bool) {
	n := e.len()
	if front {
		all := e.s[:cap(e.s)]
		copy(all[cap(e.s)-n:], e.s[e.lo:])
		clear(all[:cap(e.s)-n])
		e.s, e.lo = all, cap(e.s)-n
		return
	}
	copy(e.s, e.s[e.lo:])
	clear(e.s[n:])
	e.s, e.lo = e.s[:n], 0
}

func (e *ends[T]) popFront() T {
	var zero T
	v := e.s[e.lo]
	e.s[e.lo] = zero // drop what the slot referred to
	e.lo++
	e.shrink()
	return v
}

func (e *ends[T]) popBack() T {
	var zero T
	n := len(e.s) - 1
	v := e.s[n]
	e.s[n] = zero
	e.s = e.s[:n]
	e.shrink()
	return v
}

// shrink gives memory back once a quarter or less of the array is live,
// keeping room for as many pushes again, so alternating pushes and pops
// at the boundary cannot move the elements every time.
func (e *ends[T]) shrink() {
	n := e.len()
	switch {
	case n == 0:
		e.s, e.lo = e.s[:0], 0
	case cap(e.s) > minEnds && n <= cap(e.s)/4:
		e.move(2*n, false)
	}
}

// move copies the live elements to a new array of capacity c, at its
// end when front is set (the room is before them) and at its start
// otherwise.
func (e *ends[T]) move(c int, front bool) {
	n := e.len()
	c = max(c, n+1, minEnds)
	ns := make([]T, c)
	if front {
		copy(ns[c-n:], e.s[e.lo:])
		e.s, e.lo = ns, c-n
		return
	}
	copy(ns, e.s[e.lo:])
	e.s, e.lo = ns[:n], 0
}
