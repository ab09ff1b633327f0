package stringcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetVariants(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	run(t, h, []step{
		{args: []string{"SETNX", "k", "v"}, want: int64(1)},
		{args: []string{"SETNX", "k", "w"}, want: int64(0)},
		{args: []string{"GET", "k"}, want: "v"},
		{args: []string{"SETNX", "h", "w"}, want: int64(0)},
		{args: []string{"TYPE", "h"}, want: "hash"},

		{args: []string{"SETEX", "k", "10", "v2"}, want: "OK"},
		{args: []string{"GET", "k"}, want: "v2"},
		{args: []string{"TTL", "k"}, want: int64(10)},
		{args: []string{"PTTL", "k"}, want: int64(10000)},
		{args: []string{"SETEX", "k", "0", "v"}, want: cmdtest.Error("ERR invalid expire time in 'setex' command")},
		{args: []string{"SETEX", "k", "-5", "v"}, want: cmdtest.Error("ERR invalid expire time in 'setex' command")},
		{args: []string{"SETEX", "k", "ten", "v"}, want: errNotInt},
		{args: []string{"SETEX", "k", maxInt64Text, "v"}, want: cmdtest.Error("ERR invalid expire time in 'setex' command")},
		{args: []string{"SETEX", "k"}, want: cmdtest.Error("ERR wrong number of arguments for 'setex' command")},
		{args: []string{"GET", "k"}, want: "v2"},

		{args: []string{"PSETEX", "p", "1500", "pv"}, want: "OK"},
		{args: []string{"PTTL", "p"}, want: int64(1500)},
		{args: []string{"TTL", "p"}, want: int64(2)},
		{args: []string{"PSETEX", "p", "0", "v"}, want: cmdtest.Error("ERR invalid expire time in 'psetex' command")},
		{args: []string{"PSETEX", "p", maxInt64Text, "v"}, want: cmdtest.Error("ERR invalid expire time in 'psetex' command")},
		{args: []string{"PSETEX", "p", "1.5", "v"}, want: errNotInt},

		// SETEX replaces a value of another type.
		{args: []string{"SETEX", "h", "100", "s"}, want: "OK"},
		{args: []string{"TYPE", "h"}, want: "string"},
	})
	checkReplay(t, h)
	run(t, h, []step{
		{adv: 1499, args: []string{"GET", "p"}, want: "pv"},
		{adv: 1, args: []string{"GET", "p"}, want: nil},
		{args: []string{"SETNX", "p", "again"}, want: int64(1)},
		{args: []string{"PTTL", "p"}, want: int64(-1)},
	})
	checkReplay(t, h)
}

func TestGetSetGetDel(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	run(t, h, []step{
		{args: []string{"GETSET", "k", "v"}, want: nil},
		{args: []string{"GET", "k"}, want: "v"},
		{args: []string{"SET", "k", "v2", "EX", "100"}, want: "OK"},
		{args: []string{"GETSET", "k", "v3"}, want: "v2"},
		{args: []string{"TTL", "k"}, want: int64(-1)}, // GETSET drops the time to live
		{args: []string{"GETSET", "h", "x"}, want: wrongType()},
		{args: []string{"TYPE", "h"}, want: "hash"},

		{args: []string{"GETDEL", "k"}, want: "v3"},
		{args: []string{"EXISTS", "k"}, want: int64(0)},
		{args: []string{"GETDEL", "k"}, want: nil},
		{args: []string{"GETDEL", "h"}, want: wrongType()},
		{args: []string{"EXISTS", "h"}, want: int64(1)},
		{args: []string{"SET", "t", "x", "PX", "100"}, want: "OK"},
	})
	checkReplay(t, h)
	run(t, h, []step{
		{adv: 100, args: []string{"GETDEL", "t"}, want: nil},
		{args: []string{"GETSET", "t", "y"}, want: nil},
	})
	checkReplay(t, h)
}

