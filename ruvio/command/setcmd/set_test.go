package setcmd_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetCommands(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"SADD", "s", "a", "b", "a"}, want: int64(2)},
		{args: []string{"SADD", "s", "b", "c"}, want: int64(1)},
		{args: []string{"SADD", "s", "c"}, want: int64(0)},
		{args: []string{"SCARD", "s"}, want: int64(3)},
		{args: []string{"SCARD", "nokey"}, want: int64(0)},
		{args: []string{"SMEMBERS", "s"}, want: []any{"a", "b", "c"}, shape: unordered},
		{args: []string{"SMEMBERS", "nokey"}, want: []any{}},
		{args: []string{"SISMEMBER", "s", "a"}, want: int64(1)},
		{args: []string{"SISMEMBER", "s", "z"}, want: int64(0)},
		{args: []string{"SISMEMBER", "nokey", "a"}, want: int64(0)},
		{args: []string{"SMISMEMBER", "s", "a", "z", "c"}, want: []any{int64(1), int64(0), int64(1)}},
		{args: []string{"SMISMEMBER", "nokey", "a", "b"}, want: []any{int64(0), int64(0)}},
		{args: []string{"SREM", "s", "a", "z", "a"}, want: int64(1)},
		{args: []string{"SREM", "nokey", "a"}, want: int64(0)},
		{args: []string{"SREM", "s", "b", "c"}, want: int64(2)},
		{args: []string{"SCARD", "s"}, want: int64(0)},
		{args: []string{"SADD", "e", ""}, want: int64(1)},
		{args: []string{"SISMEMBER", "e", ""}, want: int64(1)},
	})
	if h.DB.Get("s") != nil {
		t.Fatal("emptied set still in the keyspace")
	}
	checkReplay(t, h)
}

func TestSmove(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "src", "a", "b")
	h.Do("SADD", "dst", "c")
	h.Do("SET", "str", "x")
	run(t, h, []step{
		{args: []string{"SMOVE", "src", "dst", "a"}, want: int64(1)},
		{args: []string{"SMOVE", "src", "dst", "a"}, want: int64(0)},
		{args: []string{"SMOVE", "src", "dst", "z"}, want: int64(0)},
		{args: []string{"SMEMBERS", "dst"}, want: []any{"a", "c"}, shape: unordered},
		// A member already in the destination still leaves the source.
		{args: []string{"SADD", "src", "c"}, want: int64(1)},
		{args: []string{"SMOVE", "src", "dst", "c"}, want: int64(1)},
		{args: []string{"SMEMBERS", "src"}, want: []any{"b"}},
		{args: []string{"SMEMBERS", "dst"}, want: []any{"a", "c"}, shape: unordered},
		// Same key: answers membership and changes nothing.
		{args: []string{"SMOVE", "dst", "dst", "a"}, want: int64(1)},
		{args: []string{"SMOVE", "dst", "dst", "z"}, want: int64(0)},
		// Type errors: a missing source answers 0 before the destination
		// is looked at.
		{args: []string{"SMOVE", "nokey", "str", "a"}, want: int64(0)},
		{args: []string{"SMOVE", "src", "str", "b"}, want: wrongType()},
		{args: []string{"SMOVE", "src", "str", "zz"}, want: wrongType()},
		{args: []string{"SMOVE", "str", "dst", "a"}, want: wrongType()},
		// The last member moving out removes the source; a missing
		// destination is created.
		{args: []string{"SMOVE", "src", "fresh", "b"}, want: int64(1)},
		{args: []string{"SCARD", "src"}, want: int64(0)},
		{args: []string{"SMEMBERS", "fresh"}, want: []any{"b"}},
	})
	if h.DB.Get("src") != nil {
		t.Fatal("emptied source still in the keyspace")
	}
	checkReplay(t, h)
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
		if got := h.Do(args...); got != wrongType() {
			t.Errorf("%q = %#v, want WRONGTYPE", args, got)
		}
	}
	if h.DB.Get("d") != nil {
		t.Fatal("a failed *STORE wrote its destination")
	}
	checkReplay(t, h)
}

