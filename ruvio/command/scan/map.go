package scan

import (
	"iter"
	"maps"
	"math"
)

// Map returns the keys of m one call of a scan starting at cursor
// returns, and the cursor of the next call (0 when the scan is complete).
func Map[V any](m map[string]V, cursor uint64, o Options) (next uint64, keys []string) {
	return Names(maps.Keys(m), len(m), cursor, o)
}

// Names is Map over any collection of n distinct names that all walks (a
// hash's fields in either of its forms). It takes one pass, keeping the
// batch smallest hashes in a heap.
func Names(all iter.Seq[string], n int, cursor uint64, o Options) (next uint64, keys []string) {
	if o.OneCall(cursor, n) {
		keys = make([]string, 0, n)
		for k := range all {
			if o.Matches(k) {
				keys = append(keys, k)
			}
		}
		return 0, keys
	}
	batch := o.Batch(n)
	sel := selector{limit: batch, heap: make([]entry, 0, min(batch, n))}
	for k := range all {
		if h := Hash(k); h >= cursor && o.Matches(k) {
			sel.offer(h, k)
		}
	}
	keys = make([]string, 0, len(sel.heap)+len(sel.ties))
	for _, e := range sel.heap {
		keys = append(keys, e.key)
	}
	keys = append(keys, sel.ties...)
	if len(sel.heap) < batch || sel.heap[0].h == math.MaxUint64 {
		// Every candidate fitted: nothing is left beyond this call.
		return 0, keys
	}
	return sel.heap[0].h + 1, keys
}

type entry struct {
	h   uint64
	key string
}

// selector keeps the limit candidates of smallest hash in a max-heap, plus
// every other candidate whose hash equals the largest kept one: a call
// must return all elements sharing its bound's hash, or a collision at the
// boundary would lose one (the next call starts past the bound).
type selector struct {
	limit int
	heap  []entry
	ties  []string
}

func (s *selector) offer(h uint64, key string) {
	if len(s.heap) < s.limit {
		s.heap = append(s.heap, entry{h, key})
		s.up(len(s.heap) - 1)
		return
	}
	top := s.heap[0]
	switch {
	case h > top.h:
	case h == top.h:
		s.ties = append(s.ties, key)
	default:
		s.heap[0] = entry{h, key}
		s.down(0)
		if s.heap[0].h == top.h {
			// The bound did not move: the evicted entry still belongs.
			s.ties = append(s.ties, top.key)
		} else {
			s.ties = s.ties[:0]
		}
	}
}

func (s *selector) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if s.heap[p].h >= s.heap[i].h {
			return
		}
		s.heap[p], s.heap[i] = s.heap[i], s.heap[p]
		i = p
	}
}

func (s *selector) down(i int) {
	n := len(s.heap)
	for {
		big := i
		if l := 2*i + 1; l < n && s.heap[l].h > s.heap[big].h {
			big = l
		}
		if r := 2*i + 2; r < n && s.heap[r].h > s.heap[big].h {
			big = r
		}
		if big == i {
			return
		}
		s.heap[i], s.heap[big] = s.heap[big], s.heap[i]
		i = big
	}
}
