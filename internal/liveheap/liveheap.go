// Package liveheap measures what values cost in memory, for the tests
// that pin a value type's footprint: the live heap after a collection,
// before and after building many of them.
package liveheap

import "runtime"

// Bytes is the live heap in bytes after two collections (the second
// finds anything the first's sweep left for it).
func Bytes() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// PerValue returns the live heap bytes one value costs, averaged over n
// values, the i-th built by build(i). The slice holding them is made
// before the first reading, so it is not counted.
func PerValue[V any](n int, build func(i int) V) float64 {
	vals := make([]V, n)
	before := Bytes()
	for i := range vals {
		vals[i] = build(i)
	}
	after := Bytes()
	runtime.KeepAlive(vals)
	return float64(after-before) / float64(n)
}
