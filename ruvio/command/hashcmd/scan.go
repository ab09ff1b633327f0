package hashcmd

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/glob"
)

// Cursors of HSCAN and SSCAN (and anything else scanning a Go map).
//
// Redis's cursor walks its hash table's buckets in reverse-binary order,
// which keeps working while the table grows or shrinks. A Go map has no
// stable iteration order, so the cursor here walks a different order
// instead: every element's 64-bit FNV-1a hash. The cursor is the smallest
// hash the next call returns; a call returns the elements whose hash lies
// in [cursor, bound] and answers bound+1 (0 once the top was reached).
// Those intervals tile the whole hash space, so an element present for the
// whole iteration is returned, and an element's hash never changes, so it
// is returned once (only elements added or removed meanwhile may or may
// not appear, as in Redis). FNV with its fixed basis, rather than maphash
// with a per-process seed, makes a cursor mean the same on every node, so
// an iteration survives a failover to a replica.
//
// Finding the elements of one call costs a pass over the whole map (no
// index is kept beside the value; the pass is memory-bound, roughly 0.1 s
// per million elements), so to bound a full iteration to O(n × ScanSlices)
// work, COUNT is treated as the hint Redis documents it to be: a call
// returns at least 1/ScanSlices of the map. Calls of O(COUNT) would need
// the sorted order kept between calls, a snapshot per iteration. Collections of
// at most ScanWhole elements are returned whole on the first call with
// cursor 0, as Redis does for its small (listpack and intset) encodings.
const (
	ScanWhole  = 128
	ScanSlices = 64
)

// ScanOptions are a SCAN-family command's COUNT and MATCH.
type ScanOptions struct {
	// Count is how many elements to aim for per call.
	Count int
	// Match, unless nil, is the glob pattern elements must match.
	Match []byte
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

// ParseScanOptions reads COUNT and MATCH; anything else is a syntax
// error. It returns the error reply to send, or "".
func ParseScanOptions(args [][]byte) (ScanOptions, string) {
	o := ScanOptions{Count: 10}
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
			// "*" matches everything; skipping it saves the glob calls.
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
func (o ScanOptions) Matches(key string) bool {
	return o.Match == nil || glob.Match(o.Match, []byte(key))
}

// ScanMap returns the keys of m one call of a scan starting at cursor
// returns, and the cursor of the next call (0 when the scan is complete).
func ScanMap[V any](m map[string]V, cursor uint64, o ScanOptions) (next uint64, keys []string) {
	n := len(m)
	if cursor == 0 && n <= max(ScanWhole, o.Count) {
		keys = make([]string, 0, n)
		for k := range m {
			if o.Matches(k) {
				keys = append(keys, k)
			}
		}
		return 0, keys
	}
	batch := max(o.Count, (n+ScanSlices-1)/ScanSlices)
	sel := selector{limit: batch, heap: make([]scanEntry, 0, min(batch, n))}
	for k := range m {
		if h := scanHash(k); h >= cursor && o.Matches(k) {
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

// scanHash is 64-bit FNV-1a: fixed across processes and builds, and cheap
// on the short strings fields and members usually are.
func scanHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

type scanEntry struct {
	h   uint64
	key string
}

// selector keeps the limit candidates of smallest hash in a max-heap, plus
// every other candidate whose hash equals the largest kept one: a call
// must return all elements sharing its bound's hash, or a collision at the
// boundary would lose one (the next call starts past the bound).
type selector struct {
	limit int
	heap  []scanEntry
	ties  []string
}

func (s *selector) offer(h uint64, key string) {
	if len(s.heap) < s.limit {
		s.heap = append(s.heap, scanEntry{h, key})
		s.up(len(s.heap) - 1)
		return
	}
	top := s.heap[0]
	switch {
	case h > top.h:
	case h == top.h:
		s.ties = append(s.ties, key)
	default:
		s.heap[0] = scanEntry{h, key}
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

// hscan answers [cursor, [field, value, ...]], an array in RESP3 too.
func hscan(c *command.Ctx) {
	cursor, ok := ParseCursor(c.Args[2])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if h == nil {
		// Like Redis: a missing key answers an empty scan before the
		// options are even looked at.
		WriteScan(c, 0, 0)
		return
	}
	o, errMsg := ParseScanOptions(c.Args[3:])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	next, fields := ScanMap(h, cursor, o)
	WriteScan(c, next, 2*len(fields))
	for _, f := range fields {
		c.W.BulkString(f)
		c.W.Bulk(h[f])
	}
}

// WriteScan starts a SCAN-family reply: the next cursor, then an array of
// n elements the caller writes.
func WriteScan(c *command.Ctx, next uint64, n int) {
	c.W.Array(2)
	c.W.Bulk(strconv.AppendUint(nil, next, 10))
	c.W.Array(n)
}
