package zsetcmd

import (
	"container/heap"
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// ZSCAN's cursor means what HSCAN's and SSCAN's does (see hashcmd's
// scan.go): the smallest 64-bit FNV-1a hash of a member the next call
// returns. Each call returns the members whose hash lies in [cursor,
// bound] and answers bound+1, or 0 once the top was reached, so a member
// present for the whole iteration is returned exactly once whatever
// happens to the scores meanwhile, and a cursor means the same on every
// node. A call costs a pass over the set, so COUNT is raised to a
// 1/ScanSlices share of it; small sets come whole on the first call, as
// Redis's listpack-encoded ones do.

const errInvalidCursor = "ERR invalid cursor"

// zscan is ZSCAN key cursor [MATCH pattern] [COUNT count]; scores are bulk
// strings in either protocol, as in Redis.
func zscan(c *command.Ctx) {
	cursor, ok := hashcmd.ParseCursor(c.Args[2])
	if !ok {
		c.W.Error(errInvalidCursor)
		return
	}
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if s == nil {
		// A missing key answers an empty scan before the options are read.
		hashcmd.WriteScan(c, 0, 0)
		return
	}
	o, errMsg := hashcmd.ParseScanOptions(c.Args[3:])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	next, items := scanSet(s, cursor, o)
	hashcmd.WriteScan(c, next, 2*len(items))
	var buf [32]byte
	for _, it := range items {
		c.W.BulkString(it.Member)
		c.W.Bulk(sortedset.AppendScore(buf[:0], it.Score))
	}
}

// scanSet returns the elements of s one ZSCAN call starting at cursor
// returns, in score order, and the next cursor (0 when the scan is done).
func scanSet(s *sortedset.Set, cursor uint64, o hashcmd.ScanOptions) (next uint64, items []sortedset.Item) {
	n := s.Len()
	if cursor == 0 && n <= max(hashcmd.ScanWhole, o.Count) {
		for it := range s.Each {
			if o.Matches(it.Member) {
				items = append(items, it)
			}
		}
		return 0, items
	}
	// First pass: the batch smallest hashes at or past the cursor among
	// matching members; the largest of them bounds this call.
	batch := max(o.Count, (n+hashcmd.ScanSlices-1)/hashcmd.ScanSlices)
	h := make(maxHeap, 0, min(batch, n))
	candidates := 0
	for it := range s.Each {
		x := memberHash(it.Member)
		if x < cursor || !o.Matches(it.Member) {
			continue
		}
		candidates++
		if len(h) < batch {
			heap.Push(&h, x)
		} else if x < h[0] {
			h[0] = x
			heap.Fix(&h, 0)
		}
	}
	bound := uint64(math.MaxUint64)
	if candidates > batch {
		bound = h[0]
	}
	// Second pass: everything in [cursor, bound], ties with the bound
	// included, so a hash collision at the boundary loses no member.
	for it := range s.Each {
		if x := memberHash(it.Member); x >= cursor && x <= bound && o.Matches(it.Member) {
			items = append(items, it)
		}
	}
	if bound == math.MaxUint64 {
		return 0, items
	}
	return bound + 1, items
}

// memberHash is 64-bit FNV-1a, the hash HSCAN and SSCAN order by.
func memberHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// maxHeap keeps the smallest hashes seen, largest on top.
type maxHeap []uint64

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(uint64)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
