package setcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/random"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// spop is SPOP key [count]. Which members go is chance, so the command is
// logged as SREM of exactly the members it removed.
func spop(c *command.Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(command.ErrSyntax)
		return
	}
	if len(c.Args) == 2 {
		s, key, ok := command.LookupWriteKey[set](c)
		switch {
		case !ok:
		case s == nil:
			c.W.Null()
		default:
			m := random.Key(s)
			popMembers(c, key, s, []string{m})
			c.W.BulkString(m)
		}
		return
	}
	// Redis 7 gives the same message for a negative count and for one
	// that is not a number.
	count, ok := command.ParseInt(c.Args[2])
	if !ok || count < 0 {
		c.W.Error(command.ErrPositive)
		return
	}
	s, key, ok := command.LookupWriteKey[set](c)
	if !ok {
		return
	}
	if s == nil || count == 0 {
		c.W.Set(0)
		return
	}
	var popped []string
	if count >= int64(len(s)) {
		popped = allMembers(s, c.DB.Shapes.Get().SetIntsetEntries)
	} else {
		popped = random.Distinct(s, int(count))
	}
	popMembers(c, key, s, popped)
	// A set in RESP3, as Redis 7 answers SPOP with a count.
	writeMembers(c, popped)
}

// popMembers removes members (all in s, key's set) and logs the removal.
func popMembers(c *command.Ctx, key string, s set, members []string) {
	argv := make([][]byte, 0, 2+len(members))
	argv = append(argv, []byte("SREM"), c.Args[1])
	for _, m := range members {
		delete(s, m)
		argv = append(argv, []byte(m))
	}
	c.NotifyString(notify.Set, "spop", key)
	c.Changed(key, len(s), 1)
	c.Propagate(argv...)
}

// srandmember is SRANDMEMBER key [count]; a negative count allows repeats.
// It changes nothing, so chance never reaches the log.
func srandmember(c *command.Ctx) {
	random.Run(c, "", random.Key[struct{}], writeRandom)
}

// writeRandom answers SRANDMEMBER's picks from s: distinct members for a
// positive count, independent draws for a negative one. The reply is an
// array even in RESP3: the picks may repeat and their order is part of
// the answer (Redis changed this from a set in 6.2).
func writeRandom(c *command.Ctx, s set, a random.Args) {
	switch {
	case a.Count < 0:
		c.W.Array(int(-a.Count))
		random.Repeats(s, int(-a.Count), func(m string) { c.W.BulkString(m) })
	case a.Count >= int64(len(s)):
		c.W.Array(len(s))
		eachMember(s, c.DB.Shapes.Get().SetIntsetEntries, func(m string) { c.W.BulkString(m) })
	default:
		picks := random.Distinct(s, int(a.Count))
		c.W.Array(len(picks))
		for _, m := range picks {
			c.W.BulkString(m)
		}
	}
}
