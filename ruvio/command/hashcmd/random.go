package hashcmd

import (
	"math/rand/v2"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/random"
	"github.com/ruvio/ruvio/ruvio/hash"
)

// hrandfield is HRANDFIELD key [count [WITHVALUES]]. Its picks are made
// as package random makes them from a Go map.
func hrandfield(c *command.Ctx) {
	random.Run(c, "withvalues", func(h *hash.Hash) string { return randomPair(h).field }, writeRandom)
}

// writeRandom answers HRANDFIELD's picks from h: distinct fields for a
// positive count, independent draws for a negative one.
func writeRandom(c *command.Ctx, h *hash.Hash, a random.Args) {
	write := func(p pair) {
		if a.With && c.W.Proto >= 3 {
			c.W.Array(2)
		}
		c.W.BulkString(p.field)
		if a.With {
			c.W.Bulk(p.val)
		}
	}
	n := h.Len()
	switch {
	case a.Count < 0:
		count := int(-a.Count)
		a.Header(c.W, count)
		if count > n/4 {
			// Many picks: collect the fields once.
			all := pairs(h)
			for ; count > 0; count-- {
				write(all[rand.IntN(n)])
			}
			return
		}
		for ; count > 0; count-- {
			write(randomPair(h))
		}
	case a.Count >= int64(n):
		a.Header(c.W, n)
		for f, v := range h.Range {
			write(pair{f, v})
		}
	default:
		picks := distinctPairs(h, int(a.Count))
		a.Header(c.W, len(picks))
		for _, p := range picks {
			write(p)
		}
	}
}

// pairs returns every field of h with its value.
func pairs(h *hash.Hash) []pair {
	all := make([]pair, 0, h.Len())
	for f, v := range h.Range {
		all = append(all, pair{f, v})
	}
	return all
}

// randomPair returns a random field of h, which must not be empty, with
// its value, as random.Key picks a key of a map: uniformly up to
// random.UniformLimit fields and in the compact form, whose walk always
// starts at the first field; otherwise the first field of a walk of the
// map, which Go starts at a random slot.
func randomPair(h *hash.Hash) pair {
	i := 0
	if n := h.Len(); n <= random.UniformLimit || h.Encoding() == "listpack" {
		i = rand.IntN(n)
	}
	f, v := h.At(i)
	return pair{f, v}
}

// distinctPairs returns count distinct random fields of h with their
// values, for 0 < count < h.Len(), in random order, as random.Distinct
// picks keys of a map.
func distinctPairs(h *hash.Hash, count int) []pair {
	n := h.Len()
	out := make([]pair, 0, count)
	if n <= random.UniformLimit || count > n/4 {
		// Reservoir sampling: one pass, every subset equally likely.
		i := 0
		for f, v := range h.Range {
			if i < count {
				out = append(out, pair{f, v})
			} else if j := rand.IntN(i + 1); j < count {
				out[j] = pair{f, v}
			}
			i++
		}
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	// Few fields of a large hash: draw until enough are distinct, which
	// takes at most about count × 4/3 draws.
	seen := make(map[string]struct{}, count)
	for len(out) < count {
		p := randomPair(h)
		if _, dup := seen[p.field]; !dup {
			seen[p.field] = struct{}{}
			out = append(out, p)
		}
	}
	return out
}