func TestGetex(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	invalid := cmdtest.Error("ERR invalid expire time in 'getex' command")
	run(t, h, []step{
		{args: []string{"GETEX", "nope"}, want: nil},
		// The key is looked up before the time is checked.
		{args: []string{"GETEX", "nope", "EX", "0"}, want: nil},
		{args: []string{"GETEX", "nope", "EX", "1", "PX", "1"}, want: errSyntax},
		{args: []string{"SET", "k", "v"}, want: "OK"},
		{args: []string{"GETEX", "k"}, want: "v"},
		{args: []string{"TTL", "k"}, want: int64(-1)},
		{args: []string{"GETEX", "k", "EX", "100"}, want: "v"},
		{args: []string{"TTL", "k"}, want: int64(100)},
		{args: []string{"GETEX", "k", "px", "2500"}, want: "v"},
		{args: []string{"PTTL", "k"}, want: int64(2500)},
		{args: []string{"GETEX", "k", "EXAT", itoa(now/1000 + 50)}, want: "v"},
		{args: []string{"TTL", "k"}, want: int64(50)},
		{args: []string{"GETEX", "k", "PXAT", itoa(now + 777)}, want: "v"},
		{args: []string{"PTTL", "k"}, want: int64(777)},
		{args: []string{"GETEX", "k", "PERSIST"}, want: "v"},
		{args: []string{"TTL", "k"}, want: int64(-1)},
		{args: []string{"GETEX", "k", "PERSIST", "persist"}, want: "v"},
		{args: []string{"GETEX", "k", "EX", "10", "EX", "20"}, want: "v"},
		{args: []string{"TTL", "k"}, want: int64(20)},

		{args: []string{"GETEX", "k", "EX", "10", "PERSIST"}, want: errSyntax},
		{args: []string{"GETEX", "k", "PERSIST", "EX", "10"}, want: errSyntax},
		{args: []string{"GETEX", "k", "EX", "10", "PX", "10"}, want: errSyntax},
		{args: []string{"GETEX", "k", "EX"}, want: errSyntax},
		{args: []string{"GETEX", "k", "KEEPTTL"}, want: errSyntax},
		{args: []string{"GETEX", "k", "EX", "0"}, want: invalid},
		{args: []string{"GETEX", "k", "PX", "-1"}, want: invalid},
		{args: []string{"GETEX", "k", "EX", maxInt64Text}, want: invalid},
		{args: []string{"GETEX", "k", "EX", "x"}, want: errNotInt},
		{args: []string{"GETEX", "k", "EX", "x", "FOO"}, want: errSyntax},
		{args: []string{"TTL", "k"}, want: int64(20)},
		{args: []string{"GETEX", "h"}, want: wrongType()},
		{args: []string{"GETEX", "h", "EX", "0"}, want: wrongType()},

		// An absolute time in the past answers the value and deletes.
		{args: []string{"GETEX", "k", "EXAT", "1"}, want: "v"},
		{args: []string{"EXISTS", "k"}, want: int64(0)},
		{args: []string{"SET", "k2", "w"}, want: "OK"},
		{args: []string{"GETEX", "k2", "PXAT", itoa(now)}, want: "w"},
		{args: []string{"EXISTS", "k2"}, want: int64(0)},
		{args: []string{"SET", "k3", "z"}, want: "OK"},
		{args: []string{"GETEX", "k3", "PX", "300"}, want: "z"},
	})
	checkReplay(t, h)
	// Effects were logged with absolute times: replay later agrees.
	h.NowMs += 299
	checkReplay(t, h)
	run(t, h, []step{{adv: 1, args: []string{"GETEX", "k3"}, want: nil}})
	checkReplay(t, h)
}

