// Package setcmd implements Redis's set commands. A set is stored as a
// map[string]struct{} in the keyspace entry; an empty set never stays in
// the keyspace.
package setcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

// set is the stored representation.
type set = map[string]struct{}

var (
	readFast  = []string{"read", "set", "fast"}
	readSlow  = []string{"read", "set", "slow"}
	writeFast = []string{"write", "set", "fast"}
	writeSlow = []string{"write", "set", "slow"}
)

// lookup returns key's set, nil when the key does not exist. ok is false
// when the key holds another type, in which case WRONGTYPE has been
// written. Read commands count keyspace hits and misses.
func lookup(c *command.Ctx, key string, read bool) (s set, ok bool) {
	var e *keyspace.Entry
	if read {
		e = c.DB.Read(key)
	} else {
		e = c.DB.Get(key)
	}
	if e == nil {
		return nil, true
	}
	s, isSet := e.Val.(set)
	if !isSet {
		c.W.Error(command.ErrWrongType)
		return nil, false
	}
	return s, true
}

func sadd(c *command.Ctx) {
	key := string(c.Args[1])
	s, ok := lookup(c, key, false)
	if !ok {
		return
	}
	created := s == nil
	if created {
		s = make(set, len(c.Args)-2)
	}
	var added int64
	for _, m := range c.Args[2:] {
		if _, exists := s[string(m)]; !exists {
			s[string(m)] = struct{}{}
			added++
		}
	}
	if created {
		c.DB.Set(key, s)
	} else if added > 0 {
		c.DB.Touch(key)
	}
	if added > 0 {
		c.Dirty++
	}
	c.W.Int(added)
}

// remove deletes members from s, key's set, and the key once s is empty.
// It returns how many were members.
func remove(c *command.Ctx, key string, s set, members [][]byte) int64 {
	var n int64
	for _, m := range members {
		if _, exists := s[string(m)]; exists {
			delete(s, string(m))
			n++
		}
	}
	if n > 0 {
		if len(s) == 0 {
			c.DB.Delete(key)
		} else {
			c.DB.Touch(key)
		}
		c.Dirty++
	}
	return n
}

func srem(c *command.Ctx) {
	key := string(c.Args[1])
	s, ok := lookup(c, key, false)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(remove(c, key, s, c.Args[2:]))
}

// writeMembers answers a RESP3 set (an array in RESP2), the type Redis 7
// gives SMEMBERS, SINTER, SUNION and SDIFF.
func writeMembers(c *command.Ctx, members []string) {
	c.W.Set(len(members))
	for _, m := range members {
		c.W.BulkString(m)
	}
}

func smembers(c *command.Ctx) {
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	c.W.Set(len(s))
	for m := range s {
		c.W.BulkString(m)
	}
}

func sismember(c *command.Ctx) {
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if _, exists := s[string(c.Args[2])]; exists {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

func smismember(c *command.Ctx) {
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if _, exists := s[string(m)]; exists {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func scard(c *command.Ctx) {
	if s, ok := lookup(c, string(c.Args[1]), true); ok {
		c.W.Int(int64(len(s)))
	}
}

func smove(c *command.Ctx) {
	srcKey, dstKey := string(c.Args[1]), string(c.Args[2])
	member := string(c.Args[3])
	src, ok := lookup(c, srcKey, false)
	if !ok {
		return
	}
	if src == nil {
		// Redis answers 0 before it looks at the destination's type.
		c.W.Int(0)
		return
	}
	dst, ok := lookup(c, dstKey, false)
	if !ok {
		return
	}
	if _, exists := src[member]; !exists {
		c.W.Int(0)
		return
	}
	if srcKey == dstKey {
		// Moving a member onto its own set changes nothing.
		c.W.Int(1)
		return
	}
	delete(src, member)
	if len(src) == 0 {
		c.DB.Delete(srcKey)
	} else {
		c.DB.Touch(srcKey)
	}
	if dst == nil {
		c.DB.Set(dstKey, set{member: {}})
	} else {
		dst[member] = struct{}{}
		c.DB.Touch(dstKey)
	}
	c.Dirty++
	c.W.Int(1)
}

func sscan(c *command.Ctx) {
	cursor, ok := hashcmd.ParseCursor(c.Args[2])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	s, ok := lookup(c, string(c.Args[1]), true)
	if !ok {
		return
	}
	if s == nil {
		// A missing key answers an empty scan before options are parsed,
		// as in Redis.
		hashcmd.WriteScan(c, 0, 0)
		return
	}
	o, errMsg := hashcmd.ParseScanOptions(c.Args[3:])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	next, members := hashcmd.ScanMap(s, cursor, o)
	hashcmd.WriteScan(c, next, len(members))
	for _, m := range members {
		c.W.BulkString(m)
	}
}

// Specs returns the set commands with Redis 7's arity, flags, key
// positions and ACL categories.
func Specs() []*command.Spec {
	const (
		w    = command.Write
		r    = command.ReadOnly
		oom  = command.DenyOOM
		fast = command.Fast
	)
	spec := func(name string, arity int, flags command.Flags, first, last int, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Categories: cats, Run: run}
	}
	return []*command.Spec{
		spec("sadd", -3, w|oom|fast, 1, 1, writeFast, sadd),
		spec("srem", -3, w|fast, 1, 1, writeFast, srem),
		spec("smembers", 2, r, 1, 1, readSlow, smembers),
		spec("sismember", 3, r|fast, 1, 1, readFast, sismember),
		spec("smismember", -3, r|fast, 1, 1, readFast, smismember),
		spec("scard", 2, r|fast, 1, 1, readFast, scard),
		spec("smove", 4, w|fast, 1, 2, writeFast, smove),
		spec("spop", -2, w|fast, 1, 1, writeFast, spop),
		spec("srandmember", -2, r, 1, 1, readSlow, srandmember),
		spec("sscan", -3, r, 1, 1, readSlow, sscan),
		spec("sinter", -2, r, 1, -1, readSlow, sinter),
		spec("sunion", -2, r, 1, -1, readSlow, sunion),
		spec("sdiff", -2, r, 1, -1, readSlow, sdiff),
		spec("sinterstore", -3, w|oom, 1, -1, writeSlow, sinterstore),
		spec("sunionstore", -3, w|oom, 1, -1, writeSlow, sunionstore),
		spec("sdiffstore", -3, w|oom, 1, -1, writeSlow, sdiffstore),
		// SINTERCARD numkeys key... [LIMIT n]: its keys are found through
		// numkeys, so LIMIT and its value are never routed as keys.
		withKeys(spec("sintercard", -3, r, 2, -1, readSlow, sintercard), command.NumKeysAt(1)),
	}
}

func withKeys(s *command.Spec, keys func([][]byte) []int) *command.Spec {
	s.Keys = keys
	return s
}
