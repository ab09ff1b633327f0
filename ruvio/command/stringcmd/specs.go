package stringcmd

import "github.com/ruvio/ruvio/ruvio/command"

// ACL categories, as Redis 7 files each command.
var (
	readFast  = []string{"read", "string", "fast"}
	readSlow  = []string{"read", "string", "slow"}
	writeFast = []string{"write", "string", "fast"}
	writeSlow = []string{"write", "string", "slow"}
)

// Specs returns the string commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	const (
		wd  = command.Write | command.DenyOOM
		wdf = command.Write | command.DenyOOM | command.Fast
		wf  = command.Write | command.Fast
		ro  = command.ReadOnly
		rof = command.ReadOnly | command.Fast
	)
	one := func(name string, arity int, flags command.Flags, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Run: run}
	}
	return []*command.Spec{
		one("get", 2, rof, readFast, get),
		one("set", -3, wd, writeSlow, set),
		{Name: "mget", Arity: -2, Flags: rof, FirstKey: 1, LastKey: -1, Step: 1, Categories: readFast, PerKey: mget, Reply: command.ReplyValues},
		one("setnx", 3, wdf, writeFast, setnx),
		one("setex", 4, wd, writeSlow, setex),
		one("psetex", 4, wd, writeSlow, psetex),
		one("getset", 3, wdf, writeFast, getset),
		one("getdel", 2, wf, writeFast, getdel),
		one("getex", -2, wf, writeFast, getex),
		{Name: "mset", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, Step: 2, Categories: writeSlow, Run: mset},
		{Name: "msetnx", Arity: -3, Flags: wd, FirstKey: 1, LastKey: -1, Step: 2, Categories: writeSlow, Run: msetnx},
		one("incr", 2, wdf, writeFast, incr),
		one("decr", 2, wdf, writeFast, decr),
		one("incrby", 3, wdf, writeFast, incrby),
		one("decrby", 3, wdf, writeFast, decrby),
		one("incrbyfloat", 3, wdf, writeFast, incrbyfloat),
		one("append", 3, wdf, writeFast, appendCmd),
		one("strlen", 2, rof, readFast, strlen),
		one("getrange", 4, ro, readSlow, getrange),
		one("substr", 4, ro, readSlow, getrange),
		one("setrange", 4, wd, writeSlow, setrange),
	}
}
