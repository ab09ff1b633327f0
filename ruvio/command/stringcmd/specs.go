package stringcmd

import "github.com/ruvio/ruvio/ruvio/command"

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
	f := command.Family("string")
	return []*command.Spec{
		f.Spec("get", 2, rof, get).Copying(),
		f.Spec("set", -3, wd, set).Copying(),
		f.PerKey("mget", rof, command.ReplyValues, mget),
		f.Spec("setnx", 3, wdf, setnx).Copying(),
		f.Spec("setex", 4, wd, setex).Copying(),
		f.Spec("psetex", 4, wd, psetex).Copying(),
		f.Spec("getset", 3, wdf, getset).Copying(),
		f.Spec("getdel", 2, wf, getdel),
		f.Spec("getex", -2, wf, getex),
		f.Spec("mset", -3, wd, mset).KeysAt(1, -1, 2).Copying(),
		f.Spec("msetnx", -3, wd, msetnx).KeysAt(1, -1, 2).Copying(),
		f.Spec("incr", 2, wdf, incr).Copying(),
		f.Spec("decr", 2, wdf, decr).Copying(),
		f.Spec("incrby", 3, wdf, incrby).Copying(),
		f.Spec("decrby", 3, wdf, decrby).Copying(),
		f.Spec("incrbyfloat", 3, wdf, incrbyfloat),
		f.Spec("append", 3, wdf, appendCmd),
		f.Spec("strlen", 2, rof, strlen),
		f.Spec("getrange", 4, ro, getrange),
		f.Spec("substr", 4, ro, getrange),
		f.Spec("setrange", 4, wd, setrange),
	}
}
