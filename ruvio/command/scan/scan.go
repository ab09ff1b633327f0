// Package scan holds what HSCAN, SSCAN and ZSCAN share: the cursor, the
// COUNT and MATCH options, the reply's frame and the scan of a Go map.
//
// Redis's cursor walks its hash table's buckets in reverse-binary order,
// which keeps working while the table grows or shrinks. A Go map has no
// stable iteration order, so the cursor here walks a different order
// instead: every element's 64-bit FNV-1a hash (Hash). The cursor is the
// smallest hash the next call returns; a call returns the elements whose
// hash lies in [cursor, bound] and answers bound+1 (0 once the top was
// reached). Those intervals tile the whole hash space, so an element
// present for the whole iteration is returned, and an element's hash never
// changes, so it is returned once (only elements added or removed
// meanwhile may or may not appear, as in Redis). FNV with its fixed basis,
// rather than maphash with a per-process seed, makes a cursor mean the
// same on every node, so an iteration survives a failover to a replica.
//
// Finding the elements of one call costs a pass over the whole collection
// (no index is kept beside the value; the pass is memory-bound, roughly
// 0.1 s per million elements), so to bound a full iteration to O(n ×
// Slices) work, COUNT is treated as the hint Redis documents it to be: a
// call returns at least 1/Slices of the collection. Calls of O(COUNT)
// would need the sorted order kept between calls, a snapshot per
// iteration. Collections of at most Whole elements are returned whole,
// with cursor 0, whatever the cursor asked, as Redis does for its small
// (listpack and intset) encodings.
package scan

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/glob"
)

// Whole and Slices bound the work of a scan; see the package comment.
const (
	Whole  = 128
	Slices = 64
)

// ErrInvalidCursor is the reply to a cursor that is not a number.
const ErrInvalidCursor = "ERR invalid cursor"

// Options are a SCAN-family command's COUNT and MATCH.
type Options struct {
	// Count is how many elements to aim for per call.
	Count int
	// Match, unless nil, is the glob pattern elements must match.
	Match []byte
}

// Start begins HSCAN, SSCAN or ZSCAN key cursor [MATCH pattern] [COUNT
// count] in Redis's order: the cursor is parsed, then the key looked up as
// a T, and only for an existing key the options. ok is false when the
// reply has been written: an error, or the empty scan a missing key
// answers.
func Start[T any](c *command.Ctx) (v T, cursor uint64, o Options, ok bool) {
	cursor, valid := ParseCursor(c.Args[2])
	if !valid {
		c.W.Error(ErrInvalidCursor)
		return v, 0, o, false
	}
	e := c.DB.Read(string(c.Args[1]))
	if v, ok = command.As[T](c, e); !ok {
		return v, 0, o, false
	}
	if e == nil {
		WriteHeader(c, 0, 0)
		return v, 0, o, false
	}
	o, errMsg := ParseOptions(c.Args[3:])
	if errMsg != "" {
		c.W.Error(errMsg)
		return v, 0, o, false
	}
	return v, cursor, o, true
}

// ParseCursor parses a cursor as Redis does with strtoul: an optional sign
// (a negative cursor wraps around), decimal digits; the empty string is 0.
func ParseCursor(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	neg := b[0] == '-'
	if b[0] == '+' || b[0] == '-' {
		b = b[1:]
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// ParseOptions reads COUNT and MATCH; anything else is a syntax error. It
// returns the error reply to send, or "".
func ParseOptions(args [][]byte) (Options, string) {
	o := Options{Count: 10}
	for i := 0; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch {
		case command.Eq(args[i], "count") && more:
			n, ok := command.ParseInt(args[i+1])
			if !ok {
				return o, command.ErrNotInteger
			}
			if n < 1 {
				return o, command.ErrSyntax
			}
			o.Count = int(min(n, math.MaxInt32))
		case command.Eq(args[i], "match") && more:
			// "*" matches everything (but the empty string, which glob
			// refuses as Redis's matcher does, while Redis skips matching
			// for it); skipping it also saves the glob calls.
			if p := args[i+1]; len(p) != 1 || p[0] != '*' {
				o.Match = p
			} else {
				o.Match = nil
			}
		default:
			return o, command.ErrSyntax
		}
	}
	return o, ""
}

// Matches reports whether key passes the MATCH pattern.
func (o Options) Matches(key string) bool {
	return o.Match == nil || glob.Matches(o.Match, key)
}

// Batch is how many elements a call over a collection of n aims for.
func (o Options) Batch(n int) int {
	return max(o.Count, (n+Slices-1)/Slices)
}

// OneCall reports whether a call from cursor returns all of a collection
// of n elements at once: a small one whatever the cursor, as Redis
// ignores the cursor of its small (listpack and intset) encodings, and
// one COUNT covers from cursor 0.
func (o Options) OneCall(cursor uint64, n int) bool {
	return n <= Whole || (cursor == 0 && n <= o.Count)
}

// WriteHeader starts a SCAN-family reply: the next cursor, then an array
// of n elements the caller writes. It is an array in RESP3 too.
func WriteHeader(c *command.Ctx, next uint64, n int) {
	c.W.Array(2)
	c.W.Bulk(strconv.AppendUint(nil, next, 10))
	c.W.Array(n)
}

// Hash is 64-bit FNV-1a: fixed across processes and builds, and cheap on
// the short strings fields and members usually are.
func Hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
