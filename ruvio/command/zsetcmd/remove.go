package zsetcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// removeFrom is the shared tail of ZREM and the ZREMRANGEBY commands once
// their arguments parsed: look the key up and let remove delete from its
// set, answering how many elements went.
func removeFrom(c *command.Ctx, remove func(*sortedset.Set) int) {
	key := string(c.Args[1])
	s, ok := writeSet(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	n := remove(s)
	if n > 0 {
		notifyAsSent(c, key)
	}
	c.Changed(key, s.Len(), n)
	c.W.Int(int64(n))
}

// zremrangebyscore is ZREMRANGEBYSCORE key min max.
func zremrangebyscore(c *command.Ctx) {
	lo, hi, ok := parseScoreRange(c, c.Args[2], c.Args[3])
	if !ok {
		return
	}
	removeFrom(c, func(s *sortedset.Set) int { return s.RemoveRangeByScore(lo, hi) })
}

// zremrangebylex is ZREMRANGEBYLEX key min max.
func zremrangebylex(c *command.Ctx) {
	lo, hi, ok := parseLexRange(c, c.Args[2], c.Args[3])
	if !ok {
		return
	}
	removeFrom(c, func(s *sortedset.Set) int { return s.RemoveRangeByLex(lo, hi) })
}

// zremrangebyrank is ZREMRANGEBYRANK key start stop.
func zremrangebyrank(c *command.Ctx) {
	start, stop, ok := c.IntArgs(c.Args[2], c.Args[3])
	if !ok {
		return
	}
	removeFrom(c, func(s *sortedset.Set) int {
		lo, hi, ok := rankSpan(start, stop, s.Len())
		if !ok {
			return 0
		}
		return s.RemoveRangeByRank(lo, hi)
	})
}

// pop removes up to count of s's lowest (or highest, when top is set)
// elements, deleting key when s empties.
func pop(c *command.Ctx, key string, s *sortedset.Set, top bool, count int) []sortedset.Item {
	var items []sortedset.Item
	if top {
		items = s.PopMax(count)
	} else {
		items = s.PopMin(count)
	}
	if len(items) > 0 {
		event := "zpopmin"
		if top {
			event = "zpopmax"
		}
		c.NotifyString(notify.Zset, event, key)
	}
	c.Changed(key, s.Len(), len(items))
	return items
}

// popCmd returns ZPOPMIN (top false) or ZPOPMAX key [count]. It pops the
// ends of the set, a function of the set alone, so it replays as sent.
//
// The reply is flat [member, score, ...], except in RESP3 when a count was
// given: an array of [member, score] pairs, as in Redis 7.
func popCmd(top bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		if len(c.Args) > 3 {
			c.W.Error(command.ErrSyntax)
			return
		}
		count := int64(-1) // no count argument
		if len(c.Args) == 3 {
			// Redis's getPositiveLongFromObjectOrReply answers one error
			// for both a non-integer and a negative count.
			n, ok := command.ParseInt(c.Args[2])
			if !ok || n < 0 {
				c.W.Error(command.ErrPositive)
				return
			}
			count = n
		}
		key := string(c.Args[1])
		s, ok := writeSet(c, key)
		if !ok {
			return
		}
		if s == nil || count == 0 {
			c.W.Array(0)
			return
		}
		nested := count != -1 && c.W.Proto >= 3
		n := min(count, int64(s.Len()))
		if count == -1 {
			n = 1
		}
		items := pop(c, key, s, top, int(n))
		if nested {
			c.W.Array(len(items))
		} else {
			c.W.Array(2 * len(items))
		}
		for _, it := range items {
			if nested {
				c.W.Array(2)
			}
			c.W.BulkString(it.Member)
			writeScore(c.W, it.Score)
		}
	}
}

// bpopCmd returns BZPOPMIN (top false) or BZPOPMAX key [key ...] timeout:
// pop one element from the first key in argument order that holds a
// sorted set, answering [key, member, score], under the list family's
// blocking contract (see command.BlockingPop). Served at once, it is
// propagated as ZPOPMIN/ZPOPMAX key; inside MULTI it answers the null
// array a timeout would.
func bpopCmd(top bool) func(*command.Ctx) {
	name := "ZPOPMIN"
	if top {
		name = "ZPOPMAX"
	}
	return func(c *command.Ctx) {
		command.BlockingPop(c, func(k []byte, s *sortedset.Set) {
			items := pop(c, string(k), s, top, 1)
			c.W.Array(3)
			c.W.Bulk(k)
			c.W.BulkString(items[0].Member)
			writeScore(c.W, items[0].Score)
			c.Propagate([]byte(name), k)
		}, func(c *command.Ctx) { c.W.NullArray() })
	}
}
