// Package keycmd implements Redis's commands that act on a key whatever
// its type: deletion and existence (DEL, UNLINK, EXISTS, TOUCH), TYPE,
// time to live (EXPIRE and its variants, TTL, PERSIST) and RENAME.
// Commands that walk the whole keyspace (KEYS, SCAN, DBSIZE, FLUSHDB...)
// span shards and belong to the server.
package keycmd

import "github.com/ruvio/ruvio/ruvio/command"

// ACL categories, as Redis 7 files each command.
var (
	readFast  = []string{"keyspace", "read", "fast"}
	writeFast = []string{"keyspace", "write", "fast"}
	writeSlow = []string{"keyspace", "write", "slow"}
)

// Specs returns the key commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	const (
		wf  = command.Write | command.Fast
		rof = command.ReadOnly | command.Fast
	)
	one := func(name string, arity int, flags command.Flags, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Run: run}
	}
	each := func(name string, flags command.Flags, cats []string, fn func(*command.Ctx, []byte) int64) *command.Spec {
		return &command.Spec{Name: name, Arity: -2, Flags: flags, FirstKey: 1, LastKey: -1, Step: 1, Categories: cats, PerKey: fn, Reply: command.ReplySum}
	}
	return []*command.Spec{
		each("del", command.Write, writeSlow, del),
		each("unlink", wf, writeFast, del),
		each("exists", rof, readFast, exists),
		each("touch", rof, readFast, exists),
		one("type", 2, rof, readFast, typeCmd),
		one("expire", -3, wf, writeFast, expire),
		one("pexpire", -3, wf, writeFast, pexpire),
		one("expireat", -3, wf, writeFast, expireat),
		one("pexpireat", -3, wf, writeFast, pexpireat),
		one("ttl", 2, rof, readFast, ttl),
		one("pttl", 2, rof, readFast, pttl),
		one("expiretime", 2, rof, readFast, expiretime),
		one("pexpiretime", 2, rof, readFast, pexpiretime),
		one("persist", 2, wf, writeFast, persist),
		{Name: "rename", Arity: 3, Flags: command.Write, FirstKey: 1, LastKey: 2, Step: 1, Categories: writeSlow, Run: rename},
		{Name: "renamenx", Arity: 3, Flags: wf, FirstKey: 1, LastKey: 2, Step: 1, Categories: writeFast, Run: renamenx},
	}
}
