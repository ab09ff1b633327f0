package keyspace

import (
	"bytes"
	"unsafe"
)

// A string value is a []byte in Entry.Val. An interface cannot hold a
// slice header itself, so the usual conversion allocates a 24-byte header
// and points the interface at it, next to the allocation of the bytes:
// a lookup of the value then misses the cache twice, once per object, and
// every write allocates twice.
//
// NewString puts the header and the bytes in one allocation instead, the
// header first, as Redis keeps a short string's object and bytes together
// (its embstr encoding). The value is an ordinary []byte to everything
// that reads it. The allocation is a byte slice, which the garbage
// collector does not scan: the header's pointer into the same allocation
// needs no scanning, since the interface, and every slice taken from the
// value, point into the allocation and keep it alive. The slice's capacity
// is its length, so an append copies rather than writing past the bytes.

const sliceHeader = int(unsafe.Sizeof([]byte(nil)))

// embedMax is the longest value stored this way. Beyond it the header is
// a small share of the value and the size class of header plus bytes
// could round up past what the two allocations take.
const embedMax = 512 - sliceHeader

// eface is the layout of an interface value with no methods.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// bytesType is the type word of a []byte held in an interface.
var bytesType = func() unsafe.Pointer {
	var v any = []byte(nil)
	return (*eface)(unsafe.Pointer(&v)).typ
}()

// emptyBytes backs the one empty string value NewString makes: a value
// of no bytes cannot share an allocation with its header, since it would
// point at the allocation's end, which the collector may take for the
// next object. A capacity of zero keeps every append from writing to it.
var (
	emptyBytes  [1]byte
	emptyHeader = emptyBytes[:0:0]
)

// NewString returns a string value holding a copy of b, for Entry.Val.
func NewString(b []byte) any {
	n := len(b)
	if n == 0 {
		var v any
		(*eface)(unsafe.Pointer(&v)).typ = bytesType
		(*eface)(unsafe.Pointer(&v)).data = unsafe.Pointer(&emptyHeader)
		return v
	}
	if n > embedMax {
		return bytes.Clone(b)
	}
	buf := make([]byte, sliceHeader+n)
	copy(buf[sliceHeader:], b)
	h := (*[]byte)(unsafe.Pointer(&buf[0]))
	*h = buf[sliceHeader : sliceHeader+n : sliceHeader+n]
	var v any
	(*eface)(unsafe.Pointer(&v)).typ = bytesType
	(*eface)(unsafe.Pointer(&v)).data = unsafe.Pointer(h)
	return v
}

// OwnString is NewString for bytes the caller hands over: a value too
// long to embed is b itself, not a copy.
func OwnString(b []byte) any {
	if len(b) > embedMax {
		return b
	}
	return NewString(b)
}

// Embedded reports whether v is a string value made by NewString, whose
// header and bytes share one allocation (MEMORY USAGE counts it so), or
// the empty value it makes. OBJECT ENCODING reads such a value as Redis
// reads a string a command stored whole (int, embstr, or raw past 44
// bytes), and any other as one a command changed in place (raw, see
// Unshare).
func Embedded(v any) bool {
	b, ok := v.([]byte)
	if !ok {
		return false
	}
	hdr := (*eface)(unsafe.Pointer(&v)).data
	if len(b) == 0 {
		return hdr == unsafe.Pointer(&emptyHeader)
	}
	// Compared as numbers: the header of a plain value is an allocation
	// of its own, which the sum may point past.
	return uintptr(unsafe.Pointer(unsafe.SliceData(b))) == uintptr(hdr)+uintptr(sliceHeader)
}

// Unshare returns the string value in e as bytes that a command may
// change in place, first replacing a value NewString made by a copy of
// its own, as Redis's dbUnshareStringValue turns an embstr or int value
// into a raw one before SETRANGE, SETBIT, BITFIELD, APPEND or the
// HyperLogLog commands write to it. OBJECT ENCODING then says raw, as
// Redis's does. The value must be a string.
func Unshare(e *Entry) []byte {
	b := e.Val.([]byte)
	if Embedded(e.Val) {
		b = append(make([]byte, 0, len(b)), b...)
		e.Val = b
	}
	return b
}
