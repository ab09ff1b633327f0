package hashcmd_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestHashCommands(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"HSET", "h", "a", "1", "b", "2"}, want: int64(2)},
		{args: []string{"HSET", "h", "a", "10", "c", "3"}, want: int64(1)},
		{args: []string{"HSET", "h", "d", "4", "d", "5"}, want: int64(1)},
		{args: []string{"HSET", "h", "a"}, want: cmdtest.Error("ERR wrong number of arguments for 'hset' command")},
		{args: []string{"HSET", "h", "a", "1", "b"}, want: cmdtest.Error("ERR wrong number of arguments for 'hset' command")},
		{args: []string{"HGET", "h", "a"}, want: "10"},
		{args: []string{"HGET", "h", "d"}, want: "5"},
		{args: []string{"HGET", "h", "zz"}, want: nil},
		{args: []string{"HGET", "nokey", "a"}, want: nil},
		{args: []string{"HMGET", "h", "a", "zz", "b"}, want: []any{"10", nil, "2"}},
		{args: []string{"HMGET", "nokey", "a", "b"}, want: []any{nil, nil}},
		{args: []string{"HSETNX", "h", "a", "x"}, want: int64(0)},
		{args: []string{"HSETNX", "h", "e", "x"}, want: int64(1)},
		{args: []string{"HSETNX", "h2", "f", "v"}, want: int64(1)},
		{args: []string{"HMSET", "h2", "g", "1", "f", "w"}, want: "OK"},
		{args: []string{"HMSET", "h2", "g"}, want: cmdtest.Error("ERR wrong number of arguments for 'hmset' command")},
		{args: []string{"HGETALL", "h2"}, want: []any{"f", "w", "g", "1"}, shape: pairs},
		{args: []string{"HGETALL", "nokey"}, want: []any{}},
		{args: []string{"HLEN", "h"}, want: int64(5)},
		{args: []string{"HLEN", "nokey"}, want: int64(0)},
		{args: []string{"HEXISTS", "h", "a"}, want: int64(1)},
		{args: []string{"HEXISTS", "h", "zz"}, want: int64(0)},
		{args: []string{"HEXISTS", "nokey", "a"}, want: int64(0)},
		{args: []string{"HSTRLEN", "h", "a"}, want: int64(2)},
		{args: []string{"HSTRLEN", "h", "zz"}, want: int64(0)},
		{args: []string{"HSTRLEN", "nokey", "a"}, want: int64(0)},
		{args: []string{"HKEYS", "h"}, want: []any{"a", "b", "c", "d", "e"}, shape: unordered},
		{args: []string{"HVALS", "h"}, want: []any{"10", "2", "3", "5", "x"}, shape: unordered},
		{args: []string{"HKEYS", "nokey"}, want: []any{}},
		{args: []string{"HVALS", "nokey"}, want: []any{}},
		{args: []string{"HDEL", "h", "a", "a", "zz", "b"}, want: int64(2)},
		{args: []string{"HDEL", "nokey", "a"}, want: int64(0)},
		{args: []string{"HDEL", "h", "c", "d", "e"}, want: int64(3)},
		// The last field's removal removes the key.
		{args: []string{"HLEN", "h"}, want: int64(0)},
	})
	if h.DB.Get("h") != nil {
		t.Fatal("emptied hash still in the keyspace")
	}
	checkReplay(t, h)
}

func TestHashEmptyValues(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"HSET", "h", "", ""}, want: int64(1)},
		{args: []string{"HGET", "h", ""}, want: ""},
		{args: []string{"HSTRLEN", "h", ""}, want: int64(0)},
		{args: []string{"HEXISTS", "h", ""}, want: int64(1)},
		{args: []string{"HSET", "h", "bin", "a\x00b\r\n"}, want: int64(1)},
		{args: []string{"HGET", "h", "bin"}, want: "a\x00b\r\n"},
		{args: []string{"HSTRLEN", "h", "bin"}, want: int64(5)},
	})
	checkReplay(t, h)
}

func TestHashWrongType(t *testing.T) {
	h := newHarness(t)
	h.Do("SET", "s", "v")
	for _, args := range [][]string{
		{"HSET", "s", "f", "v"},
		{"HMSET", "s", "f", "v"},
		{"HSETNX", "s", "f", "v"},
		{"HGET", "s", "f"},
		{"HMGET", "s", "f"},
		{"HDEL", "s", "f"},
		{"HGETALL", "s"},
		{"HLEN", "s"},
		{"HEXISTS", "s", "f"},
		{"HSTRLEN", "s", "f"},
		{"HKEYS", "s"},
		{"HVALS", "s"},
		{"HINCRBY", "s", "f", "1"},
		{"HINCRBYFLOAT", "s", "f", "1.5"},
		{"HSCAN", "s", "0"},
		{"HSCAN", "s", "0", "BOGUS"},
		{"HRANDFIELD", "s"},
		{"HRANDFIELD", "s", "2"},
		{"HRANDFIELD", "s", "-2", "WITHVALUES"},
	} {
		if got := h.Do(args...); got != wrongType() {
			t.Errorf("%q = %#v, want WRONGTYPE", args, got)
		}
	}
	// Errors found in the arguments come before the type check, as in
	// Redis.
	run(t, h, []step{
		{args: []string{"HSET", "s", "f"}, want: cmdtest.Error("ERR wrong number of arguments for 'hset' command")},
		{args: []string{"HINCRBY", "s", "f", "x"}, want: cmdtest.Error("ERR value is not an integer or out of range")},
		{args: []string{"HINCRBYFLOAT", "s", "f", "x"}, want: cmdtest.Error("ERR value is not a valid float")},
		{args: []string{"HSCAN", "s", "x"}, want: cmdtest.Error("ERR invalid cursor")},
		{args: []string{"HRANDFIELD", "s", "1", "X"}, want: cmdtest.Error("ERR syntax error")},
	})
	if got := h.Do("GET", "s"); got != "v" {
		t.Fatalf("string changed: %#v", got)
	}
	checkReplay(t, h)
}

