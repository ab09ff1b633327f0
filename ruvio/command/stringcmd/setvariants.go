package stringcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// lookupWrite returns key's live entry and string value for a command
// about to change it (no hit/miss counting, as Redis's lookupKeyWrite);
// ok is false when the key holds another type, in which case WRONGTYPE
// has been written.
func lookupWrite(c *command.Ctx, key string) (e *keyspace.Entry, val []byte, ok bool) {
	e = c.DB.Get(key)
	val, ok = command.As[[]byte](c, e)
	return e, val, ok
}

// replace makes val key's string (a []byte, or a keyspace.NewString): inside e, the key's live entry, when
// there is one, so the key keeps its time to live, else as a new key.
// event names the keyspace notification.
func replace(c *command.Ctx, key string, e *keyspace.Entry, val any, event string) {
	if e != nil {
		e.Val = val
		c.DB.Touch(key)
	} else {
		c.DB.Set(key, val)
	}
	c.Dirty++
	c.NotifyString(notify.String, event, key)
}

// setnx is SETNX key value: SET NX answering 1 or 0. Any type counts as
// existing.
func setnx(c *command.Ctx) {
	key := string(c.Args[1])
	if c.DB.Get(key) != nil {
		c.W.Int(0)
		return
	}
	storeString(c, key, nil, c.Args[2], 0)
	c.W.Int(1)
}

func setex(c *command.Ctx)  { setWithTTL(c, "ex", "setex") }
func psetex(c *command.Ctx) { setWithTTL(c, "px", "psetex") }

// setWithTTL is SETEX/PSETEX key amount value, replacing any value of any
// type. It is logged as SET PXAT so replay does not restart the clock.
func setWithTTL(c *command.Ctx, unit, name string) {
	at, errMsg := expiryArg{unit: []byte(unit), amount: c.Args[2]}.resolve(c.Now, name)
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	storeString(c, string(c.Args[1]), nil, c.Args[3], at)
	c.Notify(notify.Generic, "expire", c.Args[1])
	c.Propagate([]byte("SET"), c.Args[1], c.Args[3], []byte("PXAT"), command.FormatInt(at))
	c.W.OK()
}

// getset is GETSET key value: the old string (or nil) is answered and the
// new value stored without a time to live. Replaying it verbatim is
// deterministic, so it logs itself.
func getset(c *command.Ctx) {
	key := string(c.Args[1])
	e, old, ok := lookupWrite(c, key)
	if !ok {
		return
	}
	if e == nil {
		c.W.Null()
	} else {
		c.W.Bulk(old)
	}
	// The store looks the key up again, so the read and the write each
	// count an access, as redis-server's GETSET does (an LFU policy's
	// counter rises twice).
	storeString(c, key, nil, c.Args[2], 0)
}

// mset is MSET key value [key value ...]. The server has put every key on
// this shard; later pairs win over earlier ones for a repeated key.
func mset(c *command.Ctx) {
	if len(c.Args)%2 == 0 {
		c.W.Error(command.ErrWrongArgs("mset"))
		return
	}
	storePairs(c)
	c.W.OK()
}

// msetnx is MSETNX: all pairs are set, or none when any key exists.
func msetnx(c *command.Ctx) {
	if len(c.Args)%2 == 0 {
		c.W.Error(command.ErrWrongArgs("msetnx"))
		return
	}
	for i := 1; i < len(c.Args); i += 2 {
		if c.DB.Get(string(c.Args[i])) != nil {
			c.W.Int(0)
			return
		}
	}
	storePairs(c)
	c.W.Int(1)
}

// storePairs stores every key/value pair of MSET and MSETNX, each over
// its key's live entry when there is one (see storeString).
func storePairs(c *command.Ctx) {
	for i := 1; i < len(c.Args); i += 2 {
		found, key := c.DB.GetForWrite(c.Args[i])
		storeString(c, key, found, c.Args[i+1], 0)
	}
}
