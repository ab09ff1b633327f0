package tokencmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// once is ONCE key ttl-ms: 1 the first time key is marked within its time
// to live (it is set then), 0 while the mark stands. A consumer that must
// handle a message at most once asks ONCE with the message's ID.
func once(c *command.Ctx) {
	at, ok := deadline(c, c.Args[2], "once")
	if !ok {
		return
	}
	e, key := c.DB.GetForWrite(c.Args[1])
	if _, ok := command.As[[]byte](c, e); !ok {
		return
	}
	if e != nil {
		c.W.Int(0)
		return
	}
	c.DB.SetWithExpiry(key, keyspace.NewString([]byte("1")), at)
	c.Dirty++
	c.NotifyString(notify.String, "set", key)
	c.Propagate([]byte("SET"), c.Args[1], []byte("1"), []byte("PXAT"), command.FormatInt(at))
	c.W.Int(1)
}

// limit is LIMIT key max window-ms [COST n]: a fixed window of window-ms
// that opens at the first request it counts and admits up to max units.
// A request of cost n (1 by default; 0 only looks) is admitted when the
// window's count plus n is at most max, and then counted. The reply is
// [admitted (1 or 0), units left in the window, ms until it closes]; a
// refused request counts nothing.
func limit(c *command.Ctx) {
	most, ok := count(c, c.Args[2], 0)
	if !ok {
		return
	}
	window, ok := count(c, c.Args[3], 1)
	if !ok {
		return
	}
	cost := int64(1)
	switch rest := c.Args[4:]; {
	case len(rest) == 0:
	case len(rest) == 2 && command.Eq(rest[0], "cost"):
		if cost, ok = count(c, rest[1], 0); !ok {
			return
		}
	default:
		c.W.Error(command.ErrSyntax)
		return
	}
	if window > 1<<62-c.Now {
		c.W.Error(command.ErrInvalidExpireIn("limit"))
		return
	}
	e, key := c.DB.GetForWrite(c.Args[1])
	val, ok := command.As[[]byte](c, e)
	if !ok {
		return
	}
	var used int64
	at := c.Now + window
	if e != nil {
		if used, ok = command.ParseInt(val); !ok || used < 0 {
			c.W.Error("ERR the key does not hold a LIMIT count")
			return
		}
		if e.ExpireAt > 0 {
			at = e.ExpireAt
		}
	}
	admitted := cost <= most-used
	if admitted && cost > 0 {
		used += cost
		c.DB.SetWithExpiry(key, keyspace.NewString(command.FormatInt(used)), at)
		c.Dirty++
		c.NotifyString(notify.String, "set", key)
		c.Propagate([]byte("SET"), c.Args[1], command.FormatInt(used), []byte("PXAT"), command.FormatInt(at))
	}
	c.W.Array(3)
	if admitted {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
	c.W.Int(max(most-used, 0))
	if e == nil && !(admitted && cost > 0) {
		c.W.Int(0) // no window runs
	} else {
		c.W.Int(ttlLeft(at, c.Now))
	}
}
