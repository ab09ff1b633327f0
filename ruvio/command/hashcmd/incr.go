package hashcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/longdouble"
)

// Replies HINCRBY and HINCRBYFLOAT give about the field's current value.
const (
	errHashNotInteger = "ERR hash value is not an integer"
	errHashNotFloat   = "ERR hash value is not a float"
	errIncrNotFinite  = "ERR value is NaN or Infinity"
)

func hincrby(c *command.Ctx) {
	// Redis validates the increment before it looks at the key.
	incr, ok := c.IntArg(c.Args[3])
	if !ok {
		return
	}
	key := string(c.Args[1])
	h, ok := writeHash(c, key)
	if !ok {
		return
	}
	f := string(c.Args[2])
	var cur int64
	if v, exists := h.Get(f); exists {
		if cur, ok = command.ParseInt(v); !ok {
			c.W.Error(errHashNotInteger)
			return
		}
	}
	n, ok := command.AddInt(cur, incr)
	if !ok {
		c.W.Error(command.ErrOverflow)
		return
	}
	// Deterministic given the state, so the command is logged as sent.
	setField(c, key, h, f, command.FormatInt(n), "hincrby")
	c.W.Int(n)
}

// hincrbyfloat is HINCRBYFLOAT key field increment, computed in long
// double precision as Redis does (see package longdouble).
func hincrbyfloat(c *command.Ctx) {
	incr, ok := longdouble.Parse(c.Args[3])
	if !ok {
		c.W.Error(command.ErrNotFloat)
		return
	}
	if incr.IsInf() {
		c.W.Error(errIncrNotFinite)
		return
	}
	key := string(c.Args[1])
	h, ok := writeHash(c, key)
	if !ok {
		return
	}
	f := string(c.Args[2])
	cur := longdouble.Zero()
	if v, exists := h.Get(f); exists {
		if cur, ok = longdouble.Parse(v); !ok {
			c.W.Error(errHashNotFloat)
			return
		}
	}
	// Add refuses an infinite current value too: inf + finite stays
	// infinite.
	sum, ok := longdouble.Add(cur, incr)
	if !ok {
		c.W.Error(command.ErrNaN)
		return
	}
	val := longdouble.Format(sum)
	setField(c, key, h, f, val, "hincrbyfloat")
	// Replay must not redo float arithmetic (precision and formatting
	// could differ elsewhere): log the result, as Redis does.
	c.Propagate([]byte("HSET"), c.Args[1], c.Args[2], val)
	c.W.Bulk(val)
}
