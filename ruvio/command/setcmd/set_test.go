package setcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetCommands(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SADD", "s", "a", "b", "a"}, Want: int64(2)},
		{Args: []string{"SADD", "s", "b", "c"}, Want: int64(1)},
		{Args: []string{"SADD", "s", "c"}, Want: int64(0)},
		{Args: []string{"SCARD", "s"}, Want: int64(3)},
		{Args: []string{"SCARD", "nokey"}, Want: int64(0)},
		{Args: []string{"SMEMBERS", "s"}, Want: []any{"a", "b", "c"}, Shape: cmdtest.Unordered},
		{Args: []string{"SMEMBERS", "nokey"}, Want: []any{}},
		{Args: []string{"SISMEMBER", "s", "a"}, Want: int64(1)},
		{Args: []string{"SISMEMBER", "s", "z"}, Want: int64(0)},
		{Args: []string{"SISMEMBER", "nokey", "a"}, Want: int64(0)},
		{Args: []string{"SMISMEMBER", "s", "a", "z", "c"}, Want: []any{int64(1), int64(0), int64(1)}},
		{Args: []string{"SMISMEMBER", "nokey", "a", "b"}, Want: []any{int64(0), int64(0)}},
		{Args: []string{"SREM", "s", "a", "z", "a"}, Want: int64(1)},
		{Args: []string{"SREM", "nokey", "a"}, Want: int64(0)},
		{Args: []string{"SREM", "s", "b", "c"}, Want: int64(2)},
		{Args: []string{"SCARD", "s"}, Want: int64(0)},
		{Args: []string{"SADD", "e", ""}, Want: int64(1)},
		{Args: []string{"SISMEMBER", "e", ""}, Want: int64(1)},
	}.Run(t, h)
	if h.DB.Get("s") != nil {
		t.Fatal("emptied set still in the keyspace")
	}
	cmdtest.CheckReplay(t, h)
}

func TestSmove(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "src", "a", "b")
	h.Do("SADD", "dst", "c")
	h.Do("SET", "str", "x")
	cmdtest.Steps{
		{Args: []string{"SMOVE", "src", "dst", "a"}, Want: int64(1)},
		{Args: []string{"SMOVE", "src", "dst", "a"}, Want: int64(0)},
		{Args: []string{"SMOVE", "src", "dst", "z"}, Want: int64(0)},
		{Args: []string{"SMEMBERS", "dst"}, Want: []any{"a", "c"}, Shape: cmdtest.Unordered},
		// A member already in the destination still leaves the source.
		{Args: []string{"SADD", "src", "c"}, Want: int64(1)},
		{Args: []string{"SMOVE", "src", "dst", "c"}, Want: int64(1)},
		{Args: []string{"SMEMBERS", "src"}, Want: []any{"b"}},
		{Args: []string{"SMEMBERS", "dst"}, Want: []any{"a", "c"}, Shape: cmdtest.Unordered},
		// Same key: answers membership and changes nothing.
		{Args: []string{"SMOVE", "dst", "dst", "a"}, Want: int64(1)},
		{Args: []string{"SMOVE", "dst", "dst", "z"}, Want: int64(0)},
		// Type errors: a missing source answers 0 before the destination
		// is looked at.
		{Args: []string{"SMOVE", "nokey", "str", "a"}, Want: int64(0)},
		{Args: []string{"SMOVE", "src", "str", "b"}, Want: cmdtest.WrongType},
		{Args: []string{"SMOVE", "src", "str", "zz"}, Want: cmdtest.WrongType},
		{Args: []string{"SMOVE", "str", "dst", "a"}, Want: cmdtest.WrongType},
		// The last member moving out removes the source; a missing
		// destination is created.
		{Args: []string{"SMOVE", "src", "fresh", "b"}, Want: int64(1)},
		{Args: []string{"SCARD", "src"}, Want: int64(0)},
		{Args: []string{"SMEMBERS", "fresh"}, Want: []any{"b"}},
	}.Run(t, h)
	if h.DB.Get("src") != nil {
		t.Fatal("emptied source still in the keyspace")
	}
	cmdtest.CheckReplay(t, h)
}

func TestSetWrongType(t *testing.T) {
	h := newHarness(t)
	h.Do("SET", "str", "v")
	h.Do("SADD", "s", "a")
	for _, args := range [][]string{
		{"SADD", "str", "a"},
		{"SREM", "str", "a"},
		{"SMEMBERS", "str"},
		{"SISMEMBER", "str", "a"},
		{"SMISMEMBER", "str", "a"},
		{"SCARD", "str"},
		{"SPOP", "str"},
		{"SPOP", "str", "2"},
		{"SRANDMEMBER", "str"},
		{"SRANDMEMBER", "str", "-2"},
		{"SSCAN", "str", "0"},
		{"SINTER", "s", "str"},
		// Redis 7 checks every key's type, even after a missing key.
		{"SINTER", "nokey", "str"},
		{"SUNION", "s", "str"},
		{"SDIFF", "s", "str"},
		{"SDIFF", "nokey", "str"},
		{"SINTERSTORE", "d", "s", "str"},
		{"SUNIONSTORE", "d", "s", "str"},
		{"SDIFFSTORE", "d", "s", "str"},
		{"SINTERCARD", "2", "s", "str"},
		{"SINTERCARD", "2", "nokey", "str"},
	} {
		if got := h.Do(args...); got != cmdtest.WrongType {
			t.Errorf("%q = %#v, want WRONGTYPE", args, got)
		}
	}
	if h.DB.Get("d") != nil {
		t.Fatal("a failed *STORE wrote its destination")
	}
	cmdtest.CheckReplay(t, h)
}

