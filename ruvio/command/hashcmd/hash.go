// Package hashcmd implements Redis's hash commands. A hash is stored as a
// *hash.Hash in the keyspace entry; an empty hash never stays in the
// keyspace.
package hashcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// readHash and writeHash look a key up as a hash; see command.As. A
// missing key gives a nil *hash.Hash, which reads as empty.
var (
	readHash  = command.LookupRead[*hash.Hash]
	writeHash = command.LookupWrite[*hash.Hash]
)

// setField sets field f of h, key's hash, to val, creating the hash when
// h is nil, and records the change; event names its notification.
func setField(c *command.Ctx, key string, h *hash.Hash, f string, val []byte, event string) {
	created := h == nil
	if created {
		h = hash.New()
	}
	h.Set(f, val)
	c.Stored(key, h, created)
	c.NotifyString(notify.Hash, event, key)
}

// setPairs is HSET and HMSET: it stores field/value pairs and returns how
// many fields are new. The hash copies every value: a request's arguments
// share one buffer, which a stored slice of it would keep alive.
func setPairs(c *command.Ctx, name string) (int64, bool) {
	if len(c.Args)%2 == 1 {
		c.W.Error(command.ErrWrongArgs(name))
		return 0, false
	}
	h, key, ok := command.LookupWriteKey[*hash.Hash](c)
	if !ok {
		return 0, false
	}
	created := h == nil
	if created {
		h = hash.New()
	}
	var added int64
	for i := 2; i < len(c.Args); i += 2 {
		if h.SetBytes(c.Args[i], c.Args[i+1]) {
			added++
		}
	}
	// Redis counts every HSET as a change, even one that rewrote equal
	// values, so WATCH fails and the command is logged.
	c.Stored(key, h, created)
	c.NotifyString(notify.Hash, "hset", key)
	return added, true
}

func hset(c *command.Ctx) {
	if n, ok := setPairs(c, "hset"); ok {
		c.W.Int(n)
	}
}

func hmset(c *command.Ctx) {
	if _, ok := setPairs(c, "hmset"); ok {
		c.W.OK()
	}
}

func hsetnx(c *command.Ctx) {
	key := string(c.Args[1])
	h, ok := writeHash(c, key)
	if !ok {
		return
	}
	f := string(c.Args[2])
	if _, exists := h.Get(f); exists {
		c.W.Int(0)
		return
	}
	setField(c, key, h, f, c.Args[3], "hset")
	c.W.Int(1)
}

func hget(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		writeField(c, h, c.Args[2])
	}
}

func hmget(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		c.W.Array(len(c.Args) - 2)
		for _, f := range c.Args[2:] {
			writeField(c, h, f)
		}
	}
}

// writeField answers field f's value in h, or null when there is none.
func writeField(c *command.Ctx, h *hash.Hash, f []byte) {
	if v, exists := h.Get(string(f)); exists {
		c.W.Bulk(v)
	} else {
		c.W.Null()
	}
}

func hdel(c *command.Ctx) {
	key := string(c.Args[1])
	h, ok := writeHash(c, key)
	if !ok {
		return
	}
	var deleted int64
	for _, f := range c.Args[2:] {
		if h.Delete(string(f)) {
			deleted++
		}
	}
	if deleted > 0 {
		// One change however many fields went, as Redis counts it.
		c.NotifyString(notify.Hash, "hdel", key)
		c.Changed(key, h.Len(), 1)
	}
	c.W.Int(deleted)
}

func hlen(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		c.W.Int(int64(h.Len()))
	}
}

func hexists(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		var n int64
		if _, exists := h.Get(string(c.Args[2])); exists {
			n = 1
		}
		c.W.Int(n)
	}
}

func hstrlen(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		v, _ := h.Get(string(c.Args[2]))
		c.W.Int(int64(len(v)))
	}
}

// hgetall answers a RESP3 map (a flat array in RESP2), as Redis 7 does.
// A small hash answers in insertion order, as Redis's listpack does.
func hgetall(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		c.W.Map(h.Len())
		for f, v := range h.Range {
			c.W.BulkString(f)
			c.W.Bulk(v)
		}
	}
}

func hkeys(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		c.W.Array(h.Len())
		for f := range h.Range {
			c.W.BulkString(f)
		}
	}
}

func hvals(c *command.Ctx) {
	if h, ok := readHash(c, string(c.Args[1])); ok {
		c.W.Array(h.Len())
		for _, v := range h.Range {
			c.W.Bulk(v)
		}
	}
}

// Specs returns the hash commands with Redis 7's arity, flags, key
// positions and ACL categories.
func Specs() []*command.Spec {
	const (
		w    = command.Write
		r    = command.ReadOnly
		oom  = command.DenyOOM
		fast = command.Fast
	)
	f := command.Family("hash")
	return []*command.Spec{
		f.Spec("hset", -4, w|oom|fast, hset).Copying(),
		f.Spec("hmset", -4, w|oom|fast, hmset).Copying(),
		f.Spec("hsetnx", 4, w|oom|fast, hsetnx),
		f.Spec("hget", 3, r|fast, hget).Copying(),
		f.Spec("hmget", -3, r|fast, hmget),
		f.Spec("hdel", -3, w|fast, hdel).Copying(),
		f.Spec("hlen", 2, r|fast, hlen).Copying(),
		f.Spec("hexists", 3, r|fast, hexists).Copying(),
		f.Spec("hstrlen", 3, r|fast, hstrlen),
		f.Spec("hgetall", 2, r, hgetall).Copying(),
		f.Spec("hkeys", 2, r, hkeys),
		f.Spec("hvals", 2, r, hvals),
		f.Spec("hincrby", 4, w|oom|fast, hincrby).Copying(),
		f.Spec("hincrbyfloat", 4, w|oom|fast, hincrbyfloat),
		f.Spec("hscan", -3, r, hscan),
		f.Spec("hrandfield", -2, r, hrandfield),
	}
}
