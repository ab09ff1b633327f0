// Package deque implements the list value type: a double-ended queue of
// byte strings backed by a growable ring buffer, so pushes and pops at
// either end and access by index are O(1).
//
// Elements are stored as given; the deque never writes into an element's
// bytes, so callers may store request argument slices and hand elements to
// reply writers.
package deque

import (
	"iter"
	"strconv"
	"strings"
)

// minCap is the smallest buffer allocated; small lists are the common case
// and growing from 1 would reallocate several times for a handful of pushes.
const minCap = 8

// Deque is a double-ended queue of []byte. The zero value is an empty
// deque ready to use. A Deque is not safe for concurrent use.
type Deque struct {
	// buf's length is always zero or a power of two, so a position wraps
	// with a mask instead of a division.
	buf  [][]byte
	head int
	n    int
}

// New returns a deque holding elems in order.
func New(elems ...[]byte) *Deque {
	d := &Deque{}
	d.grow(len(elems))
	for _, e := range elems {
		d.PushBack(e)
	}
	return d
}

// Len is the number of elements.
func (d *Deque) Len() int { return d.n }

// slot maps a logical index to a position in buf.
func (d *Deque) slot(i int) int { return (d.head + i) & (len(d.buf) - 1) }

// grow makes room for extra more elements.
func (d *Deque) grow(extra int) {
	need := d.n + extra
	if need <= len(d.buf) {
		return
	}
	c := max(len(d.buf), minCap)
	for c < need {
		c <<= 1
	}
	d.resize(c)
}

// resize moves the elements to a new buffer of capacity c (a power of two
// no smaller than n), unwrapping them to start at 0.
func (d *Deque) resize(c int) {
	nb := make([][]byte, c)
	if d.n > 0 {
		end := d.head + d.n
		if end <= len(d.buf) {
			copy(nb, d.buf[d.head:end])
		} else {
			k := copy(nb, d.buf[d.head:])
			copy(nb[k:], d.buf[:end-len(d.buf)])
		}
	}
	d.buf, d.head = nb, 0
}

// shrink releases memory once the deque uses a quarter of its buffer or
// less, so a list that was once large does not pin its peak allocation.
// Halving only at a quarter leaves the buffer half full, so alternating
// pushes and pops at the boundary cannot resize every time.
func (d *Deque) shrink() {
	c := len(d.buf)
	for c > minCap && d.n <= c/4 {
		c /= 2
	}
	if c != len(d.buf) {
		d.resize(c)
	}
}

// PushFront adds v before the first element.
func (d *Deque) PushFront(v []byte) {
	d.grow(1)
	d.head = (d.head - 1) & (len(d.buf) - 1)
	d.buf[d.head] = v
	d.n++
}

// PushBack adds v after the last element.
func (d *Deque) PushBack(v []byte) {
	d.grow(1)
	d.buf[d.slot(d.n)] = v
	d.n++
}

// PopFront removes and returns the first element; ok is false when the
// deque is empty.
func (d *Deque) PopFront() (v []byte, ok bool) {
	if d.n == 0 {
		return nil, false
	}
	v = d.buf[d.head]
	d.buf[d.head] = nil // let the element be collected
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	d.shrink()
	return v, true
}

// PopBack removes and returns the last element; ok is false when the
// deque is empty.
func (d *Deque) PopBack() (v []byte, ok bool) {
	if d.n == 0 {
		return nil, false
	}
	s := d.slot(d.n - 1)
	v = d.buf[s]
	d.buf[s] = nil
	d.n--
	d.shrink()
	return v, true
}

// Index returns the element at i, counted from the front. It panics
// unless 0 <= i < Len().
func (d *Deque) Index(i int) []byte {
	d.check(i, d.n)
	return d.buf[d.slot(i)]
}

// Set replaces the element at i. It panics unless 0 <= i < Len().
func (d *Deque) Set(i int, v []byte) {
	d.check(i, d.n)
	d.buf[d.slot(i)] = v
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
	out := make([][]byte, count)
	for i := range out {
		out[i] = d.buf[d.slot(lo+i)]
	}
	return out
}

// All iterates over the elements from front to back.
func (d *Deque) All() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for i := 0; i < d.n; i++ {
			if !yield(d.buf[d.slot(i)]) {
				return
			}
		}
	}
}

// Backward iterates over the elements from back to front.
func (d *Deque) Backward() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for i := d.n - 1; i >= 0; i-- {
			if !yield(d.buf[d.slot(i)]) {
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
	for i := 0; i < d.n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(string(d.buf[d.slot(i)])))
	}
	b.WriteByte(']')
	return b.String()
}
