// Package keycmd implements Redis's commands that act on a key whatever
// its type: deletion and existence (DEL, UNLINK, EXISTS, TOUCH), TYPE,
// time to live (EXPIRE and its variants, TTL, PERSIST), RENAME and COPY,
// OBJECT, SORT and SORT_RO, and LCS, a string command comparing two keys.
// Commands that walk the whole keyspace (KEYS, SCAN, DBSIZE, FLUSHDB...)
// span shards and belong to the server.
package keycmd

import "github.com/ruvio/ruvio/ruvio/command"

// Specs returns the key commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	const (
		w   = command.Write
		wf  = command.Write | command.Fast
		rof = command.ReadOnly | command.Fast
	)
	f := command.Family("keyspace")
	return append([]*command.Spec{
		f.PerKey("del", w, command.ReplySum, del),
		f.PerKey("unlink", wf, command.ReplySum, del),
		f.PerKey("exists", rof, command.ReplySum, exists),
		f.PerKey("touch", rof, command.ReplySum, touch),
		f.Spec("type", 2, rof, typeCmd),
		f.Spec("expire", -3, wf, expire),
		f.Spec("pexpire", -3, wf, pexpire),
		f.Spec("expireat", -3, wf, expireat),
		f.Spec("pexpireat", -3, wf, pexpireat),
		f.Spec("ttl", 2, rof, ttl),
		f.Spec("pttl", 2, rof, pttl),
		f.Spec("expiretime", 2, rof, expiretime),
		f.Spec("pexpiretime", 2, rof, pexpiretime),
		f.Spec("persist", 2, wf, persist),
		f.Spec("rename", 3, w, rename).KeysAt(1, 2, 1),
		f.Spec("renamenx", 3, wf, renamenx).KeysAt(1, 2, 1),
		f.Spec("copy", -3, w|command.DenyOOM, copyCmd).KeysAt(1, 2, 1),
		command.Family("string").Spec("lcs", -3, command.ReadOnly, lcs).KeysAt(1, 2, 1),
		objectSpec(),
	}, sortSpecs()...)
}
