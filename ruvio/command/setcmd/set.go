// Package setcmd implements Redis's set commands. A set is stored as a
// map[string]struct{} in the keyspace entry; an empty set never stays in
// the keyspace.
package setcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/scan"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// set is the stored representation.
type set = map[string]struct{}

// readSet and writeSet look a key up as a set; see command.As.
var (
	readSet  = command.LookupRead[set]
	writeSet = command.LookupWrite[set]
)

func sadd(c *command.Ctx) {
	s, key, ok := command.LookupWriteKey[set](c)
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
	// A created set always gains a member: the arity asks for one.
	if added > 0 {
		c.Stored(key, s, created)
		c.NotifyString(notify.Set, "sadd", key)
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
		c.NotifyString(notify.Set, "srem", key)
		c.Changed(key, len(s), 1)
	}
	return n
}

func srem(c *command.Ctx) {
	key := string(c.Args[1])
	if s, ok := writeSet(c, key); ok {
		c.W.Int(remove(c, key, s, c.Args[2:]))
	}
}

// writeMembers answers a RESP3 set (an array in RESP2), the type Redis 7
// gives SMEMBERS, SINTER, SUNION and SDIFF.
func writeMembers(c *command.Ctx, members []string) {
	members = inRedisOrder(members, c.DB.Shapes.Get().SetIntsetEntries)
	c.W.Set(len(members))
	for _, m := range members {
		c.W.BulkString(m)
	}
}

func smembers(c *command.Ctx) {
	if s, ok := readSet(c, string(c.Args[1])); ok {
		c.W.Set(len(s))
		eachMember(s, c.DB.Shapes.Get().SetIntsetEntries, func(m string) { c.W.BulkString(m) })
	}
}

func sismember(c *command.Ctx) {
	if s, ok := readSet(c, string(c.Args[1])); ok {
		c.W.Int(command.Has(s, c.Args[2]))
	}
}

func smismember(c *command.Ctx) {
	if s, ok := readSet(c, string(c.Args[1])); ok {
		c.W.Array(len(c.Args) - 2)
		for _, m := range c.Args[2:] {
			c.W.Int(command.Has(s, m))
		}
	}
}

func scard(c *command.Ctx) {
	if s, ok := readSet(c, string(c.Args[1])); ok {
		c.W.Int(int64(len(s)))
	}
}

func smove(c *command.Ctx) {
	srcKey, dstKey := string(c.Args[1]), string(c.Args[2])
	member := string(c.Args[3])
	src, ok := writeSet(c, srcKey)
	if !ok {
		return
	}
	if src == nil {
		// Redis answers 0 before it looks at the destination's type.
		c.W.Int(0)
		return
	}
	dst, ok := writeSet(c, dstKey)
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
	c.NotifyString(notify.Set, "srem", srcKey)
	c.Changed(srcKey, len(src), 1)
	if dst == nil {
		c.DB.Set(dstKey, set{member: {}})
		c.NotifyString(notify.Set, "sadd", dstKey)
	} else if _, had := dst[member]; !had {
		dst[member] = struct{}{}
		c.DB.Touch(dstKey)
		c.NotifyString(notify.Set, "sadd", dstKey)
	}
	// A destination that held the member already is unchanged: no WATCH
	// on it fails, as in Redis.
	c.W.Int(1)
}

func sscan(c *command.Ctx) {
	s, cursor, o, ok := scan.Start[set](c)
	if !ok {
		return
	}
	next, members := scan.Map(s, cursor, o)
	if next == 0 && len(members) == len(s) {
		// The whole set in one reply, as Redis scans an intset.
		members = inRedisOrder(members, c.DB.Shapes.Get().SetIntsetEntries)
	}
	scan.WriteHeader(c, next, len(members))
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
	f := command.Family("set")
	return []*command.Spec{
		f.Spec("sadd", -3, w|oom|fast, sadd).Copying(),
		f.Spec("srem", -3, w|fast, srem).Copying(),
		f.Spec("smembers", 2, r, smembers).Copying(),
		f.Spec("sismember", 3, r|fast, sismember).Copying(),
		f.Spec("smismember", -3, r|fast, smismember),
		f.Spec("scard", 2, r|fast, scard).Copying(),
		f.Spec("smove", 4, w|fast, smove).KeysAt(1, 2, 1),
		f.Spec("spop", -2, w|fast, spop),
		f.Spec("srandmember", -2, r, srandmember),
		f.Spec("sscan", -3, r, sscan),
		f.Spec("sinter", -2, r, sinter).KeysAt(1, -1, 1),
		f.Spec("sunion", -2, r, sunion).KeysAt(1, -1, 1),
		f.Spec("sdiff", -2, r, sdiff).KeysAt(1, -1, 1),
		f.Spec("sinterstore", -3, w|oom, sinterstore).KeysAt(1, -1, 1),
		f.Spec("sunionstore", -3, w|oom, sunionstore).KeysAt(1, -1, 1),
		f.Spec("sdiffstore", -3, w|oom, sdiffstore).KeysAt(1, -1, 1),
		// SINTERCARD numkeys key... [LIMIT n]: its keys are found through
		// numkeys, so LIMIT and its value are never routed as keys.
		f.Spec("sintercard", -3, r, sintercard).KeysAt(2, -1, 1).KeysBy(command.NumKeysAt(1)),
	}
}
