package hash

import (
	"encoding/binary"
	"slices"
)

// packed is a Hash's compact form: every field and value in one byte
// slice, in insertion order, with no per-field allocation and no index.
//
// Layout:
//
//	[0:2]  the number of fields, a little-endian uint16
//	then, per field, back to back:
//	       the field's length (one byte), the field,
//	       the value's length (one byte), the value
//
// One byte holds any length the form allows (packedMaxValue), and the
// count fits in two since the form holds at most packedMaxLen fields, so a
// field costs its bytes plus two. Positions are byte offsets of entries
// (their field's length byte); finding a field is a linear scan, as in a
// listpack, which packedMaxLen keeps cheap. An empty packed is nil.
type packed []byte

// packedPrefix is the count's two bytes.
const packedPrefix = 2

func (p packed) len() int {
	if len(p) == 0 {
		return 0
	}
	return int(binary.LittleEndian.Uint16(p))
}

func (p packed) setLen(n int) { binary.LittleEndian.PutUint16(p, uint16(n)) }

// entry returns the field and value of the entry at off, aliasing p (the
// value capped at its length, so an append to it cannot overwrite the
// next entry), and where the next entry starts.
func (p packed) entry(off int) (field, val []byte, next int) {
	fl := int(p[off])
	field = p[off+1 : off+1+fl]
	vo := off + 1 + fl
	vl := int(p[vo])
	end := vo + 1 + vl
	return field, p[vo+1 : end : end], end
}

// find returns the offset of field's entry, or -1.
func (p packed) find(field string) int {
	for off := packedPrefix; off < len(p); {
		fl := int(p[off])
		vo := off + 1 + fl
		// Lengths first: they rule out most entries without a compare.
		if fl == len(field) && string(p[off+1:vo]) == field {
			return off
		}
		off = vo + 1 + int(p[vo])
	}
	return -1
}

// add appends field and val, which must fit the form; field must not be
// present.
func (p *packed) add(field string, val []byte) {
	b := *p
	if len(b) == 0 {
		b = allocPacked(packedPrefix + 2 + len(field) + len(val))[:packedPrefix]
	} else if need := len(b) + 2 + len(field) + len(val); need > cap(b) {
		b = append(allocPacked(need), b...)
	}
	b = append(b, byte(len(field)))
	b = append(b, field...)
	b = append(b, byte(len(val)))
	b = append(b, val...)
	b.setLen(b.len() + 1)
	*p = b
}

// replace gives the entry at off the value val, which must fit the form.
func (p *packed) replace(off int, val []byte) {
	b := *p
	vo := off + 1 + int(b[off])
	old := int(b[vo])
	from, to := vo+1, vo+1+old // the old value's bytes
	switch d := len(val) - old; {
	case d == 0:
	case d > 0 && len(b)+d > cap(b):
		// The entries after the value move once, into the new buffer.
		nb := append(allocPacked(len(b)+d), b[:from]...)
		nb = append(nb, val...)
		b = append(nb, b[to:]...)
		b[vo] = byte(len(val))
		*p = b
		return
	default:
		n := len(b)
		b = b[:n+max(d, 0)]
		copy(b[from+len(val):], b[to:n])
		b = b[:n+d]
	}
	b[vo] = byte(len(val))
	copy(b[from:], val)
	*p = b.shrunk()
}

// remove deletes the entry at off.
func (p *packed) remove(off int) {
	b := *p
	n := b.len()
	if n == 1 {
		*p = nil
		return
	}
	_, _, next := b.entry(off)
	copy(b[off:], b[next:])
	b = b[:len(b)-(next-off)]
	b.setLen(n - 1)
	*p = b.shrunk()
}

// shrunk gives back what a buffer that lost at least half its bytes no
// longer needs, as a listpack does, by moving it to a fitting allocation.
func (p packed) shrunk() packed {
	if len(p) > cap(p)/2 {
		return p
	}
	return append(allocPacked(len(p)), p...)
}

// allocPacked returns an empty slice with room for size bytes: the
// allocator's size class for exactly size rather than a doubling, since a
// small hash is written far more often than it grows, and the class's own
// rounding leaves room for the next field or two.
func allocPacked(size int) packed {
	return slices.Grow([]byte(nil), size)
}

// clone returns an independent copy using no more capacity than it needs.
func (p packed) clone() packed {
	if len(p) == 0 {
		return nil
	}
	return append(allocPacked(len(p)), p...)
}
