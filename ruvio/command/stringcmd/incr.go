package stringcmd

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/longdouble"
	"github.com/ruvio/ruvio/ruvio/keyspace"
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
	var buf [20]byte
	digits, counted := []byte(nil), false
	if delta == 1 && e != nil {
		digits, counted = countUp(buf[:0], val)
	}
	if !counted {
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
		digits = strconv.AppendInt(buf[:0], cur, 10)
	}
	// As many digits as before are written over the old ones (see
	// keyspace.DB.SetStringFound); the key keeps its time to live.
	var expireAt int64
	if e != nil {
		expireAt = e.ExpireAt
	}
	c.DB.SetStringFound(key, e, digits, expireAt)
	c.Dirty++
	c.NotifyString(notify.String, "incrby", key)
	c.W.IntDigits(digits) // the value's own digits: formatted once
}

// countUp appends to dst the digits of val plus one, carrying as on
// paper, when val is the common counter: a non-negative integer written
// as Redis writes one (digits only, no leading zero) of at most 18
// digits, so the sum fits an int64. ok is false for anything else, which
// takes the general path. INCR of a counter then neither parses nor
// formats a number: the two took about a twentieth of the server's CPU
// under a pipelined INCR load.
func countUp(dst, val []byte) (digits []byte, ok bool) {
	n := len(val)
	if n == 0 || n > 18 || (val[0] == '0' && n > 1) {
		return nil, false
	}
	for _, b := range val {
		if b < '0' || b > '9' {
			return nil, false
		}
	}
	start := len(dst)
	dst = append(dst, val...)
	i := len(dst) - 1
	for ; i >= start && dst[i] == '9'; i-- {
		dst[i] = '0'
	}
	if i >= start {
		dst[i]++
		return dst, true
	}
	// Every digit was a nine: 99 + 1 is 100.
	dst[start] = '1'
	return append(dst, '0'), true
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
	replace(c, key, e, keyspace.NewString(out), "incrbyfloat")
	c.Propagate([]byte("SET"), c.Args[1], out, []byte("KEEPTTL"))
	c.W.Bulk(out)
}
