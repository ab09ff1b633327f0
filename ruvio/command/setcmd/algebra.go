package setcmd

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// sources looks up every key as a set with lookup (readSet or writeSet),
// nil standing for a missing key. As in Redis 7 every key's type is
// checked before any result is computed: ok is false, WRONGTYPE written,
// when one holds another type.
func sources(c *command.Ctx, keys [][]byte, lookup func(*command.Ctx, string) (set, bool)) ([]set, bool) {
	sets := make([]set, len(keys))
	for i, k := range keys {
		s, ok := lookup(c, string(k))
		if !ok {
			return nil, false
		}
		sets[i] = s
	}
	return sets, true
}

// inter calls fn with each member common to all sets (none when one is
// missing) until fn returns false. It walks the smallest set and probes
// the others.
func inter(sets []set, fn func(m string) bool) {
	smallest := -1
	for i, s := range sets {
		if len(s) == 0 {
			return
		}
		if smallest < 0 || len(s) < len(sets[smallest]) {
			smallest = i
		}
	}
	if smallest < 0 {
		return
	}
next:
	for m := range sets[smallest] {
		for i, s := range sets {
			if i == smallest {
				continue
			}
			if _, in := s[m]; !in {
				continue next
			}
		}
		if !fn(m) {
			return
		}
	}
}

// union returns a new set holding every member of sets.
func union(sets []set) set {
	n := 0
	for _, s := range sets {
		n = max(n, len(s))
	}
	out := make(set, n)
	for _, s := range sets {
		for m := range s {
			out[m] = struct{}{}
		}
	}
	return out
}

// diff calls fn with each member of the first set found in none of the
// others.
func diff(sets []set, fn func(m string)) {
next:
	for m := range sets[0] {
		for _, s := range sets[1:] {
			if _, in := s[m]; in {
				continue next
			}
		}
		fn(m)
	}
}

func sinter(c *command.Ctx) {
	sets, ok := sources(c, c.Args[1:], readSet)
	if !ok {
		return
	}
	var out []string
	inter(sets, func(m string) bool { out = append(out, m); return true })
	writeMembers(c, out)
}

func sunion(c *command.Ctx) {
	sets, ok := sources(c, c.Args[1:], readSet)
	if !ok {
		return
	}
	u := union(sets)
	c.W.Set(len(u))
	eachMember(u, c.DB.Shapes.Get().SetIntsetEntries, func(m string) { c.W.BulkString(m) })
}

func sdiff(c *command.Ctx) {
	sets, ok := sources(c, c.Args[1:], readSet)
	if !ok {
		return
	}
	var out []string
	diff(sets, func(m string) { out = append(out, m) })
	writeMembers(c, out)
}

// storeResult replaces dst with result (a set no other key shares), or
// deletes dst when result is empty, and answers the result's size. The
// *STORE commands are logged as sent: given the same sources, replay
// computes the same set.
func storeResult(c *command.Ctx, dst string, result set) {
	switch {
	case len(result) > 0:
		c.DB.Set(dst, result)
		c.Dirty++
		if c.Notes.Wants(notify.Set) {
			c.NotifyString(notify.Set, strings.ToLower(string(c.Args[0])), dst)
		}
	case c.DB.Delete(dst):
		c.Dirty++
		c.NotifyString(notify.Generic, "del", dst)
	}
	// An empty result over a missing dst changes nothing, and, as in
	// redis-server 7.0, fails no WATCH on it.
	c.W.Int(int64(len(result)))
}

func sinterstore(c *command.Ctx) {
	sets, ok := sources(c, c.Args[2:], writeSet)
	if !ok {
		return
	}
	out := make(set)
	inter(sets, func(m string) bool { out[m] = struct{}{}; return true })
	storeResult(c, string(c.Args[1]), out)
}

func sunionstore(c *command.Ctx) {
	sets, ok := sources(c, c.Args[2:], writeSet)
	if !ok {
		return
	}
	storeResult(c, string(c.Args[1]), union(sets))
}

func sdiffstore(c *command.Ctx) {
	sets, ok := sources(c, c.Args[2:], writeSet)
	if !ok {
		return
	}
	out := make(set)
	diff(sets, func(m string) { out[m] = struct{}{} })
	storeResult(c, string(c.Args[1]), out)
}

// sintercard is SINTERCARD numkeys key [key ...] [LIMIT limit]: the size
// of the intersection, counting stopped at limit (0 = no limit).
func sintercard(c *command.Ctx) {
	numkeys, ok := command.ParseInt(c.Args[1])
	if !ok || numkeys < 1 {
		c.W.Error("ERR numkeys should be greater than 0")
		return
	}
	if numkeys > int64(len(c.Args)-2) {
		c.W.Error("ERR Number of keys can't be greater than number of args")
		return
	}
	keysEnd := 2 + int(numkeys)
	var limit int64
	for i := keysEnd; i < len(c.Args); i++ {
		if !command.Eq(c.Args[i], "limit") || i+1 >= len(c.Args) {
			c.W.Error(command.ErrSyntax)
			return
		}
		i++
		// Redis gives one message for a negative limit and for one that
		// is not a number.
		if limit, ok = command.ParseInt(c.Args[i]); !ok || limit < 0 {
			c.W.Error("ERR LIMIT can't be negative")
			return
		}
	}
	sets, ok := sources(c, c.Args[2:keysEnd], readSet)
	if !ok {
		return
	}
	var n int64
	inter(sets, func(string) bool {
		n++
		return limit == 0 || n < limit
	})
	c.W.Int(n)
}
