// Package memcmd estimates what a key costs in ruvio's memory (MEMORY
// USAGE, and what eviction frees): the Go allocations of the key, its
// keyspace entry and its value as ruvio lays them out, each rounded up to
// the Go allocator's size class. Aggregates are walked element by
// element, or, as Redis does, only a sample of their elements is and the
// rest extrapolated. The numbers describe ruvio's structures (Go maps,
// slices, skiplist nodes), not the listpacks, quicklists and dicts of
// Redis, so they differ from redis-server's for the same data; they are
// what freeing the key gives back to the heap.
package memcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
)

// UsageSpec is MEMORY USAGE key [SAMPLES count], named "usage" for the
// MEMORY container to prefix.
func UsageSpec() *command.Spec {
	s := command.Family("keyspace").Spec("usage", -3, command.ReadOnly, usage).KeysAt(2, 2, 1)
	s.Categories = []string{"read", "slow"}
	return s
}

// DefaultSamples is how many elements of an aggregate MEMORY USAGE walks
// without SAMPLES, as in Redis.
const DefaultSamples = 5

// usage is MEMORY USAGE: the key's bytes in ruvio's layout (see the
// package comment). SAMPLES n walks n elements of an aggregate (streams:
// n nodes of entries) and extrapolates; 0 walks them all.
func usage(c *command.Ctx) {
	samples := int64(DefaultSamples)
	for j := 3; j < len(c.Args); j++ {
		if command.Eq(c.Args[j], "samples") && j+1 < len(c.Args) {
			n, ok := c.IntArg(c.Args[j+1])
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error(command.ErrSyntax)
				return
			}
			if n == 0 {
				n = 1 << 62
			}
			samples = n
			j++
			continue
		}
		c.W.Error(command.ErrSyntax)
		return
	}
	key := c.Args[2]
	e := c.DB.Peek(string(key))
	if e == nil {
		c.W.Null()
		return
	}
	c.W.Int(KeySize(string(key), e.ExpireAt != 0, e.Val, int(min(samples, 1<<30))))
}

// KeySize is the bytes of key with its entry and value val, sampling
// up to samples elements of an aggregate.
func KeySize(key string, volatile bool, val any, samples int) int64 {
	size := keyCost(len(key))
	if volatile {
		size += mapSlot(stringHeader)
	}
	return int64(size + ValueSize(val, samples))
}
