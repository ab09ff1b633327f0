// Package deque implements the list value type: a double-ended queue of
// byte strings kept in chunks of up to a hundred and twenty-eight
// elements, much as Redis's quicklist keeps its nodes. Pushes and pops at
// either end are amortised O(1), and so is access by index, because every
// chunk but the first and the last is full.
//
// A push copies the element's bytes into the deque, so callers may reuse
// what they pushed. Short elements are packed into their chunk's buffer,
// which keeps the garbage collector's work per list small: a list of
// millions of elements is a few thousand objects, not millions. The deque
// never writes over bytes it has handed out: an element returned by any
// method stays unchanged for as long as the caller holds it.
package deque

import (
	"iter"
	"strconv"
	"strings"
)

// Deque is a double-ended queue of []byte. The zero value is an empty
// deque ready to use. A Deque is not safe for concurrent use.
type Deque struct {
	// chunks are in order and none is empty; all but the first and the
	// last hold exactly chunkLen elements.
	chunks ends[*chunk]
	n      int
}

// New returns a deque holding elems in order.
func New(elems ...[]byte) *Deque {
	d := &Deque{}
	for _, e := range elems {
		d.PushBack(e)
	}
	return d
}

// Len is the number of elements.
func (d *Deque) Len() int { return d.n }

// PushFront adds a copy of v before the first element.
func (d *Deque) PushFront(v []byte) {
	if d.n == 0 {
		d.chunks.pushFront(&chunk{})
	} else if f := d.chunks.first(); f.len() == chunkLen {
		d.chunks.pushFront(f.sibling(true))
	}
	d.chunks.first().pushFront(v)
	d.n++
}

// PushBack adds a copy of v after the last element.
func (d *Deque) PushBack(v []byte) {
	if d.n == 0 {
		d.chunks.pushBack(&chunk{})
	} else if l := d.chunks.last(); l.len() == chunkLen {
		d.chunks.pushBack(l.sibling(false))
	}
	d.chunks.last().pushBack(v)
	d.n++
}

// PopFront removes and returns the first element; ok is false when the
// deque is empty.
func (d *Deque) PopFront() (v []byte, ok bool) {
	if d.n == 0 {
		return nil, false
	}
	c := d.chunks.first()
	v = c.popFront()
	if c.len() == 0 {
		d.chunks.popFront()
	}
	d.n--
	return v, true
}

// PopBack removes and returns the last element; ok is false when the
// deque is empty.
func (d *Deque) PopBack() (v []byte, ok bool) {
	if d.n == 0 {
		return nil, false
	}
	c := d.chunks.last()
	v = c.popBack()
	if c.len() == 0 {
		d.chunks.popBack()
	}
	d.n--
	return v, true
}

// locate finds element i: its chunk's index and its place in the chunk.
func (d *Deque) locate(i int) (ci, j int) {
	f := d.chunks.first().len()
	if i < f {
		return 0, i
	}
	i -= f
	return 1 + i/chunkLen, i % chunkLen
}

// Index returns the element at i, counted from the front. It panics
// unless 0 <= i < Len().
func (d *Deque) Index(i int) []byte {
	d.check(i, d.n)
	ci, j := d.locate(i)
	return d.chunks.at(ci).get(j)
}

// Set replaces the element at i with a copy of v. It panics unless
// 0 <= i < Len().
func (d *Deque) Set(i int, v []byte) {
	d.check(i, d.n)
	ci, j := d.locate(i)
	d.chunks.set(ci, d.chunks.at(ci).replaced(j, v))
}

func (d *Deque) check(i, n int) {
	if i < 0 || i >= n {
		panic("deque: index " + strconv.Itoa(i) + " out of range [0," + strconv.Itoa(n) + ")")
	}
}

// Span normalises Redis-style inclusive bounds for a sequence of n
// elements (negative counts from the end, -1 being the last) into a start
// position lo and a count. count is 0 when the range selects nothing.
func Span(start, stop int64, n int) (lo, count int) {
	ln := int64(n)
	if start < 0 {
		start += ln
	}
	if stop < 0 {
		stop += ln
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= ln {
		return 0, 0
	}
	if stop >= ln {
		stop = ln - 1
	}
	return int(start), int(stop - start + 1)
}

// Range returns the elements between start and stop inclusive, with the
// Redis index rules of Span (what LRANGE selects). The slice is new; the
// elements are shared.
func (d *Deque) Range(start, stop int64) [][]byte {
	lo, count := Span(start, stop, d.n)
	out := make([][]byte, 0, count)
	if count == 0 {
		return out
	}
	for e := range d.from(lo) {
		if len(out) == count {
			break
		}
		out = append(out, e)
	}
	return out
}

// from iterates over the elements from position i to the back.
func (d *Deque) from(i int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if i >= d.n {
			return
		}
		ci, j := d.locate(i)
		for ; ci < d.chunks.len(); ci, j = ci+1, 0 {
			c := d.chunks.at(ci)
			for ; j < c.len(); j++ {
				if !yield(c.get(j)) {
					return
				}
			}
		}
	}
}

// All iterates over the elements from front to back.
func (d *Deque) All() iter.Seq[[]byte] { return d.from(0) }

// Backward iterates over the elements from back to front.
func (d *Deque) Backward() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for ci := d.chunks.len() - 1; ci >= 0; ci-- {
			c := d.chunks.at(ci)
			for j := c.len() - 1; j >= 0; j-- {
				if !yield(c.get(j)) {
					return
				}
			}
		}
	}
}

// Allocs yields the size in bytes of each allocation the deque holds
// beyond the Deque itself, for memory accounting. A clone's chunks share
// buffers with the original's until either writes, and both report them.
func (d *Deque) Allocs() iter.Seq[int] {
	return func(yield func(int) bool) {
		if cap(d.chunks.s) > 0 && !yield(cap(d.chunks.s)*8) {
			return
		}
		for ci := range d.chunks.len() {
			if !d.chunks.at(ci).allocs(yield) {
				return
			}
		}
	}
}

// String renders the elements canonically, each quoted, so two deques
// print the same exactly when they hold the same elements in order.
func (d *Deque) String() string {
	var b strings.Builder
	b.WriteByte('[')
	i := 0
	for e := range d.All() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(string(e)))
		i++
	}
	b.WriteByte(']')
	return b.String()
}
