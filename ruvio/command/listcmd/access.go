package listcmd

import (
	"bytes"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// Redis parses the range of LRANGE and LTRIM before looking the key up,
// but LINDEX's and LSET's index after: the order decides which error a
// client sees and is kept.

func lrange(c *command.Ctx) {
	start, stop, ok := c.IntArgs(c.Args[2], c.Args[3])
	if !ok {
		return
	}
	l, ok := readList(c, string(c.Args[1]))
	if !ok {
		return
	}
	if l == nil {
		c.W.Array(0)
		return
	}
	lo, n := deque.Span(start, stop, l.Len())
	c.W.Array(n)
	for i := lo; i < lo+n; i++ {
		c.W.Bulk(l.Index(i))
	}
}

// position converts a Redis index (negative counts from the end) into a
// position in a list of n elements; ok is false when it is out of range.
func position(idx int64, n int) (int, bool) {
	if idx < 0 {
		idx += int64(n)
	}
	if idx < 0 || idx >= int64(n) {
		return 0, false
	}
	return int(idx), true
}

func lindex(c *command.Ctx) {
	l, ok := readList(c, string(c.Args[1]))
	if !ok {
		return
	}
	if l == nil {
		c.W.Null()
		return
	}
	idx, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	if i, in := position(idx, l.Len()); in {
		c.W.Bulk(l.Index(i))
	} else {
		c.W.Null()
	}
}

func lset(c *command.Ctx) {
	key := string(c.Args[1])
	l, ok := writeList(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Error(command.ErrNoSuchKey)
		return
	}
	idx, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	i, in := position(idx, l.Len())
	if !in {
		c.W.Error(command.ErrIndexOutOfRange)
		return
	}
	l.Set(i, c.Args[3]) // the list keeps a copy
	modified(c, key, l, "lset")
	c.W.OK()
}

func linsert(c *command.Ctx) {
	var after bool
	switch {
	case command.Eq(c.Args[2], "after"):
		after = true
	case command.Eq(c.Args[2], "before"):
	default:
		c.W.Error(command.ErrSyntax)
		return
	}
	key := string(c.Args[1])
	l, ok := writeList(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	pivot := c.Args[3]
	for i := 0; i < l.Len(); i++ {
		if !bytes.Equal(l.Index(i), pivot) {
			continue
		}
		if after {
			i++
		}
		l.Insert(i, c.Args[4]) // the list keeps a copy
		modified(c, key, l, "linsert")
		c.W.Int(int64(l.Len()))
		return
	}
	c.W.Int(-1)
}

func lrem(c *command.Ctx) {
	count, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	key := string(c.Args[1])
	l, ok := writeList(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	elem := c.Args[3]
	removed := l.Remove(count, func(b []byte) bool { return bytes.Equal(b, elem) })
	if removed > 0 {
		modified(c, key, l, "lrem")
	}
	c.W.Int(int64(removed))
}

func ltrim(c *command.Ctx) {
	start, stop, ok := c.IntArgs(c.Args[2], c.Args[3])
	if !ok {
		return
	}
	key := string(c.Args[1])
	l, ok := writeList(c, key)
	if !ok {
		return
	}
	if l != nil {
		if l.Trim(start, stop) > 0 {
			modified(c, key, l, "ltrim")
		} else {
			c.Notify(notify.List, "ltrim", c.Args[1])
			// Redis signals the key even when nothing was cut, so a
			// WATCH on it fails; there is nothing to log.
			c.DB.Touch(key)
		}
	}
	c.W.OK()
}

// Error texts of LPOS's options, as Redis 7 words them.
const (
	errRankZero      = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	errRankRange     = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errCountNegative = "ERR COUNT can't be negative"
	errMaxlenNeg     = "ERR MAXLEN can't be negative"
)

// lpos is LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
// Positions are always counted from the head, whichever way RANK scans.
func lpos(c *command.Ctx) {
	rank, count, maxlen := int64(1), int64(-1), int64(0) // count -1: no COUNT
	for i := 3; i < len(c.Args); i++ {
		opt, more := c.Args[i], i+1 < len(c.Args)
		var ok bool
		switch {
		case command.Eq(opt, "rank") && more:
			i++
			if rank, ok = c.IntArg(c.Args[i]); !ok {
				return
			}
			if rank == -1<<63 {
				// Its negation, the scan from the tail, would overflow.
				c.W.Error(errRankRange)
				return
			}
			if rank == 0 {
				c.W.Error(errRankZero)
				return
			}
		case command.Eq(opt, "count") && more:
			i++
			if count, ok = parsePositive(c, c.Args[i], errCountNegative); !ok {
				return
			}
		case command.Eq(opt, "maxlen") && more:
			i++
			if maxlen, ok = parsePositive(c, c.Args[i], errMaxlenNeg); !ok {
				return
			}
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}
	l, ok := readList(c, string(c.Args[1]))
	if !ok {
		return
	}
	if l == nil {
		if count != -1 {
			c.W.Array(0)
		} else {
			c.W.Null()
		}
		return
	}
	matches := findMatches(l, c.Args[2], rank, count, maxlen)
	if count == -1 {
		if len(matches) == 0 {
			c.W.Null()
		} else {
			c.W.Int(matches[0])
		}
		return
	}
	c.W.Array(len(matches))
	for _, m := range matches {
		c.W.Int(m)
	}
}

// findMatches scans l for elem from the head (rank > 0) or the tail
// (rank < 0), looking at no more than maxlen elements (0: all), skips the
// first |rank|-1 matches and returns the positions of up to count of the
// rest (count 0: all; -1: one, for LPOS without COUNT).
func findMatches(l *deque.Deque, elem []byte, rank, count, maxlen int64) []int64 {
	fromTail := rank < 0
	if fromTail {
		rank = -rank
	}
	want := count
	if want == -1 {
		want = 1
	}
	n := int64(l.Len())
	if maxlen == 0 || maxlen > n {
		maxlen = n
	}
	var out []int64
	var seen int64
	for k := int64(0); k < maxlen; k++ {
		pos := k
		if fromTail {
			pos = n - 1 - k
		}
		if !bytes.Equal(l.Index(int(pos)), elem) {
			continue
		}
		if seen++; seen < rank {
			continue
		}
		out = append(out, pos)
		if want != 0 && int64(len(out)) >= want {
			break
		}
	}
	return out
}
