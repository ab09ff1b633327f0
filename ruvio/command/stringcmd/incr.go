package stringcmd

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/longdouble"
	"github.com/ruvio/ruvio/ruvio/keyspace"
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
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], cur, 10)
	if e != nil && len(digits) == len(val) {
		// As many digits as before: written over the old ones, which
		// allocates nothing (see keyspace.DB.SetStringFound). A running
		// snapshot keeps the old ones first.
		c.DB.WillModify(key)
		copy(val, digits)
		replace(c, key, e, e.Val, "incrby")
	} else {
		replace(c, key, e, keyspace.NewString(digits), "incrby")
	}
	c.W.Int(cur)
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
