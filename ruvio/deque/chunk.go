package deque

import "bytes"

// A chunk holds up to chunkLen consecutive elements of a deque. The bytes
// of its short elements are packed into one buffer, so a chunk is a
// handful of allocations whatever its length, and the garbage collector
// visits a few pointers per chunk instead of one per element. Long
// elements (over inlineMax bytes) keep an allocation of their own, so
// a chunk's buffer stays small and moving it stays cheap.
//
// Bytes once written to buf are never written again: pushes write below
// floor or from ceil on, and everything that would overwrite copies to a
// new buffer instead. An element handed out therefore stays unchanged for
// as long as the caller holds it.
type chunk struct {
	spans ends[span]
	// big parallels spans once the chunk has held a long element; a
	// non-nil entry is that element, and spans' entry is unused.
	big   ends[[]byte]
	buf   []byte
	floor int // buf[floor:ceil] is every byte written so far
	ceil  int
}

// span locates a short element in its chunk's buffer.
type span struct{ off, n uint32 }

// Tunables, variables so the tests can make chunks tiny.
var (
	// chunkLen is how many elements a chunk holds when full. Every chunk
	// but the first and the last of a deque is full, so an index finds
	// its chunk by a division.
	chunkLen = 128
	// inlineMax is the longest element packed into a chunk's buffer.
	inlineMax = 1024
)

// minBuf is the smallest buffer a chunk allocates.
const minBuf = 32

// empty is what an element of no bytes reads as: empty but not nil, as
// nil is how callers spell "no element".
var empty = []byte{}

func (c *chunk) len() int { return c.spans.len() }

// long returns element i when it is a long one (kept in big), else nil.
func (c *chunk) long(i int) []byte {
	if c.big.s == nil {
		return nil
	}
	return c.big.at(i)
}

// get returns element i of the chunk.
func (c *chunk) get(i int) []byte {
	if b := c.long(i); b != nil {
		return b
	}
	sp := c.spans.at(i)
	if sp.n == 0 {
		return empty
	}
	end := sp.off + sp.n
	return c.buf[sp.off:end:end]
}

func (c *chunk) pushBack(v []byte) {
	if len(v) > inlineMax {
		c.holdBig()
		c.spans.pushBack(span{})
		c.big.pushBack(bytes.Clone(v))
		return
	}
	if len(c.buf)-c.ceil < len(v) {
		c.regrow(len(v), false)
	}
	c.spans.pushBack(span{uint32(c.ceil), uint32(len(v))})
	c.ceil += copy(c.buf[c.ceil:], v)
	if c.big.s != nil {
		c.big.pushBack(nil)
	}
}

func (c *chunk) pushFront(v []byte) {
	if len(v) > inlineMax {
		c.holdBig()
		c.spans.pushFront(span{})
		c.big.pushFront(bytes.Clone(v))
		return
	}
	if c.floor < len(v) {
		c.regrow(len(v), true)
	}
	c.floor -= len(v)
	copy(c.buf[c.floor:], v)
	c.spans.pushFront(span{uint32(c.floor), uint32(len(v))})
	if c.big.s != nil {
		c.big.pushFront(nil)
	}
}

// popFront and popBack remove an element and return it. Its bytes stay
// where they are (see chunk).
func (c *chunk) popFront() []byte {
	v := c.get(0)
	c.spans.popFront()
	if c.big.s != nil {
		c.big.popFront()
	}
	return v
}

func (c *chunk) popBack() []byte {
	v := c.get(c.len() - 1)
	c.spans.popBack()
	if c.big.s != nil {
		c.big.popBack()
	}
	return v
}

// sibling returns an empty chunk to go before (front) or after the full
// chunk c, with room for as many elements and bytes as c holds, so a
// growing list allocates each chunk's arrays once.
func (c *chunk) sibling(front bool) *chunk {
	size := max(c.ceil-c.floor, minBuf)
	r := &chunk{buf: make([]byte, size)}
	r.spans.s = make([]span, 0, chunkLen)
	if front {
		r.spans.s, r.spans.lo = r.spans.s[:chunkLen], chunkLen
		r.floor, r.ceil = size, size
	}
	return r
}

// holdBig starts big, with a nil entry for each element already held.
func (c *chunk) holdBig() {
	if c.big.s != nil {
		return
	}
	c.big.s = make([][]byte, c.len(), max(c.len()+1, minEnds))
}

// regrow moves the short elements to a new buffer with room for need
// more bytes before them (front) or after them. The old buffer is left as
// it is, so elements handed out of it stay valid.
func (c *chunk) regrow(need int, front bool) {
	live := 0
	for i := range c.len() {
		if c.long(i) == nil {
			live += int(c.spans.at(i).n)
		}
	}
	size := max(2*live+need, minBuf)
	nb := make([]byte, size)
	pos := 0
	if front {
		pos = size - live
	}
	c.floor = pos
	for i := range c.len() {
		if c.long(i) != nil {
			continue
		}
		sp := c.spans.at(i)
		copy(nb[pos:], c.buf[sp.off:sp.off+sp.n])
		c.spans.set(i, span{uint32(pos), sp.n})
		pos += int(sp.n)
	}
	c.ceil = pos
	c.buf = nb
}

// replaced returns a new chunk holding c's elements with element i
// replaced by v; c is not changed.
func (c *chunk) replaced(i int, v []byte) *chunk {
	r := &chunk{}
	for j := range c.len() {
		if j == i {
			r.pushBack(v)
		} else {
			r.pushBack(c.get(j))
		}
	}
	return r
}

// clone returns a chunk with c's elements that shares c's buffer. The
// clone's floor and ceil cover the whole buffer, so it copies to a buffer
// of its own before it writes any byte, and c writes only outside the
// bytes the clone reads.
func (c *chunk) clone() *chunk {
	r := &chunk{buf: c.buf, floor: 0, ceil: len(c.buf)}
	r.spans.s = append(make([]span, 0, c.len()), c.spans.s[c.spans.lo:]...)
	if c.big.s != nil {
		r.big.s = append(make([][]byte, 0, c.len()), c.big.s[c.big.lo:]...)
	}
	return r
}

// allocs yields the size of each allocation the chunk holds.
func (c *chunk) allocs(yield func(int) bool) bool {
	if !yield(chunkSize) || !yield(cap(c.spans.s)*spanSize) || !yield(cap(c.buf)) {
		return false
	}
	if c.big.s == nil {
		return true
	}
	if !yield(cap(c.big.s) * sliceHeader) {
		return false
	}
	for i := range c.len() {
		if b := c.long(i); b != nil && !yield(cap(b)) {
			return false
		}
	}
	return true
}

// Sizes on a 64-bit platform, for allocs.
const (
	sliceHeader = 24
	spanSize    = 8
	chunkSize   = 2*(sliceHeader+8) + sliceHeader + 2*8
)