func TestSetRESP3(t *testing.T) {
	h := newHarness(t)
	h.Proto = 3
	h.Do("SADD", "s", "a", "b")
	h.Do("SADD", "t", "b", "c")
	cmdtest.RawSteps{
		{Args: []string{"SMEMBERS", "s"}, Prefix: "~2\r\n"},
		{Args: []string{"SMEMBERS", "nokey"}, Prefix: "~0\r\n"},
		{Args: []string{"SINTER", "s", "t"}, Prefix: "~1\r\n$1\r\nb\r\n"},
		{Args: []string{"SINTER", "s", "nokey"}, Prefix: "~0\r\n"},
		{Args: []string{"SUNION", "s", "t"}, Prefix: "~3\r\n"},
		{Args: []string{"SDIFF", "s", "t"}, Prefix: "~1\r\n$1\r\na\r\n"},
		{Args: []string{"SMISMEMBER", "s", "a"}, Prefix: "*1\r\n:1\r\n"},
		{Args: []string{"SISMEMBER", "s", "a"}, Prefix: ":1\r\n"},
		{Args: []string{"SRANDMEMBER", "s", "2"}, Prefix: "*2\r\n"},
		{Args: []string{"SRANDMEMBER", "s", "-3"}, Prefix: "*3\r\n"},
		{Args: []string{"SRANDMEMBER", "s", "5"}, Prefix: "*2\r\n"},
		{Args: []string{"SRANDMEMBER", "nokey", "5"}, Prefix: "*0\r\n"},
		{Args: []string{"SRANDMEMBER", "nokey"}, Prefix: "_\r\n"},
		{Args: []string{"SSCAN", "s", "0"}, Prefix: "*2\r\n$1\r\n0\r\n*2\r\n"},
		{Args: []string{"SINTERCARD", "2", "s", "t"}, Prefix: ":1\r\n"},
	}.Run(t, h)
	// SPOP writes; run it through the harness on its own keys.
	h.Do("SADD", "p", "x", "y", "z")
	cmdtest.RawSteps{
		{Args: []string{"SPOP", "p", "2"}, Prefix: "~2\r\n"},
		{Args: []string{"SPOP", "p", "0"}, Prefix: "~0\r\n"},
		{Args: []string{"SPOP", "nokey", "3"}, Prefix: "~0\r\n"},
		{Args: []string{"SPOP", "nokey"}, Prefix: "_\r\n"},
	}.Run(t, h)
	h.Proto = 2
	cmdtest.RawSteps{
		{Args: []string{"SMEMBERS", "s"}, Prefix: "*2\r\n"},
		{Args: []string{"SPOP", "nokey", "3"}, Prefix: "*0\r\n"},
		{Args: []string{"SPOP", "nokey"}, Prefix: "$-1\r\n"},
		{Args: []string{"SRANDMEMBER", "nokey"}, Prefix: "$-1\r\n"},
	}.Run(t, h)
}

func TestSintercard(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "a", "1", "2", "3", "4", "5")
	h.Do("SADD", "b", "2", "3", "4", "5", "6")
	h.Do("SADD", "c", "3", "4", "5", "7")
	cmdtest.Steps{
		{Args: []string{"SINTERCARD", "1", "a"}, Want: int64(5)},
		{Args: []string{"SINTERCARD", "2", "a", "b"}, Want: int64(4)},
		{Args: []string{"SINTERCARD", "3", "a", "b", "c"}, Want: int64(3)},
		{Args: []string{"SINTERCARD", "3", "a", "b", "c", "LIMIT", "2"}, Want: int64(2)},
		{Args: []string{"SINTERCARD", "3", "a", "b", "c", "limit", "0"}, Want: int64(3)},
		{Args: []string{"SINTERCARD", "3", "a", "b", "c", "LIMIT", "10"}, Want: int64(3)},
		{Args: []string{"SINTERCARD", "2", "a", "nokey"}, Want: int64(0)},
		{Args: []string{"SINTERCARD", "0", "a"}, Want: cmdtest.Error("ERR numkeys should be greater than 0")},
		{Args: []string{"SINTERCARD", "-1", "a"}, Want: cmdtest.Error("ERR numkeys should be greater than 0")},
		{Args: []string{"SINTERCARD", "x", "a"}, Want: cmdtest.Error("ERR numkeys should be greater than 0")},
		{Args: []string{"SINTERCARD", "3", "a", "b"}, Want: cmdtest.Error("ERR Number of keys can't be greater than number of args")},
		{Args: []string{"SINTERCARD", "2", "a", "b", "LIMIT"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SINTERCARD", "2", "a", "b", "BOGUS", "1"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SINTERCARD", "2", "a", "b", "LIMIT", "-1"}, Want: cmdtest.Error("ERR LIMIT can't be negative")},
		{Args: []string{"SINTERCARD", "2", "a", "b", "LIMIT", "x"}, Want: cmdtest.Error("ERR LIMIT can't be negative")},
		// With numkeys 1, "b" is where an option should be.
		{Args: []string{"SINTERCARD", "1", "a", "b"}, Want: cmdtest.Error("ERR syntax error")},
	}.Run(t, h)
}
