package hashcmd

import (
	"container/heap"
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/scan"
	"github.com/ruvio/ruvio/ruvio/hash"
)

// hscan answers [cursor, [field, value, ...]]. Its cursor means what
// SSCAN's and ZSCAN's does (see package scan).
func hscan(c *command.Ctx) {
	h, cursor, o, ok := scan.Start[*hash.Hash](c)
	if !ok {
		return
	}
	next, fields := scanHash(h, cursor, o)
	scan.WriteHeader(c, next, 2*len(fields))
	for _, p := range fields {
		c.W.BulkString(p.field)
		c.W.Bulk(p.val)
	}
}

// pair is one field of an HSCAN reply; val aliases the hash, which the
// command does not change.
type pair struct {
	field string
	val   []byte
}

// scanHash returns the fields of h one HSCAN call starting at cursor
// returns, and the next cursor (0 when the scan is done): exactly what
// scan.Map answers for a map, in two passes over h since a hash in either
// form is walked the same way. The first finds the batch smallest hashes
// at or past the cursor among matching fields; the largest of them bounds
// the call. The second takes everything in [cursor, bound], ties with the
// bound included, so a hash collision at the boundary loses no field.
func scanHash(h *hash.Hash, cursor uint64, o scan.Options) (next uint64, fields []pair) {
	n := h.Len()
	if o.OneCall(cursor, n) {
		fields = make([]pair, 0, n)
		for f, v := range h.Range {
			if o.Matches(f) {
				fields = append(fields, pair{f, v})
			}
		}
		return 0, fields
	}
	batch := o.Batch(n)
	top := make(maxHeap, 0, min(batch, n))
	for f := range h.Range {
		x := scan.Hash(f)
		if x < cursor || !o.Matches(f) {
			continue
		}
		if len(top) < batch {
			heap.Push(&top, x)
		} else if x < top[0] {
			top[0] = x
			heap.Fix(&top, 0)
		}
	}
	// Fewer candidates than a batch: this call is the scan's last.
	bound := uint64(math.MaxUint64)
	if len(top) == batch {
		bound = top[0]
	}
	for f, v := range h.Range {
		if x := scan.Hash(f); x >= cursor && x <= bound && o.Matches(f) {
			fields = append(fields, pair{f, v})
		}
	}
	if bound == math.MaxUint64 {
		return 0, fields
	}
	return bound + 1, fields
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