func TestSetRESP3(t *testing.T) {
	h := newHarness(t)
	h.Proto = 3
	h.Do("SADD", "s", "a", "b")
	h.Do("SADD", "t", "b", "c")
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"SMEMBERS", "s"}, "~2\r\n"},
		{[]string{"SMEMBERS", "nokey"}, "~0\r\n"},
		{[]string{"SINTER", "s", "t"}, "~1\r\n$1\r\nb\r\n"},
		{[]string{"SINTER", "s", "nokey"}, "~0\r\n"},
		{[]string{"SUNION", "s", "t"}, "~3\r\n"},
		{[]string{"SDIFF", "s", "t"}, "~1\r\n$1\r\na\r\n"},
		{[]string{"SMISMEMBER", "s", "a"}, "*1\r\n:1\r\n"},
		{[]string{"SISMEMBER", "s", "a"}, ":1\r\n"},
		{[]string{"SRANDMEMBER", "s", "2"}, "*2\r\n"},
		{[]string{"SRANDMEMBER", "s", "-3"}, "*3\r\n"},
		{[]string{"SRANDMEMBER", "s", "5"}, "*2\r\n"},
		{[]string{"SRANDMEMBER", "nokey", "5"}, "*0\r\n"},
		{[]string{"SRANDMEMBER", "nokey"}, "_\r\n"},
		{[]string{"SSCAN", "s", "0"}, "*2\r\n$1\r\n0\r\n*2\r\n"},
		{[]string{"SINTERCARD", "2", "s", "t"}, ":1\r\n"},
	} {
		if got := raw(h, c.args...); !strings.HasPrefix(got, c.prefix) {
			t.Errorf("RESP3 %q = %q, want prefix %q", c.args, got, c.prefix)
		}
	}
	// SPOP writes; run it through the harness on its own keys.
	h.Do("SADD", "p", "x", "y", "z")
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"SPOP", "p", "2"}, "~2\r\n"},
		{[]string{"SPOP", "p", "0"}, "~0\r\n"},
		{[]string{"SPOP", "nokey", "3"}, "~0\r\n"},
		{[]string{"SPOP", "nokey"}, "_\r\n"},
	} {
		if got := raw(h, c.args...); !strings.HasPrefix(got, c.prefix) {
			t.Errorf("RESP3 %q = %q, want prefix %q", c.args, got, c.prefix)
		}
	}
	h.Proto = 2
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"SMEMBERS", "s"}, "*2\r\n"},
		{[]string{"SPOP", "nokey", "3"}, "*0\r\n"},
		{[]string{"SPOP", "nokey"}, "$-1\r\n"},
		{[]string{"SRANDMEMBER", "nokey"}, "$-1\r\n"},
	} {
		if got := raw(h, c.args...); !strings.HasPrefix(got, c.prefix) {
			t.Errorf("RESP2 %q = %q, want prefix %q", c.args, got, c.prefix)
		}
	}
}

func TestSintercard(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "a", "1", "2", "3", "4", "5")
	h.Do("SADD", "b", "2", "3", "4", "5", "6")
	h.Do("SADD", "c", "3", "4", "5", "7")
	run(t, h, []step{
		{args: []string{"SINTERCARD", "1", "a"}, want: int64(5)},
		{args: []string{"SINTERCARD", "2", "a", "b"}, want: int64(4)},
		{args: []string{"SINTERCARD", "3", "a", "b", "c"}, want: int64(3)},
		{args: []string{"SINTERCARD", "3", "a", "b", "c", "LIMIT", "2"}, want: int64(2)},
		{args: []string{"SINTERCARD", "3", "a", "b", "c", "limit", "0"}, want: int64(3)},
		{args: []string{"SINTERCARD", "3", "a", "b", "c", "LIMIT", "10"}, want: int64(3)},
		{args: []string{"SINTERCARD", "2", "a", "nokey"}, want: int64(0)},
		{args: []string{"SINTERCARD", "0", "a"}, want: cmdtest.Error("ERR numkeys should be greater than 0")},
		{args: []string{"SINTERCARD", "-1", "a"}, want: cmdtest.Error("ERR numkeys should be greater than 0")},
		{args: []string{"SINTERCARD", "x", "a"}, want: cmdtest.Error("ERR numkeys should be greater than 0")},
		{args: []string{"SINTERCARD", "3", "a", "b"}, want: cmdtest.Error("ERR Number of keys can't be greater than number of args")},
		{args: []string{"SINTERCARD", "2", "a", "b", "LIMIT"}, want: cmdtest.Error("ERR syntax error")},
		{args: []string{"SINTERCARD", "2", "a", "b", "BOGUS", "1"}, want: cmdtest.Error("ERR syntax error")},
		{args: []string{"SINTERCARD", "2", "a", "b", "LIMIT", "-1"}, want: cmdtest.Error("ERR LIMIT can't be negative")},
		{args: []string{"SINTERCARD", "2", "a", "b", "LIMIT", "x"}, want: cmdtest.Error("ERR LIMIT can't be negative")},
		// With numkeys 1, "b" is where an option should be.
		{args: []string{"SINTERCARD", "1", "a", "b"}, want: cmdtest.Error("ERR syntax error")},
	})
}
