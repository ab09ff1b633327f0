package stringcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// getdel is GETDEL key: GET, then delete the key when it held a string.
func getdel(c *command.Ctx) {
	key := string(c.Args[1])
	val, ok := getOrNull(c, key)
	if !ok {
		return
	}
	c.W.Bulk(val)
	c.DB.Delete(key)
	c.Dirty++
	c.Notify(notify.Generic, "del", c.Args[1])
	c.Propagate([]byte("DEL"), c.Args[1])
}

// getexOptions are GETEX's parsed options.
type getexOptions struct {
	exp     expiryArg
	persist bool
}

// parseGetexOptions reads GETEX's options as Redis 7 does: one kind of
// expiry (repeatable, last wins) or PERSIST (repeatable), never both.
func parseGetexOptions(args [][]byte) (getexOptions, bool) {
	var o getexOptions
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case command.Eq(a, "persist") && o.exp.unit == nil:
			o.persist = true
		case !o.persist && o.exp.accepts(a) && i+1 < len(args):
			o.exp = expiryArg{unit: a, amount: args[i+1]}
			i++
		default:
			return o, false
		}
	}
	return o, true
}

// getex is GETEX key [EX s|PX ms|EXAT ts|PXAT ts-ms|PERSIST]: GET that also
// sets or removes the time to live. Effects are logged as PEXPIREAT with
// the absolute time, DEL when an absolute time already passed, or PERSIST.
func getex(c *command.Ctx) {
	o, ok := parseGetexOptions(c.Args[2:])
	if !ok {
		c.W.Error(command.ErrSyntax)
		return
	}
	key := string(c.Args[1])
	// Redis looks the key up before it checks the time: a missing key
	// answers nil even with an invalid time.
	val, ok := getOrNull(c, key)
	if !ok {
		return
	}
	var at int64
	if o.exp.unit != nil {
		var errMsg string
		if at, errMsg = o.exp.resolve(c.Now, "getex"); errMsg != "" {
			c.W.Error(errMsg)
			return
		}
	}
	c.W.Bulk(val)
	switch {
	case o.exp.unit != nil && at <= c.Now:
		// Only EXAT/PXAT can land in the past; the key expires at once.
		c.DB.Delete(key)
		c.Dirty++
		c.Notify(notify.Generic, "del", c.Args[1])
		c.Propagate([]byte("DEL"), c.Args[1])
	case o.exp.unit != nil:
		c.DB.SetExpire(key, at)
		c.Dirty++
		c.Notify(notify.Generic, "expire", c.Args[1])
		c.Propagate([]byte("PEXPIREAT"), c.Args[1], command.FormatInt(at))
	case o.persist:
		if e := c.DB.Get(key); e != nil && e.ExpireAt != 0 {
			c.DB.SetExpire(key, 0)
			c.Dirty++
			c.Notify(notify.Generic, "persist", c.Args[1])
			c.Propagate([]byte("PERSIST"), c.Args[1])
		}
	}
}
