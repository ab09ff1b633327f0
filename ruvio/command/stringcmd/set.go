package stringcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// getOrNull looks key up for reading as a string, answering null when it
// is missing and WRONGTYPE when it holds another type: ok reports that it
// holds a string, val, which the caller answers.
func getOrNull(c *command.Ctx, key string) (val []byte, ok bool) {
	return valueOrNull(c, c.DB.Read(key))
}

// valueOrNull is e's string, or false once it answered null (e nil) or
// WRONGTYPE.
func valueOrNull(c *command.Ctx, e *keyspace.Entry) (val []byte, ok bool) {
	if val, ok = command.As[[]byte](c, e); ok && e == nil {
		c.W.Null()
		ok = false
	}
	return val, ok
}

func get(c *command.Ctx) {
	if val, ok := valueOrNull(c, c.DB.ReadArg(c.Args[1])); ok {
		c.W.Bulk(val)
	}
}

// setOptions are SET's parsed flags.
type setOptions struct {
	nx, xx, get, keepTTL bool
	expireAt             int64 // absolute Unix ms, 0 = none
}

// parseSetOptions reads SET's options from args (after key and value), as
// Redis 7 validates them: conflicting options are a syntax error, and only
// once the whole list parsed is the time checked (not an integer, or
// non-positive or overflowing: "invalid expire time").
func parseSetOptions(c *command.Ctx, args [][]byte) (setOptions, string) {
	var o setOptions
	var exp expiryArg
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case command.Eq(a, "nx") && !o.xx:
			o.nx = true
		case command.Eq(a, "xx") && !o.nx:
			o.xx = true
		case command.Eq(a, "get"):
			o.get = true
		case command.Eq(a, "keepttl") && exp.unit == nil:
			o.keepTTL = true
		case !o.keepTTL && exp.accepts(a) && i+1 < len(args):
			exp = expiryArg{unit: a, amount: args[i+1]}
			i++
		default:
			return o, command.ErrSyntax
		}
	}
	if exp.unit != nil {
		at, errMsg := exp.resolve(c.Now, "set")
		if errMsg != "" {
			return o, errMsg
		}
		o.expireAt = at
	}
	return o, ""
}

func set(c *command.Ctx) {
	o, errMsg := parseSetOptions(c, c.Args[3:])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	old, key := c.DB.GetForWrite(c.Args[1])
	var oldVal []byte
	if old != nil && o.get {
		// Only GET reads the old value: a plain SET does not touch it,
		// which spares a cache miss per write over a large keyspace.
		b, isString := old.Val.([]byte)
		if !isString {
			c.W.Error(command.ErrWrongType)
			return
		}
		oldVal = b
	}
	if (o.nx && old != nil) || (o.xx && old == nil) {
		if o.get {
			writeOld(c, old, oldVal)
		} else {
			c.W.Null()
		}
		return
	}
	expireAt := o.expireAt
	if o.keepTTL && old != nil {
		expireAt = old.ExpireAt
	}
	found := old
	if o.get {
		// The old value is answered after the store: it must not be
		// overwritten in place.
		found = nil
	}
	storeString(c, key, found, c.Args[2], expireAt)
	if o.expireAt != 0 {
		c.Notify(notify.Generic, "expire", c.Args[1])
		// Replay must not restart the clock: log the absolute time.
		c.Propagate([]byte("SET"), c.Args[1], c.Args[2], []byte("PXAT"), command.FormatInt(o.expireAt))
	} else if o.keepTTL {
		c.Propagate([]byte("SET"), c.Args[1], c.Args[2], []byte("KEEPTTL"))
	} else if len(c.Args) > 3 {
		// Options such as NX or GET are dropped from the log. A plain
		// "SET k v" is logged as sent, without copying here.
		c.Propagate([]byte("SET"), c.Args[1], c.Args[2])
	}
	if o.get {
		writeOld(c, old, oldVal)
	} else {
		c.W.OK()
	}
}

func writeOld(c *command.Ctx, old *keyspace.Entry, val []byte) {
	if old == nil {
		c.W.Null()
	} else {
		c.W.Bulk(val)
	}
}

// storeString sets key to val, a request argument, with the given expiry
// and counts the change. found is key's live entry when the command has
// just looked it up (nil: missing, or not looked up); a string value of
// val's length in it is overwritten in place. The stored value is a copy
// of exactly val's bytes (see command.OwnEach for why).
func storeString(c *command.Ctx, key string, found *keyspace.Entry, val []byte, expireAt int64) {
	c.DB.SetStringFound(key, found, val, expireAt)
	c.Dirty++
	c.NotifyString(notify.String, "set", key)
}

func mget(c *command.Ctx, key []byte) int64 {
	e := c.DB.Read(string(key))
	var v []byte
	if e != nil {
		if b, ok := e.Val.([]byte); ok {
			// Copied: the reply may be written after the shard is unlocked.
			v = append(make([]byte, 0, len(b)), b...)
		}
	}
	c.Values = append(c.Values, v)
	return 0
}
