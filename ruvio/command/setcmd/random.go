package setcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
)

// spop is SPOP key [count]. Which members go is chance, so the command is
// logged as SREM of exactly the members it removed.
func spop(c *command.Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(command.ErrSyntax)
		return
	}
	key := string(c.Args[1])
	if len(c.Args) == 2 {
		s, ok := lookup(c, key, false)
		switch {
		case !ok:
		case s == nil:
			c.W.Null()
		default:
			m := hashcmd.RandomKey(s)
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
	s, ok := lookup(c, key, false)
	if !ok {
		return
	}
	if s == nil || count == 0 {
		c.W.Set(0)
		return
	}
	var popped []string
	if count >= int64(len(s)) {
		popped = make([]string, 0, len(s))
		for m := range s {
			popped = append(popped, m)
		}
	} else {
		popped = hashcmd.DistinctKeys(s, int(count))
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
	if len(s) == 0 {
		c.DB.Delete(key)
	} else {
		c.DB.Touch(key)
	}
	c.Dirty++
	c.Propagate(argv...)
}

// srandmember is SRANDMEMBER key [count]; a negative count allows repeats.
// It changes nothing, so chance never reaches the log.
func srandmember(c *command.Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(command.ErrSyntax)
		return
	}
	key := string(c.Args[1])
	if len(c.Args) == 2 {
		s, ok := lookup(c, key, true)
		switch {
		case !ok:
		case s == nil:
			c.W.Null()
		default:
			c.W.BulkString(hashcmd.RandomKey(s))
		}
		return
	}
	count, errMsg := hashcmd.ParseRandCount(c.Args[2])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	s, ok := lookup(c, key, true)
	if !ok {
		return
	}
	// Arrays even in RESP3: the picks may repeat and their order is part
	// of the answer (Redis changed this from a set in 6.2).
	switch {
	case s == nil || count == 0:
		c.W.Array(0)
	case count < 0:
		c.W.Array(int(-count))
		hashcmd.RandomKeys(s, int(-count), func(m string) { c.W.BulkString(m) })
	case count >= int64(len(s)):
		c.W.Array(len(s))
		for m := range s {
			c.W.BulkString(m)
		}
	default:
		picks := hashcmd.DistinctKeys(s, int(count))
		c.W.Array(len(picks))
		for _, m := range picks {
			c.W.BulkString(m)
		}
	}
}
