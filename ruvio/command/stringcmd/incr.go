package stringcmd

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/longdouble"
	"github.com/ruvio/ruvio/ruvio/notify"
)

func incr(c *command.Ctx) { incrBy(c, 1) }
func decr(c *command.Ctx) { incrBy(c, -1) }

func incrby(c *command.Ctx) {
	n, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	incrBy(c, n)
}

func decrby(c *command.Ctx) {
	n, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	if n == math.MinInt64 {
		// Its negation does not fit; Redis 7 refuses it up front.
		c.W.Error("ERR decrement would overflow")
		return
	}
	incrBy(c, -n)
}

// incrBy adds delta to the integer stored at key (0 when missing). The key
// keeps its time to live: the value is replaced inside the live entry.
// Replaying the command verbatim reaches the same value, so it logs itself.
func incrBy(c *command.Ctx, delta int64) {
	e, key := c.DB.GetForWrite(c.Args[1])
	val, ok := command.As[[]byte](c, e)
	if !ok {
		return
	}
	var cur int64
	if e != nil {
		if cur, ok = command.ParseInt(val); !ok {
			c.W.Error(command.ErrNotInteger)
			return
		}
	}
	if cur, ok = command.AddInt(cur, delta); !ok {
		c.W.Error(command.ErrOverflow)
		return
	}
	// As many digits as before are written over the old ones (see
	// keyspace.DB.SetStringFound); the key keeps its time to live.
	var buf [20]byte
	var expireAt int64
	if e != nil {
		expireAt = e.ExpireAt
	}
	digits := strconv.AppendInt(buf[:0], cur, 10)
	c.DB.SetStringFound(key, e, digits, expireAt)
	c.Dirty++
	c.NotifyString(notify.String, "incrby", key)
	c.W.IntDigits(digits) // the value's own digits: formatted once
}

// incrbyfloat is INCRBYFLOAT key increment, computed in long double
// precision as Redis does (see package longdouble). It is logged as SET ...
// KEEPTTL of the result so that replay never redoes float arithmetic.
func incrbyfloat(c *command.Ctx) {
	key := string(c.Args[1])
	e, val, ok := lookupWrite(c, key)
	if !ok {
		return
	}
	cur := longdouble.Zero()
	if e != nil {
		if cur, ok = longdouble.Parse(val); !ok {
			c.W.Error(command.ErrNotFloat)
			return
		}
	}
	inc, ok := longdouble.Parse(c.Args[2])
	if !ok {
		c.W.Error(command.ErrNotFloat)
		return
	}
	sum, ok := longdouble.Add(cur, inc)
	if !ok {
		c.W.Error(command.ErrNaN)
		return
	}
	out := longdouble.Format(sum)
	replace(c, key, e, out, "incrbyfloat")
	c.Propagate([]byte("SET"), c.Args[1], out, []byte("KEEPTTL"))
	c.W.Bulk(out)
}
