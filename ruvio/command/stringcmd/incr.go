package stringcmd

import (
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
)

func incr(c *command.Ctx) { incrBy(c, 1) }
func decr(c *command.Ctx) { incrBy(c, -1) }

func incrby(c *command.Ctx) {
	n, ok := command.ParseInt(c.Args[2])
	if !ok {
		c.W.Error(command.ErrNotInteger)
		return
	}
	incrBy(c, n)
}

func decrby(c *command.Ctx) {
	n, ok := command.ParseInt(c.Args[2])
	if !ok {
		c.W.Error(command.ErrNotInteger)
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
	key := string(c.Args[1])
	e, val, ok := lookupWrite(c, key)
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
	if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) ||
		(delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
		c.W.Error(command.ErrOverflow)
		return
	}
	cur += delta
	out := command.FormatInt(cur)
	if e != nil {
		e.Val = out
		c.DB.Touch(key)
	} else {
		c.DB.Set(key, out)
	}
	c.Dirty++
	c.W.Int(cur)
}

// incrbyfloat is INCRBYFLOAT key increment, computed in x87 long double
// precision as Redis does (see longdouble.go). It is logged as SET ...
// KEEPTTL of the result so that replay never redoes float arithmetic.
func incrbyfloat(c *command.Ctx) {
	key := string(c.Args[1])
	e, val, ok := lookupWrite(c, key)
	if !ok {
		return
	}
	cur := zeroLongDouble()
	if e != nil {
		if cur, ok = parseLongDouble(val); !ok {
			c.W.Error(command.ErrNotFloat)
			return
		}
	}
	inc, ok := parseLongDouble(c.Args[2])
	if !ok {
		c.W.Error(command.ErrNotFloat)
		return
	}
	sum, ok := addLongDouble(cur, inc)
	if !ok {
		c.W.Error(command.ErrNaN)
		return
	}
	out := formatLongDouble(sum)
	if e != nil {
		e.Val = out
		c.DB.Touch(key)
	} else {
		c.DB.Set(key, out)
	}
	c.Dirty++
	c.Propagate([]byte("SET"), c.Args[1], out, []byte("KEEPTTL"))
	c.W.Bulk(out)
}