func TestMset(t *testing.T) {
	h := newHarness(t)
	h.Do("TESTHASH", "h")
	run(t, h, []step{
		{args: []string{"MSET", "a", "1", "b", "2"}, want: "OK"},
		{args: []string{"MGET", "a", "b", "c"}, want: []any{"1", "2", nil}},
		{args: []string{"MSET", "a", "1", "b"}, want: cmdtest.Error("ERR wrong number of arguments for 'mset' command")},
		{args: []string{"MSET", "a"}, want: cmdtest.Error("ERR wrong number of arguments for 'mset' command")},
		{args: []string{"MSET", "a", "x", "a", "y"}, want: "OK"},
		{args: []string{"GET", "a"}, want: "y"},
		{args: []string{"SET", "t", "v", "EX", "100"}, want: "OK"},
		{args: []string{"MSET", "t", "w", "h", "s"}, want: "OK"},
		{args: []string{"TTL", "t"}, want: int64(-1)},
		{args: []string{"TYPE", "h"}, want: "string"},

		{args: []string{"MSETNX", "a", "1", "c", "3"}, want: int64(0)},
		{args: []string{"EXISTS", "c"}, want: int64(0)},
		{args: []string{"MSETNX", "c", "3", "d", "4"}, want: int64(1)},
		{args: []string{"MGET", "c", "d"}, want: []any{"3", "4"}},
		{args: []string{"MSETNX", "e", "5", "f"}, want: cmdtest.Error("ERR wrong number of arguments for 'msetnx' command")},
		{args: []string{"MSETNX", "e", "5", "e", "6"}, want: int64(1)},
		{args: []string{"GET", "e"}, want: "6"},
	})
	run(t, h, []step{
		{args: []string{"TESTHASH", "g"}, want: "OK"},
		{args: []string{"MSETNX", "x", "1", "g", "2"}, want: int64(0)},
		{args: []string{"EXISTS", "x"}, want: int64(0)},
	})
	checkReplay(t, h)
}

// TestStringSpecs pins the Redis 7 command table entries.
func TestStringSpecs(t *testing.T) {
	h := newHarness(t)
	want := map[string]struct {
		arity             int
		flags             string
		first, last, step int
		categories        string
	}{
		"get":         {2, "readonly fast", 1, 1, 1, "read string fast"},
		"set":         {-3, "write denyoom", 1, 1, 1, "write string slow"},
		"mget":        {-2, "readonly fast", 1, -1, 1, "read string fast"},
		"setnx":       {3, "write denyoom fast", 1, 1, 1, "write string fast"},
		"setex":       {4, "write denyoom", 1, 1, 1, "write string slow"},
		"psetex":      {4, "write denyoom", 1, 1, 1, "write string slow"},
		"getset":      {3, "write denyoom fast", 1, 1, 1, "write string fast"},
		"getdel":      {2, "write fast", 1, 1, 1, "write string fast"},
		"getex":       {-2, "write fast", 1, 1, 1, "write string fast"},
		"mset":        {-3, "write denyoom", 1, -1, 2, "write string slow"},
		"msetnx":      {-3, "write denyoom", 1, -1, 2, "write string slow"},
		"incr":        {2, "write denyoom fast", 1, 1, 1, "write string fast"},
		"decr":        {2, "write denyoom fast", 1, 1, 1, "write string fast"},
		"incrby":      {3, "write denyoom fast", 1, 1, 1, "write string fast"},
		"decrby":      {3, "write denyoom fast", 1, 1, 1, "write string fast"},
		"incrbyfloat": {3, "write denyoom fast", 1, 1, 1, "write string fast"},
		"append":      {3, "write denyoom fast", 1, 1, 1, "write string fast"},
		"strlen":      {2, "readonly fast", 1, 1, 1, "read string fast"},
		"getrange":    {4, "readonly", 1, 1, 1, "read string slow"},
		"substr":      {4, "readonly", 1, 1, 1, "read string slow"},
		"setrange":    {4, "write denyoom", 1, 1, 1, "write string slow"},
	}
	for name, w := range want {
		s := h.Table.Lookup([]byte(name))
		if s == nil {
			t.Errorf("%s missing", name)
			continue
		}
		got := struct {
			arity             int
			flags             string
			first, last, step int
			categories        string
		}{s.Arity, join(s.Flags.Names()), s.FirstKey, s.LastKey, s.Step, join(s.Categories)}
		if got != w {
			t.Errorf("%s = %+v, want %+v", name, got, w)
		}
	}
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}
