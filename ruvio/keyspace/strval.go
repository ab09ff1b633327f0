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

// NewString returns a string value holding a copy of b, for Entry.Val.
func NewString(b []byte) any {
	n := len(b)
	if n == 0 || n > embedMax {
		// An empty value would point at the end of its allocation, which
		// the collector may take for the next object.
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

// Embedded reports whether v is a string value made by NewString, whose
// header and bytes share one allocation (MEMORY USAGE counts it so).
func Embedded(v any) bool {
	b, ok := v.([]byte)
	if !ok || len(b) == 0 {
		return false
	}
	hdr := (*eface)(unsafe.Pointer(&v)).data
	// Compared as numbers: the header of a plain value is an allocation
	// of its own, which the sum may point past.
	return uintptr(unsafe.Pointer(unsafe.SliceData(b))) == uintptr(hdr)+uintptr(sliceHeader)
}
