package hashcmd_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestHashCommands(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"HSET", "h", "a", "1", "b", "2"}, Want: int64(2)},
		{Args: []string{"HSET", "h", "a", "10", "c", "3"}, Want: int64(1)},
		{Args: []string{"HSET", "h", "d", "4", "d", "5"}, Want: int64(1)},
		{Args: []string{"HSET", "h", "a"}, Want: cmdtest.Error("ERR wrong number of arguments for 'hset' command")},
		{Args: []string{"HSET", "h", "a", "1", "b"}, Want: cmdtest.Error("ERR wrong number of arguments for 'hset' command")},
		{Args: []string{"HGET", "h", "a"}, Want: "10"},
		{Args: []string{"HGET", "h", "d"}, Want: "5"},
		{Args: []string{"HGET", "h", "zz"}, Want: nil},
		{Args: []string{"HGET", "nokey", "a"}, Want: nil},
		{Args: []string{"HMGET", "h", "a", "zz", "b"}, Want: []any{"10", nil, "2"}},
		{Args: []string{"HMGET", "nokey", "a", "b"}, Want: []any{nil, nil}},
		{Args: []string{"HSETNX", "h", "a", "x"}, Want: int64(0)},
		{Args: []string{"HSETNX", "h", "e", "x"}, Want: int64(1)},
		{Args: []string{"HSETNX", "h2", "f", "v"}, Want: int64(1)},
		{Args: []string{"HMSET", "h2", "g", "1", "f", "w"}, Want: "OK"},
		{Args: []string{"HMSET", "h2", "g"}, Want: cmdtest.Error("ERR wrong number of arguments for 'hmset' command")},
		{Args: []string{"HGETALL", "h2"}, Want: []any{"f", "w", "g", "1"}, Shape: cmdtest.Pairs},
		{Args: []string{"HGETALL", "nokey"}, Want: []any{}},
		{Args: []string{"HLEN", "h"}, Want: int64(5)},
		{Args: []string{"HLEN", "nokey"}, Want: int64(0)},
		{Args: []string{"HEXISTS", "h", "a"}, Want: int64(1)},
		{Args: []string{"HEXISTS", "h", "zz"}, Want: int64(0)},
		{Args: []string{"HEXISTS", "nokey", "a"}, Want: int64(0)},
		{Args: []string{"HSTRLEN", "h", "a"}, Want: int64(2)},
		{Args: []string{"HSTRLEN", "h", "zz"}, Want: int64(0)},
		{Args: []string{"HSTRLEN", "nokey", "a"}, Want: int64(0)},
		{Args: []string{"HKEYS", "h"}, Want: []any{"a", "b", "c", "d", "e"}, Shape: cmdtest.Unordered},
		{Args: []string{"HVALS", "h"}, Want: []any{"10", "2", "3", "5", "x"}, Shape: cmdtest.Unordered},
		{Args: []string{"HKEYS", "nokey"}, Want: []any{}},
		{Args: []string{"HVALS", "nokey"}, Want: []any{}},
		{Args: []string{"HDEL", "h", "a", "a", "zz", "b"}, Want: int64(2)},
		{Args: []string{"HDEL", "nokey", "a"}, Want: int64(0)},
		{Args: []string{"HDEL", "h", "c", "d", "e"}, Want: int64(3)},
		// The last field's removal removes the key.
		{Args: []string{"HLEN", "h"}, Want: int64(0)},
	}.Run(t, h)
	if h.DB.Get("h") != nil {
		t.Fatal("emptied hash still in the keyspace")
	}
	cmdtest.CheckReplay(t, h)
}

func TestHashEmptyValues(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"HSET", "h", "", ""}, Want: int64(1)},
		{Args: []string{"HGET", "h", ""}, Want: ""},
		{Args: []string{"HSTRLEN", "h", ""}, Want: int64(0)},
		{Args: []string{"HEXISTS", "h", ""}, Want: int64(1)},
		{Args: []string{"HSET", "h", "bin", "a\x00b\r\n"}, Want: int64(1)},
		{Args: []string{"HGET", "h", "bin"}, Want: "a\x00b\r\n"},
		{Args: []string{"HSTRLEN", "h", "bin"}, Want: int64(5)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
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
		if got := h.Do(args...); got != cmdtest.WrongType {
			t.Errorf("%q = %#v, want WRONGTYPE", args, got)
		}
	}
	// Errors found in the arguments come before the type check, as in
	// Redis.
	cmdtest.Steps{
		{Args: []string{"HSET", "s", "f"}, Want: cmdtest.Error("ERR wrong number of arguments for 'hset' command")},
		{Args: []string{"HINCRBY", "s", "f", "x"}, Want: cmdtest.Error("ERR value is not an integer or out of range")},
		{Args: []string{"HINCRBYFLOAT", "s", "f", "x"}, Want: cmdtest.Error("ERR value is not a valid float")},
		{Args: []string{"HSCAN", "s", "x"}, Want: cmdtest.Error("ERR invalid cursor")},
		{Args: []string{"HRANDFIELD", "s", "1", "X"}, Want: cmdtest.Error("ERR syntax error")},
	}.Run(t, h)
	if got := h.Do("GET", "s"); got != "v" {
		t.Fatalf("string changed: %#v", got)
	}
	cmdtest.CheckReplay(t, h)
}

