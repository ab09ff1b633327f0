package hashcmd

import (
	"math"
	"math/rand/v2"

	"github.com/ruvio/ruvio/ruvio/command"
)

// UniformLimit is the size up to which RandomKey picks exactly uniformly,
// by walking to a random position (O(n)). Larger maps take the first key
// of a range over the map: Go starts every range at a random slot, which
// is O(1) but favours keys that follow empty slots. Redis's own random
// pick (dictGetFairRandomKey) is not exactly uniform either, and SPOP and
// SRANDMEMBER are documented as such.
const UniformLimit = 256

// RandomKey returns a random key of m, which must not be empty.
func RandomKey[V any](m map[string]V) string {
	if n := len(m); n <= UniformLimit {
		i := rand.IntN(n)
		for k := range m {
			if i == 0 {
				return k
			}
			i--
		}
	}
	for k := range m {
		return k
	}
	return ""
}

// DistinctKeys returns count distinct random keys of m, for
// 0 < count < len(m), in random order.
func DistinctKeys[V any](m map[string]V, count int) []string {
	n := len(m)
	out := make([]string, 0, count)
	if n <= UniformLimit || count > n/4 {
		// Reservoir sampling: one pass, every subset equally likely.
		i := 0
		for k := range m {
			if i < count {
				out = append(out, k)
			} else if j := rand.IntN(i + 1); j < count {
				out[j] = k
			}
			i++
		}
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	// Few keys from a large map: draw until enough are distinct, which
	// takes at most about count × 4/3 draws.
	seen := make(map[string]struct{}, count)
	for len(out) < count {
		k := RandomKey(m)
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out
}

// RandomKeys calls fn with count keys of m (which must not be empty)
// drawn independently, so a key may come more than once.
func RandomKeys[V any](m map[string]V, count int, fn func(string)) {
	n := len(m)
	if n <= UniformLimit || count > n/4 {
		keys := make([]string, 0, n)
		for k := range m {
			keys = append(keys, k)
		}
		for ; count > 0; count-- {
			fn(keys[rand.IntN(n)])
		}
		return
	}
	for ; count > 0; count-- {
		fn(RandomKey(m))
	}
}

// ParseRandCount parses the count of HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER, which Redis bounds to ±LONG_MAX so that negating it cannot
// overflow. It returns the error reply to send, or "".
func ParseRandCount(b []byte) (int64, string) {
	n, ok := command.ParseInt(b)
	if !ok {
		return 0, command.ErrNotInteger
	}
	if n == math.MinInt64 {
		return 0, "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	}
	return n, ""
}

// hrandfield is HRANDFIELD key [count [WITHVALUES]].
func hrandfield(c *command.Ctx) {
	key := string(c.Args[1])
	if len(c.Args) == 2 {
		h, ok := lookup(c, key, true)
		switch {
		case !ok:
		case h == nil:
			c.W.Null()
		default:
			c.W.BulkString(RandomKey(h))
		}
		return
	}
	count, errMsg := ParseRandCount(c.Args[2])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	if len(c.Args) > 4 || (len(c.Args) == 4 && !command.Eq(c.Args[3], "withvalues")) {
		c.W.Error(command.ErrSyntax)
		return
	}
	withValues := len(c.Args) == 4
	if withValues && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		// The reply would hold twice count elements.
		c.W.Error("ERR value is out of range")
		return
	}
	h, ok := lookup(c, key, true)
	if !ok {
		return
	}
	if h == nil || count == 0 {
		c.W.Array(0)
		return
	}
	// RESP3 nests each field with its value; RESP2 flattens them.
	header := func(n int) {
		if withValues && c.W.Proto < 3 {
			c.W.Array(2 * n)
		} else {
			c.W.Array(n)
		}
	}
	write := func(f string) {
		if withValues && c.W.Proto >= 3 {
			c.W.Array(2)
		}
		c.W.BulkString(f)
		if withValues {
			c.W.Bulk(h[f])
		}
	}
	switch {
	case count < 0:
		header(int(-count))
		RandomKeys(h, int(-count), write)
	case count >= int64(len(h)):
		header(len(h))
		for f := range h {
			write(f)
		}
	default:
		header(int(count))
		for _, f := range DistinctKeys(h, int(count)) {
			write(f)
		}
	}
}