func TestHashRESP3(t *testing.T) {
	h := newHarness(t)
	h.Proto = 3
	h.Do("HSET", "h", "a", "1", "b", "2")
	run(t, h, []step{
		{args: []string{"HGETALL", "h"}, want: map[string]any{"a": "1", "b": "2"}},
		{args: []string{"HGETALL", "nokey"}, want: map[string]any{}},
		{args: []string{"HMGET", "h", "a", "zz"}, want: []any{"1", nil}},
		{args: []string{"HGET", "h", "zz"}, want: nil},
		{args: []string{"HEXISTS", "h", "a"}, want: int64(1)},
		{args: []string{"HINCRBYFLOAT", "h", "a", "0.5"}, want: "1.5"},
		{args: []string{"HRANDFIELD", "nokey"}, want: nil},
	})
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"HGETALL", "h"}, "%2\r\n"},
		{[]string{"HGETALL", "nokey"}, "%0\r\n"},
		{[]string{"HKEYS", "h"}, "*2\r\n"},
		{[]string{"HVALS", "h"}, "*2\r\n"},
		{[]string{"HMGET", "h", "zz"}, "*1\r\n_\r\n"},
		{[]string{"HINCRBYFLOAT", "h", "b", "1"}, "$1\r\n3\r\n"},
		{[]string{"HSCAN", "h", "0"}, "*2\r\n$1\r\n0\r\n*4\r\n"},
		{[]string{"HRANDFIELD", "h", "1", "WITHVALUES"}, "*1\r\n*2\r\n"},
		{[]string{"HRANDFIELD", "h", "-3", "WITHVALUES"}, "*3\r\n*2\r\n"},
		{[]string{"HRANDFIELD", "h", "5"}, "*2\r\n$1\r\n"},
		{[]string{"HRANDFIELD", "nokey", "5"}, "*0\r\n"},
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
		{[]string{"HGETALL", "h"}, "*4\r\n"},
		{[]string{"HGETALL", "nokey"}, "*0\r\n"},
		{[]string{"HMGET", "h", "zz"}, "*1\r\n$-1\r\n"},
		{[]string{"HRANDFIELD", "h", "1", "WITHVALUES"}, "*2\r\n$1\r\n"},
		{[]string{"HRANDFIELD", "h", "-3", "WITHVALUES"}, "*6\r\n$1\r\n"},
		{[]string{"HRANDFIELD", "nokey"}, "$-1\r\n"},
	} {
		if got := raw(h, c.args...); !strings.HasPrefix(got, c.prefix) {
			t.Errorf("RESP2 %q = %q, want prefix %q", c.args, got, c.prefix)
		}
	}
}

// TestHashReplay runs writes of every kind, with expiry in between, and
// checks the log rebuilds the same keyspace.
func TestHashReplay(t *testing.T) {
	h := newHarness(t)
	h.Do("HSET", "h", "a", "1", "b", "2", "c", "3")
	h.Do("HSETNX", "h", "d", "4")
	h.Do("HMSET", "h", "e", "5")
	h.Do("HDEL", "h", "b")
	h.Do("HINCRBY", "h", "a", "41")
	h.Do("HINCRBYFLOAT", "h", "f", "0.1")
	h.Do("HINCRBYFLOAT", "h", "f", "0.2")
	h.Do("SET", "t", "x", "PX", "100")
	h.Do("HSET", "gone", "f", "v")
	h.Do("HDEL", "gone", "f")
	h.NowMs += 200
	h.Do("HSET", "t", "f", "v") // the string expired: now a hash
	checkReplay(t, h)
	if got := h.Do("HGET", "h", "f"); got != "0.3" {
		t.Fatalf("HINCRBYFLOAT 0.1 + 0.2 = %#v, want 0.3", got)
	}
	// HINCRBYFLOAT is logged as HSET of its result, never as itself.
	var logged []string
	for _, argv := range h.Log {
		if strings.EqualFold(string(argv[0]), "hincrbyfloat") {
			t.Fatalf("HINCRBYFLOAT logged verbatim: %q", argv)
		}
		if string(argv[0]) == "HSET" && string(argv[1]) == "h" && string(argv[2]) == "f" {
			logged = append(logged, string(argv[3]))
		}
	}
	if strings.Join(logged, " ") != "0.1 0.3" {
		t.Fatalf("HINCRBYFLOAT logged values %q, want [0.1 0.3]", logged)
	}
}