func TestHashRESP3(t *testing.T) {
	h := newHarness(t)
	h.Proto = 3
	h.Do("HSET", "h", "a", "1", "b", "2")
	cmdtest.Steps{
		{Args: []string{"HGETALL", "h"}, Want: map[string]any{"a": "1", "b": "2"}},
		{Args: []string{"HGETALL", "nokey"}, Want: map[string]any{}},
		{Args: []string{"HMGET", "h", "a", "zz"}, Want: []any{"1", nil}},
		{Args: []string{"HGET", "h", "zz"}, Want: nil},
		{Args: []string{"HEXISTS", "h", "a"}, Want: int64(1)},
		{Args: []string{"HINCRBYFLOAT", "h", "a", "0.5"}, Want: "1.5"},
		{Args: []string{"HRANDFIELD", "nokey"}, Want: nil},
	}.Run(t, h)
	cmdtest.RawSteps{
		{Args: []string{"HGETALL", "h"}, Prefix: "%2\r\n"},
		{Args: []string{"HGETALL", "nokey"}, Prefix: "%0\r\n"},
		{Args: []string{"HKEYS", "h"}, Prefix: "*2\r\n"},
		{Args: []string{"HVALS", "h"}, Prefix: "*2\r\n"},
		{Args: []string{"HMGET", "h", "zz"}, Prefix: "*1\r\n_\r\n"},
		{Args: []string{"HINCRBYFLOAT", "h", "b", "1"}, Prefix: "$1\r\n3\r\n"},
		{Args: []string{"HSCAN", "h", "0"}, Prefix: "*2\r\n$1\r\n0\r\n*4\r\n"},
		{Args: []string{"HRANDFIELD", "h", "1", "WITHVALUES"}, Prefix: "*1\r\n*2\r\n"},
		{Args: []string{"HRANDFIELD", "h", "-3", "WITHVALUES"}, Prefix: "*3\r\n*2\r\n"},
		{Args: []string{"HRANDFIELD", "h", "5"}, Prefix: "*2\r\n$1\r\n"},
		{Args: []string{"HRANDFIELD", "nokey", "5"}, Prefix: "*0\r\n"},
	}.Run(t, h)
	h.Proto = 2
	cmdtest.RawSteps{
		{Args: []string{"HGETALL", "h"}, Prefix: "*4\r\n"},
		{Args: []string{"HGETALL", "nokey"}, Prefix: "*0\r\n"},
		{Args: []string{"HMGET", "h", "zz"}, Prefix: "*1\r\n$-1\r\n"},
		{Args: []string{"HRANDFIELD", "h", "1", "WITHVALUES"}, Prefix: "*2\r\n$1\r\n"},
		{Args: []string{"HRANDFIELD", "h", "-3", "WITHVALUES"}, Prefix: "*6\r\n$1\r\n"},
		{Args: []string{"HRANDFIELD", "nokey"}, Prefix: "$-1\r\n"},
	}.Run(t, h)
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
	cmdtest.CheckReplay(t, h)
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

// A small hash answers in insertion order, as Redis's listpack does: a
// replaced value keeps its place, a field deleted and set again goes last.
func TestHashSmallOrder(t *testing.T) {
	h := newHarness(t)
	h.Do("HSET", "h", "c", "1", "a", "2", "b", "3")
	h.Do("HSET", "h", "a", "9")
	h.Do("HDEL", "h", "c")
	h.Do("HSET", "h", "c", "4")
	all := []any{"a", "9", "b", "3", "c", "4"}
	cmdtest.Steps{
		{Args: []string{"HGETALL", "h"}, Want: all},
		{Args: []string{"HKEYS", "h"}, Want: []any{"a", "b", "c"}},
		{Args: []string{"HVALS", "h"}, Want: []any{"9", "3", "4"}},
		{Args: []string{"HSCAN", "h", "0"}, Want: []any{"0", all}},
		{Args: []string{"HRANDFIELD", "h", "3", "WITHVALUES"}, Want: all},
	}.Run(t, h)
}
