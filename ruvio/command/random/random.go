// Package random holds what the commands that answer random elements
// share: HRANDFIELD, SRANDMEMBER and ZRANDMEMBER's arguments, and the
// random picks from a collection (a Go map's keys, a hash's fields) that
// HRANDFIELD, SRANDMEMBER and SPOP make.
package random

import (
	"iter"
	"maps"
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

// UniformLimit is the size up to which Pick picks exactly uniformly, by
// walking to a random position (O(n)). Larger collections whose walk
// starts at a random place, as a range over a Go map starts at a random
// slot, take the walk's first element: O(1), but favouring elements that
// follow empty slots. Redis's own random pick (dictGetFairRandomKey) is
// not exactly uniform either, and SPOP and SRANDMEMBER are documented as
// such.
const UniformLimit = 256

// Collection is what the picks need of the elements of a value (a set's
// members, a hash's fields): how many there are and a walk over them.
// RandomStart says the walk begins at a random element, as a range over
// a Go map does; otherwise every pick walks to a random position.
type Collection[E any] struct {
	Len         int
	All         iter.Seq[E]
	RandomStart bool
}

// Keys is the collection of m's keys.
func Keys[V any](m map[string]V) Collection[string] {
	return Collection[string]{Len: len(m), All: maps.Keys(m), RandomStart: true}
}

// Pick returns a random element of c, which must not be empty.
func Pick[E any](c Collection[E]) E {
	if c.Len <= UniformLimit || !c.RandomStart {
		i := rand.IntN(c.Len)
		for e := range c.All {
			if i == 0 {
				return e
			}
			i--
		}
	}
	for e := range c.All {
		return e
	}
	var zero E
	return zero
}

// DistinctOf returns count distinct random elements of c, for 0 < count <
// c.Len, in random order; name tells elements apart.
func DistinctOf[E any](c Collection[E], count int, name func(E) string) []E {
	out := make([]E, 0, count)
	if c.Len <= UniformLimit || count > c.Len/4 {
		// Reservoir sampling: one pass, every subset equally likely.
		i := 0
		for e := range c.All {
			if i < count {
				out = append(out, e)
			} else if j := rand.IntN(i + 1); j < count {
				out[j] = e
			}
			i++
		}
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	// Few elements of a large collection: draw until enough are distinct,
	// which takes at most about count × 4/3 draws.
	seen := make(map[string]struct{}, count)
	for len(out) < count {
		e := Pick(c)
		if _, dup := seen[name(e)]; !dup {
			seen[name(e)] = struct{}{}
			out = append(out, e)
		}
	}
	return out
}

// RepeatsOf calls fn with count elements of c (which must not be empty)
// drawn independently, so an element may come more than once.
func RepeatsOf[E any](c Collection[E], count int, fn func(E)) {
	if c.Len <= UniformLimit || count > c.Len/4 {
		all := make([]E, 0, c.Len)
		for e := range c.All {
			all = append(all, e)
		}
		for ; count > 0; count-- {
			fn(all[rand.IntN(len(all))])
		}
		return
	}
	for ; count > 0; count-- {
		fn(Pick(c))
	}
}

// Key returns a random key of m, which must not be empty.
func Key[V any](m map[string]V) string { return Pick(Keys(m)) }

// Distinct returns count distinct random keys of m, for 0 < count <
// len(m), in random order.
func Distinct[V any](m map[string]V, count int) []string {
	return DistinctOf(Keys(m), count, func(k string) string { return k })
}

// Repeats calls fn with count keys of m (which must not be empty) drawn
// independently, so a key may come more than once.
func Repeats[V any](m map[string]V, count int, fn func(string)) { RepeatsOf(Keys(m), count, fn) }
