package hashcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/random"
	"github.com/ruvio/ruvio/ruvio/hash"
)

// hrandfield is HRANDFIELD key [count [WITHVALUES]].
func hrandfield(c *command.Ctx) {
	random.Run(c, "withvalues", func(h *hash.Hash) string { return random.Pick(fields(h)).field }, writeRandom)
}

// pair is a field of h with its value, which aliases the hash (the
// command reading it does not change it).
type pair struct {
	field string
	val   []byte
}

// fields is h's fields with their values, as package random picks from
// them. The compact form walks from its first field every time, so only
// the map form's walk starts at a random one.
func fields(h *hash.Hash) random.Collection[pair] {
	return random.Collection[pair]{
		Len: h.Len(),
		All: func(yield func(pair) bool) {
			for f, v := range h.Range {
				if !yield(pair{f, v}) {
					return
				}
			}
		},
		RandomStart: h.Encoding() == "hashtable",
	}
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
	all := fields(h)
	switch {
	case a.Count < 0:
		a.Header(c.W, int(-a.Count))
		random.RepeatsOf(all, int(-a.Count), write)
	case a.Count >= int64(all.Len):
		a.Header(c.W, all.Len)
		for p := range all.All {
			write(p)
		}
	default:
		a.Header(c.W, int(a.Count))
		for _, p := range random.DistinctOf(all, int(a.Count), func(p pair) string { return p.field }) {
			write(p)
		}
	}
}
