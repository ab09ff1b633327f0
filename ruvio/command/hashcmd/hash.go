// Package hashcmd implements Redis's hash commands. A hash is stored as a
// map[string][]byte in the keyspace entry; an empty hash never stays in
// the keyspace.
//
// The package also holds the map helpers the set family shares: the
// hash-ordered SCAN cursor (scan.go) and random key selection (random.go).
package hashcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

var (
	readFast  = []string{"read", "hash", "fast"}
	readSlow  = []string{"read", "hash", "slow"}
	writeFast = []string{"write", "hash", "fast"}
)

// lookup returns key's hash, nil when the key does not exist. ok is false
// when the key holds another type, in which case WRONGTYPE has been
// written. Read commands count keyspace hits and misses; writes do not, as
// in Redis.
func lookup(c *command.Ctx, key string, read bool) (h map[string][]byte, ok bool) {
	var e *keyspace.Entry
	if read {
		e = c.DB.Read(key)
	} else {
		e = c.DB.Get(key)
	}
	if e == nil {
		return nil, true
	}
	h, isHash := e.Val.(map[string][]byte)
	if !isHash {
		c.W.Error(command.ErrWrongType)
		return nil, false
	}
	return h, true
}

// store records that h, key's hash, was changed in place, or creates the
// key when h is new.
func store(c *command.Ctx, key string, h map[string][]byte, created bool) {
	if created {
		c.DB.Set(key, h)
	} else {
		c.DB.Touch(key)
	}
	c.Dirty++
}

// setPairs is HSET and HMSET: it stores field/value pairs and returns how
// many fields are new. Values are kept as the request's own slices, which
// the reader allocated for this command alone.
func setPairs(c *command.Ctx, name string) (int64, bool) {
	if len(c.Args)%2 == 1 {
		c.W.Error(command.ErrWrongArgs(name))
		return 0, false
	}
	key := string(c.Args[1])
	h, ok := lookup(c, key, false)
	if !ok {
		return 0, false
	}
	created := h == nil
	if created {
		h = make(map[string][]byte, (len(c.Args)-2)/2)
	}
	var added int64
	for i := 2; i < len(c.Args); i += 2 {
		f := string(c.Args[i])
		if _, exists := h[f]; !exists {
			added++
		}
		h[f] = c.Args[i+1]
	}
	// Redis counts every HSET as a change, even one that rewrote equal
	// values, so WATCH fails and the command is logged.
	store(c, key, h, created)
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
	h, ok := lookup(c, key, false)
	if !ok {
		return
	}
	f := string(c.Args[2])
	if _, exists := h[f]; exists {
		c.W.Int(0)
		return
	}
	created := h == nil
	if created {
		h = make(map[string][]byte, 1)
	}
	h[f] = c.Args[3]
	store(c, key, h, created)
	c.W.Int(1)
}

func hget(c *command.Ctx) {
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if v, exists := h[string(c.Args[2])]; exists {
		c.W.Bulk(v)
	} else {
		c.W.Null()
	}
}

func hmget(c *command.Ctx) {
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, f := range c.Args[2:] {
		if v, exists := h[string(f)]; exists {
			c.W.Bulk(v)
		} else {
			c.W.Null()
		}
	}
}

func hdel(c *command.Ctx) {
	key := string(c.Args[1])
	h, ok := lookup(c, key, false)
	if !ok {
		return
	}
	var deleted int64
	for _, f := range c.Args[2:] {
		if h == nil {
			break
		}
		if _, exists := h[string(f)]; exists {
			delete(h, string(f))
			deleted++
		}
	}
	if deleted > 0 {
		if len(h) == 0 {
			c.DB.Delete(key)
		} else {
			c.DB.Touch(key)
		}
		c.Dirty++
	}
	c.W.Int(deleted)
}

func hlen(c *command.Ctx) {
	if h, ok := lookup(c, string(c.Args[1]), true); ok {
		c.W.Int(int64(len(h)))
	}
}

func hexists(c *command.Ctx) {
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if _, exists := h[string(c.Args[2])]; exists {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

func hstrlen(c *command.Ctx) {
	if h, ok := lookup(c, string(c.Args[1]), true); ok {
		c.W.Int(int64(len(h[string(c.Args[2])])))
	}
}

// hgetall answers a RESP3 map (a flat array in RESP2), as Redis 7 does.
func hgetall(c *command.Ctx) {
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	c.W.Map(len(h))
	for f, v := range h {
		c.W.BulkString(f)
		c.W.Bulk(v)
	}
}

func hkeys(c *command.Ctx) {
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	c.W.Array(len(h))
	for f := range h {
		c.W.BulkString(f)
	}
}

func hvals(c *command.Ctx) {
	h, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	c.W.Array(len(h))
	for _, v := range h {
		c.W.Bulk(v)
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
	spec := func(name string, arity int, flags command.Flags, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Run: run}
	}
	return []*command.Spec{
		spec("hset", -4, w|oom|fast, writeFast, hset),
		spec("hmset", -4, w|oom|fast, writeFast, hmset),
		spec("hsetnx", 4, w|oom|fast, writeFast, hsetnx),
		spec("hget", 3, r|fast, readFast, hget),
		spec("hmget", -3, r|fast, readFast, hmget),
		spec("hdel", -3, w|fast, writeFast, hdel),
		spec("hlen", 2, r|fast, readFast, hlen),
		spec("hexists", 3, r|fast, readFast, hexists),
		spec("hstrlen", 3, r|fast, readFast, hstrlen),
		spec("hgetall", 2, r, readSlow, hgetall),
		spec("hkeys", 2, r, readSlow, hkeys),
		spec("hvals", 2, r, readSlow, hvals),
		spec("hincrby", 4, w|oom|fast, writeFast, hincrby),
		spec("hincrbyfloat", 4, w|oom|fast, writeFast, hincrbyfloat),
		spec("hscan", -3, r, readSlow, hscan),
		spec("hrandfield", -2, r, readSlow, hrandfield),
	}
}
