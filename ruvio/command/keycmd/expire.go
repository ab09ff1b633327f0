package keycmd

import (
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// expireCond is the NX/XX/GT/LT condition of the EXPIRE family.
type expireCond struct{ nx, xx, gt, lt bool }

// parseExpireCond reads the options after the time, with Redis 7's errors.
func parseExpireCond(args [][]byte) (expireCond, string) {
	var o expireCond
	if n := command.ParseFlags(args, []string{"nx", "xx", "gt", "lt"}, &o.nx, &o.xx, &o.gt, &o.lt); n < len(args) {
		return o, "ERR Unsupported option " + string(args[n])
	}
	if o.nx && (o.xx || o.gt || o.lt) {
		return o, "ERR NX and XX, GT or LT options at the same time are not compatible"
	}
	if o.gt && o.lt {
		return o, "ERR GT and LT options at the same time are not compatible"
	}
	return o, ""
}

// allows reports whether the condition lets expiry move from cur (0 = no
// expiry, which GT and LT treat as infinite) to when.
func (o expireCond) allows(cur, when int64) bool {
	switch {
	case o.nx && cur != 0:
		return false
	case o.xx && cur == 0:
		return false
	case o.gt && (cur == 0 || when <= cur):
		return false
	case o.lt && cur != 0 && when >= cur:
		return false
	}
	return true
}

func expire(c *command.Ctx)    { expireGeneric(c, "expire", 1000, true) }
func pexpire(c *command.Ctx)   { expireGeneric(c, "pexpire", 1, true) }
func expireat(c *command.Ctx)  { expireGeneric(c, "expireat", 1000, false) }
func pexpireat(c *command.Ctx) { expireGeneric(c, "pexpireat", 1, false) }

// expireGeneric is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: the time is
// in seconds (unitMs 1000) or milliseconds, from now or from the epoch.
// A time not in the future deletes the key (logged as DEL); otherwise the
// effect is logged as PEXPIREAT with the absolute time, so replay neither
// restarts the clock nor re-evaluates the condition.
func expireGeneric(c *command.Ctx, name string, unitMs int64, relative bool) {
	cond, errMsg := parseExpireCond(c.Args[3:])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	when, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	// Negative times are allowed (they delete), but not overflow.
	if unitMs != 1 {
		if when > math.MaxInt64/unitMs || when < math.MinInt64/unitMs {
			c.W.Error(command.ErrInvalidExpireIn(name))
			return
		}
		when *= unitMs
	}
	if relative {
		if when > math.MaxInt64-c.Now {
			c.W.Error(command.ErrInvalidExpireIn(name))
			return
		}
		when += c.Now
	}
	key := string(c.Args[1])
	e := c.DB.Get(key)
	if e == nil || !cond.allows(e.ExpireAt, when) {
		c.W.Int(0)
		return
	}
	c.Dirty++
	// While a log is replayed (or a replica applies its stream) a time
	// already past is stored, not acted on, as Redis does when loading:
	// the log's later records decide what happens to the key.
	if when <= c.Now && !c.DB.Loading {
		c.DB.Delete(key)
		c.Notify(notify.Generic, "del", c.Args[1])
		c.Propagate([]byte("DEL"), c.Args[1])
	} else {
		c.DB.SetExpire(key, when)
		c.Notify(notify.Generic, "expire", c.Args[1])
		c.Propagate([]byte("PEXPIREAT"), c.Args[1], command.FormatInt(when))
	}
	c.W.Int(1)
}

func ttl(c *command.Ctx)         { ttlGeneric(c, false, false) }
func pttl(c *command.Ctx)        { ttlGeneric(c, true, false) }
func expiretime(c *command.Ctx)  { ttlGeneric(c, false, true) }
func pexpiretime(c *command.Ctx) { ttlGeneric(c, true, true) }

// ttlGeneric answers -2 for a missing key, -1 for one without expiry, else
// the remaining time (or with abs the Unix time of expiry), in ms or in
// seconds rounded to nearest as Redis does.
func ttlGeneric(c *command.Ctx, ms, abs bool) {
	e := c.DB.ReadNoTouch(string(c.Args[1])) // the access time stays, as in Redis
	switch {
	case e == nil:
		c.W.Int(-2)
		return
	case e.ExpireAt == 0:
		c.W.Int(-1)
		return
	}
	t := e.ExpireAt
	if !abs {
		t = max(t-c.Now, 0)
	}
	if !ms {
		// Rounded to the nearest second without t+500, which wraps for
		// times within 500 ms of the largest one.
		q, r := t/1000, t%1000
		if r >= 500 {
			q++
		}
		t = q
	}
	c.W.Int(t)
}

// persist is PERSIST key: 1 when a time to live was removed.
func persist(c *command.Ctx) {
	key := string(c.Args[1])
	e := c.DB.Get(key)
	if e == nil || e.ExpireAt == 0 {
		c.W.Int(0)
		return
	}
	c.DB.SetExpire(key, 0)
	c.Dirty++
	c.Notify(notify.Generic, "persist", c.Args[1])
	c.W.Int(1)
}
