package zsetcmd

import (
	"container/heap"
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/scan"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// zscan is ZSCAN key cursor [MATCH pattern] [COUNT count]; scores are bulk
// strings in either protocol, as in Redis. Its cursor means what HSCAN's
// and SSCAN's does (see package scan), so a member present for the whole
// iteration is returned exactly once whatever happens to the scores
// meanwhile.
func zscan(c *command.Ctx) {
	s, cursor, o, ok := scan.Start[*sortedset.Set](c)
	if !ok {
		return
	}
	next, items := scanSet(s, cursor, o)
	scan.WriteHeader(c, next, 2*len(items))
	var buf [32]byte
	for _, it := range items {
		c.W.BulkString(it.Member)
		c.W.Bulk(sortedset.AppendScore(buf[:0], it.Score))
	}
}

// scanSet returns the elements of s one ZSCAN call starting at cursor
// returns, in score order, and the next cursor (0 when the scan is done).
// Unlike scan.Map it takes two passes, the second in the set's order,
// which the reply keeps.
func scanSet(s *sortedset.Set, cursor uint64, o scan.Options) (next uint64, items []sortedset.Item) {
	n := s.Len()
	if o.OneCall(cursor, n) {
		for it := range s.Each {
			if o.Matches(it.Member) {
				items = append(items, it)
			}
		}
		return 0, items
	}
	// First pass: the batch smallest hashes at or past the cursor among
	// matching members; the largest of them bounds this call.
	batch := o.Batch(n)
	h := make(maxHeap, 0, min(batch, n))
	candidates := 0
	for it := range s.Each {
		x := scan.Hash(it.Member)
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
		if x := scan.Hash(it.Member); x >= cursor && x <= bound && o.Matches(it.Member) {
			items = append(items, it)
		}
	}
	if bound == math.MaxUint64 {
		return 0, items
	}
	return bound + 1, items
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
