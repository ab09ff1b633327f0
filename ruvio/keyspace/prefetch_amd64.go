package keyspace

// prefetch asks the processor to bring the cache line at addr in, without
// waiting for it and without faulting on an address that is not mapped.
//
//go:noescape
func prefetch(addr uintptr)
