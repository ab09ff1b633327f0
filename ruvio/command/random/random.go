// Package random holds what the commands that answer random elements
// share: HRANDFIELD, SRANDMEMBER and ZRANDMEMBER's arguments, and the
// random picks from a Go map that HRANDFIELD, SRANDMEMBER and SPOP make.
package random

import (
	"math"
	"math/rand/v2"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// Args are the parsed arguments of HRANDFIELD, SRANDMEMBER or
// ZRANDMEMBER: key [count [WITHVALUES|WITHSCORES]].
type Args struct {
	// Counted is set when a count was given: the reply is an array, not
	// one element (or null).
	Counted bool
	// Count is the count: negative asks for picks that may repeat.
	Count int64
	// With is set by WITHVALUES or WITHSCORES.
	With bool
}

// ErrCountRange is the reply to a count whose negation would overflow.
const ErrCountRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"

// Parse reads c.Args[2:] as Redis does: the count, bounded to ±LONG_MAX so
// that negating it cannot overflow, then the option named with ("" for
// SRANDMEMBER, which takes none and checks its argument count first), and
// with the option a count whose reply of pairs would not fit. It writes
// the error reply and returns false on failure.
func Parse(c *command.Ctx, with string) (Args, bool) {
	var a Args
	n := len(c.Args)
	if with == "" && n > 3 {
		c.W.Error(command.ErrSyntax)
		return a, false
	}
	if n == 2 {
		return a, true
	}
	a.Counted = true
	count, ok := command.ParseInt(c.Args[2])
	switch {
	case !ok:
		c.W.Error(command.ErrNotInteger)
		return a, false
	case count == math.MinInt64:
		c.W.Error(ErrCountRange)
		return a, false
	case n > 4 || (n == 4 && !command.Eq(c.Args[3], with)):
		c.W.Error(command.ErrSyntax)
		return a, false
	}
	a.Count, a.With = count, n == 4
	if a.With && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		// The RESP2 reply would hold twice count elements.
		c.W.Error("ERR value is out of range")
		return a, false
	}
	return a, true
}

// Run is HRANDFIELD, SRANDMEMBER or ZRANDMEMBER key [count [WITH...]] on
// values of type T, with the option named as in Parse. It parses the
// arguments, looks the key up for reading and answers what the three
// answer alike: without a count the one pick one returns, or null for a
// missing key; with a count, an empty array for a missing key or a count
// of 0. counted answers any other count.
func Run[T any](c *command.Ctx, with string, one func(T) string, counted func(*command.Ctx, T, Args)) {
	a, ok := Parse(c, with)
	if !ok {
		return
	}
	e := c.DB.Read(string(c.Args[1]))
	v, ok := command.As[T](c, e)
	switch {
	case !ok:
	case !a.Counted && e == nil:
		c.W.Null()
	case !a.Counted:
		c.W.BulkString(one(v))
	case e == nil || a.Count == 0:
		c.W.Array(0)
	default:
		counted(c, v, a)
	}
}

// Header starts the array of a counted reply of n picks: with WITHVALUES
// or WITHSCORES, a flat array of pairs in RESP2 and an array of [element,
// value] pairs in RESP3, each of which the caller starts.
func (a Args) Header(w *resp.Writer, n int) {
	if a.With && w.Proto < 3 {
		w.Array(2 * n)
	} else {
		w.Array(n)
	}
}

// UniformLimit is the size up to which Key picks exactly uniformly, by
// walking to a random position (O(n)). Larger maps take the first key of a
// range over the map: Go starts every range at a random slot, which is
// O(1) but favours keys that follow empty slots. Redis's own random pick
// (dictGetFairRandomKey) is not exactly uniform either, and SPOP and
// SRANDMEMBER are documented as such.
const UniformLimit = 256

// Key returns a random key of m, which must not be empty.
func Key[V any](m map[string]V) string {
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

// Distinct returns count distinct random keys of m, for 0 < count <
// len(m), in random order.
func Distinct[V any](m map[string]V, count int) []string {
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
		k := Key(m)
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out
}

// Repeats calls fn with count keys of m (which must not be empty) drawn
// independently, so a key may come more than once.
func Repeats[V any](m map[string]V, count int, fn func(string)) {
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
		fn(Key(m))
	}
}
