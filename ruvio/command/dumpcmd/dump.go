// Package dumpcmd implements DUMP and RESTORE over the serialized form of
// package rdb, so values move between Redis 7 and ruvio in both
// directions.
package dumpcmd

import (
	"errors"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/rdb"
)

// Specs returns DUMP and RESTORE.
func Specs() []*command.Spec {
	f := command.Family("keyspace")
	restore := f.Spec("restore", -4, command.Write|command.DenyOOM, restore)
	restore.Categories = append(restore.Categories, "dangerous")
	return []*command.Spec{
		f.Spec("dump", 2, command.ReadOnly, dump),
		restore,
	}
}

func dump(c *command.Ctx) {
	e := c.DB.Read(string(c.Args[1]))
	if e == nil {
		c.W.Null()
		return
	}
	p, err := rdb.Encode(e.Val)
	if err != nil {
		// Every type the keyspace stores has a serialized form; this only
		// guards against a stray value.
		c.W.Error("ERR " + err.Error())
		return
	}
	c.W.Bulk(p)
}

func restore(c *command.Ctx) {
	var replace, absTTL bool
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(c.Args); j++ {
		more := len(c.Args) - j - 1
		switch a := c.Args[j]; {
		case command.Eq(a, "replace"):
			replace = true
		case command.Eq(a, "absttl"):
			absTTL = true
		case command.Eq(a, "idletime") && more > 0 && freq == -1:
			n, ok := c.IntArg(c.Args[j+1])
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error("ERR Invalid IDLETIME value, must be >= 0")
				return
			}
			idle = n
			j++
		case command.Eq(a, "freq") && more > 0 && idle == -1:
			n, ok := c.IntArg(c.Args[j+1])
			if !ok {
				return
			}
			if n < 0 || n > 255 {
				c.W.Error("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return
			}
			freq = n
			j++
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}
	key := string(c.Args[1])
	if !replace && c.DB.Get(key) != nil {
		c.W.Error("BUSYKEY Target key name already exists.")
		return
	}
	ttl, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	if ttl < 0 {
		c.W.Error("ERR Invalid TTL value, must be >= 0")
		return
	}
	v, err := rdb.Decode(c.Args[3])
	if err != nil {
		if errors.Is(err, rdb.ErrBadPayload) {
			c.W.Error("ERR DUMP payload version or checksum are wrong")
		} else {
			c.W.Error("ERR Bad data format")
		}
		return
	}
	deleted := replace && c.DB.Delete(key)
	if ttl != 0 && !absTTL {
		ttl += c.Now
	}
	if ttl != 0 && ttl <= c.Now && !c.DB.Loading {
		// Already expired: nothing is stored, and a replaced key is gone.
		if deleted {
			c.Notify(notify.Generic, "del", c.Args[1])
			c.Propagate([]byte("DEL"), c.Args[1])
		}
		c.W.OK()
		return
	}
	if b, ok := v.([]byte); ok {
		// Stored whole, as Redis's RESTORE stores a string (int or embstr
		// where it fits).
		v = keyspace.NewString(b)
	}
	e := c.DB.SetWithExpiry(key, v, ttl)
	// As Redis, FREQ counts under an LFU policy and IDLETIME under any
	// other; the one the policy does not keep is ignored.
	if c.DB.LFU.On() {
		if freq >= 0 {
			e.SetFreq(uint8(freq))
		}
	} else if idle >= 0 {
		e.SetAccess(c.Now - idle*1000)
	}
	c.Dirty++
	c.Notify(notify.Generic, "restore", c.Args[1])
	// The log gets the absolute expiry, so replay restores the same
	// deadline whenever it runs, and the counter or idle time it set,
	// as Redis passes them on.
	op := [][]byte{[]byte("RESTORE"), c.Args[1], command.FormatInt(ttl), c.Args[3], []byte("REPLACE"), []byte("ABSTTL")}
	switch {
	case c.DB.LFU.On() && freq >= 0:
		op = append(op, []byte("FREQ"), command.FormatInt(freq))
	case !c.DB.LFU.On() && idle >= 0:
		op = append(op, []byte("IDLETIME"), command.FormatInt(idle))
	}
	c.Propagate(op...)
	c.W.OK()
}
