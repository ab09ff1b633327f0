package stringcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetVariants(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	cmdtest.Steps{
		{Args: []string{"SETNX", "k", "v"}, Want: int64(1)},
		{Args: []string{"SETNX", "k", "w"}, Want: int64(0)},
		{Args: []string{"GET", "k"}, Want: "v"},
		{Args: []string{"SETNX", "h", "w"}, Want: int64(0)},
		{Args: []string{"TYPE", "h"}, Want: "hash"},

		{Args: []string{"SETEX", "k", "10", "v2"}, Want: "OK"},
		{Args: []string{"GET", "k"}, Want: "v2"},
		{Args: []string{"TTL", "k"}, Want: int64(10)},
		{Args: []string{"PTTL", "k"}, Want: int64(10000)},
		{Args: []string{"SETEX", "k", "0", "v"}, Want: cmdtest.Error("ERR invalid expire time in 'setex' command")},
		{Args: []string{"SETEX", "k", "-5", "v"}, Want: cmdtest.Error("ERR invalid expire time in 'setex' command")},
		{Args: []string{"SETEX", "k", "ten", "v"}, Want: errNotInt},
		{Args: []string{"SETEX", "k", maxInt64Text, "v"}, Want: cmdtest.Error("ERR invalid expire time in 'setex' command")},
		{Args: []string{"SETEX", "k"}, Want: cmdtest.Error("ERR wrong number of arguments for 'setex' command")},
		{Args: []string{"GET", "k"}, Want: "v2"},

		{Args: []string{"PSETEX", "p", "1500", "pv"}, Want: "OK"},
		{Args: []string{"PTTL", "p"}, Want: int64(1500)},
		{Args: []string{"TTL", "p"}, Want: int64(2)},
		{Args: []string{"PSETEX", "p", "0", "v"}, Want: cmdtest.Error("ERR invalid expire time in 'psetex' command")},
		{Args: []string{"PSETEX", "p", maxInt64Text, "v"}, Want: cmdtest.Error("ERR invalid expire time in 'psetex' command")},
		{Args: []string{"PSETEX", "p", "1.5", "v"}, Want: errNotInt},

		// SETEX replaces a value of another type.
		{Args: []string{"SETEX", "h", "100", "s"}, Want: "OK"},
		{Args: []string{"TYPE", "h"}, Want: "string"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	cmdtest.Steps{
		{Adv: 1499, Args: []string{"GET", "p"}, Want: "pv"},
		{Adv: 1, Args: []string{"GET", "p"}, Want: nil},
		{Args: []string{"SETNX", "p", "again"}, Want: int64(1)},
		{Args: []string{"PTTL", "p"}, Want: int64(-1)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestGetSetGetDel(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	cmdtest.Steps{
		{Args: []string{"GETSET", "k", "v"}, Want: nil},
		{Args: []string{"GET", "k"}, Want: "v"},
		{Args: []string{"SET", "k", "v2", "EX", "100"}, Want: "OK"},
		{Args: []string{"GETSET", "k", "v3"}, Want: "v2"},
		{Args: []string{"TTL", "k"}, Want: int64(-1)}, // GETSET drops the time to live
		{Args: []string{"GETSET", "h", "x"}, Want: cmdtest.WrongType},
		{Args: []string{"TYPE", "h"}, Want: "hash"},

		{Args: []string{"GETDEL", "k"}, Want: "v3"},
		{Args: []string{"EXISTS", "k"}, Want: int64(0)},
		{Args: []string{"GETDEL", "k"}, Want: nil},
		{Args: []string{"GETDEL", "h"}, Want: cmdtest.WrongType},
		{Args: []string{"EXISTS", "h"}, Want: int64(1)},
		{Args: []string{"SET", "t", "x", "PX", "100"}, Want: "OK"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	cmdtest.Steps{
		{Adv: 100, Args: []string{"GETDEL", "t"}, Want: nil},
		{Args: []string{"GETSET", "t", "y"}, Want: nil},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestGetex(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	invalid := cmdtest.Error("ERR invalid expire time in 'getex' command")
	cmdtest.Steps{
		{Args: []string{"GETEX", "nope"}, Want: nil},
		// The key is looked up before the time is checked.
		{Args: []string{"GETEX", "nope", "EX", "0"}, Want: nil},
		{Args: []string{"GETEX", "nope", "EX", "1", "PX", "1"}, Want: errSyntax},
		{Args: []string{"SET", "k", "v"}, Want: "OK"},
		{Args: []string{"GETEX", "k"}, Want: "v"},
		{Args: []string{"TTL", "k"}, Want: int64(-1)},
		{Args: []string{"GETEX", "k", "EX", "100"}, Want: "v"},
		{Args: []string{"TTL", "k"}, Want: int64(100)},
		{Args: []string{"GETEX", "k", "px", "2500"}, Want: "v"},
		{Args: []string{"PTTL", "k"}, Want: int64(2500)},
		{Args: []string{"GETEX", "k", "EXAT", itoa(now/1000 + 50)}, Want: "v"},
		{Args: []string{"TTL", "k"}, Want: int64(50)},
		{Args: []string{"GETEX", "k", "PXAT", itoa(now + 777)}, Want: "v"},
		{Args: []string{"PTTL", "k"}, Want: int64(777)},
		{Args: []string{"GETEX", "k", "PERSIST"}, Want: "v"},
		{Args: []string{"TTL", "k"}, Want: int64(-1)},
		{Args: []string{"GETEX", "k", "PERSIST", "persist"}, Want: "v"},
		{Args: []string{"GETEX", "k", "EX", "10", "EX", "20"}, Want: "v"},
		{Args: []string{"TTL", "k"}, Want: int64(20)},

		{Args: []string{"GETEX", "k", "EX", "10", "PERSIST"}, Want: errSyntax},
		{Args: []string{"GETEX", "k", "PERSIST", "EX", "10"}, Want: errSyntax},
		{Args: []string{"GETEX", "k", "EX", "10", "PX", "10"}, Want: errSyntax},
		{Args: []string{"GETEX", "k", "EX"}, Want: errSyntax},
		{Args: []string{"GETEX", "k", "KEEPTTL"}, Want: errSyntax},
		{Args: []string{"GETEX", "k", "EX", "0"}, Want: invalid},
		{Args: []string{"GETEX", "k", "PX", "-1"}, Want: invalid},
		{Args: []string{"GETEX", "k", "EX", maxInt64Text}, Want: invalid},
		{Args: []string{"GETEX", "k", "EX", "x"}, Want: errNotInt},
		{Args: []string{"GETEX", "k", "EX", "x", "FOO"}, Want: errSyntax},
		{Args: []string{"TTL", "k"}, Want: int64(20)},
		{Args: []string{"GETEX", "h"}, Want: cmdtest.WrongType},
		{Args: []string{"GETEX", "h", "EX", "0"}, Want: cmdtest.WrongType},

		// An absolute time in the past answers the value and deletes.
		{Args: []string{"GETEX", "k", "EXAT", "1"}, Want: "v"},
		{Args: []string{"EXISTS", "k"}, Want: int64(0)},
		{Args: []string{"SET", "k2", "w"}, Want: "OK"},
		{Args: []string{"GETEX", "k2", "PXAT", itoa(now)}, Want: "w"},
		{Args: []string{"EXISTS", "k2"}, Want: int64(0)},
		{Args: []string{"SET", "k3", "z"}, Want: "OK"},
		{Args: []string{"GETEX", "k3", "PX", "300"}, Want: "z"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	// Effects were logged with absolute times: replay later agrees.
	h.NowMs += 299
	cmdtest.CheckReplay(t, h)
	cmdtest.Steps{{Adv: 1, Args: []string{"GETEX", "k3"}, Want: nil}}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestMset(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	cmdtest.Steps{
		{Args: []string{"MSET", "a", "1", "b", "2"}, Want: "OK"},
		{Args: []string{"MGET", "a", "b", "c"}, Want: []any{"1", "2", nil}},
		{Args: []string{"MSET", "a", "1", "b"}, Want: cmdtest.Error("ERR wrong number of arguments for 'mset' command")},
		{Args: []string{"MSET", "a"}, Want: cmdtest.Error("ERR wrong number of arguments for 'mset' command")},
		{Args: []string{"MSET", "a", "x", "a", "y"}, Want: "OK"},
		{Args: []string{"GET", "a"}, Want: "y"},
		{Args: []string{"SET", "t", "v", "EX", "100"}, Want: "OK"},
		{Args: []string{"MSET", "t", "w", "h", "s"}, Want: "OK"},
		{Args: []string{"TTL", "t"}, Want: int64(-1)},
		{Args: []string{"TYPE", "h"}, Want: "string"},

		{Args: []string{"MSETNX", "a", "1", "c", "3"}, Want: int64(0)},
		{Args: []string{"EXISTS", "c"}, Want: int64(0)},
		{Args: []string{"MSETNX", "c", "3", "d", "4"}, Want: int64(1)},
		{Args: []string{"MGET", "c", "d"}, Want: []any{"3", "4"}},
		{Args: []string{"MSETNX", "e", "5", "f"}, Want: cmdtest.Error("ERR wrong number of arguments for 'msetnx' command")},
		{Args: []string{"MSETNX", "e", "5", "e", "6"}, Want: int64(1)},
		{Args: []string{"GET", "e"}, Want: "6"},
	}.Run(t, h)
	cmdtest.Steps{
		{Args: []string{"TESTHASH", "g"}, Want: "OK"},
		{Args: []string{"MSETNX", "x", "1", "g", "2"}, Want: int64(0)},
		{Args: []string{"EXISTS", "x"}, Want: int64(0)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

// TestStringSpecs pins the Redis 7 command table entries.
func TestStringSpecs(t *testing.T) {
	h := newHarness(t)
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"get":         {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "read string fast"},
		"set":         {Arity: -3, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write string slow"},
		"mget":        {Arity: -2, Flags: "readonly fast", First: 1, Last: -1, Step: 1, Categories: "read string fast"},
		"setnx":       {Arity: 3, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"setex":       {Arity: 4, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write string slow"},
		"psetex":      {Arity: 4, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write string slow"},
		"getset":      {Arity: 3, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"getdel":      {Arity: 2, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"getex":       {Arity: -2, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"mset":        {Arity: -3, Flags: "write denyoom", First: 1, Last: -1, Step: 2, Categories: "write string slow"},
		"msetnx":      {Arity: -3, Flags: "write denyoom", First: 1, Last: -1, Step: 2, Categories: "write string slow"},
		"incr":        {Arity: 2, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"decr":        {Arity: 2, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"incrby":      {Arity: 3, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"decrby":      {Arity: 3, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"incrbyfloat": {Arity: 3, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"append":      {Arity: 3, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write string fast"},
		"strlen":      {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "read string fast"},
		"getrange":    {Arity: 4, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read string slow"},
		"substr":      {Arity: 4, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read string slow"},
		"setrange":    {Arity: 4, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write string slow"},
	})
}
