package setcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetAlgebra(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "a", "1", "2", "3", "4")
	h.Do("SADD", "b", "3", "4", "5")
	h.Do("SADD", "c", "4", "6")
	cmdtest.Steps{
		{Args: []string{"SINTER", "a"}, Want: []any{"1", "2", "3", "4"}, Shape: cmdtest.Unordered},
		{Args: []string{"SINTER", "a", "b"}, Want: []any{"3", "4"}, Shape: cmdtest.Unordered},
		{Args: []string{"SINTER", "a", "b", "c"}, Want: []any{"4"}},
		{Args: []string{"SINTER", "a", "a"}, Want: []any{"1", "2", "3", "4"}, Shape: cmdtest.Unordered},
		{Args: []string{"SINTER", "a", "nokey"}, Want: []any{}},
		{Args: []string{"SINTER", "nokey"}, Want: []any{}},
		{Args: []string{"SUNION", "a", "b", "c"}, Want: []any{"1", "2", "3", "4", "5", "6"}, Shape: cmdtest.Unordered},
		{Args: []string{"SUNION", "nokey", "c"}, Want: []any{"4", "6"}, Shape: cmdtest.Unordered},
		{Args: []string{"SUNION", "nokey"}, Want: []any{}},
		{Args: []string{"SDIFF", "a", "b"}, Want: []any{"1", "2"}, Shape: cmdtest.Unordered},
		{Args: []string{"SDIFF", "a", "b", "c"}, Want: []any{"1", "2"}, Shape: cmdtest.Unordered},
		{Args: []string{"SDIFF", "a", "nokey"}, Want: []any{"1", "2", "3", "4"}, Shape: cmdtest.Unordered},
		{Args: []string{"SDIFF", "a", "a"}, Want: []any{}},
		{Args: []string{"SDIFF", "nokey", "a"}, Want: []any{}},
	}.Run(t, h)
}

func TestSetStore(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "a", "1", "2", "3", "4")
	h.Do("SADD", "b", "3", "4", "5")
	h.Do("SET", "str", "x", "PX", "100000")
	h.Do("SADD", "ttl", "z")
	h.DB.SetExpire("ttl", h.NowMs+50_000)
	cmdtest.Steps{
		{Args: []string{"SINTERSTORE", "d", "a", "b"}, Want: int64(2)},
		{Args: []string{"SMEMBERS", "d"}, Want: []any{"3", "4"}, Shape: cmdtest.Unordered},
		// The destination may hold any type and is replaced, TTL and all.
		{Args: []string{"SUNIONSTORE", "str", "a", "b"}, Want: int64(5)},
		{Args: []string{"SCARD", "str"}, Want: int64(5)},
		{Args: []string{"SDIFFSTORE", "ttl", "a", "b"}, Want: int64(2)},
		{Args: []string{"SMEMBERS", "ttl"}, Want: []any{"1", "2"}, Shape: cmdtest.Unordered},
		// A destination among the sources reads the old value.
		{Args: []string{"SDIFFSTORE", "a", "a", "b"}, Want: int64(2)},
		{Args: []string{"SMEMBERS", "a"}, Want: []any{"1", "2"}, Shape: cmdtest.Unordered},
		{Args: []string{"SUNIONSTORE", "b", "b", "a"}, Want: int64(5)},
		// An empty result deletes the destination.
		{Args: []string{"SINTERSTORE", "d", "a", "nokey"}, Want: int64(0)},
		{Args: []string{"SCARD", "d"}, Want: int64(0)},
		{Args: []string{"SDIFFSTORE", "d2", "nokey", "a"}, Want: int64(0)},
		{Args: []string{"SUNIONSTORE", "d3", "nokey"}, Want: int64(0)},
	}.Run(t, h)
	for _, k := range []string{"str", "ttl"} {
		if e := h.DB.Get(k); e == nil || e.ExpireAt != 0 {
			t.Fatalf("%s kept its TTL after *STORE: %+v", k, e)
		}
	}
	for _, k := range []string{"d", "d2", "d3"} {
		if h.DB.Get(k) != nil {
			t.Fatalf("%s exists after an empty *STORE", k)
		}
	}
	// A stored result is its own set: changing a source leaves it be.
	h.Do("SUNIONSTORE", "copy", "a")
	h.Do("SADD", "a", "new")
	if got := h.Do("SISMEMBER", "copy", "new"); got != int64(0) {
		t.Fatal("SUNIONSTORE result shares its source's set")
	}
	h.Do("SREM", "copy", "1")
	if got := h.Do("SISMEMBER", "a", "1"); got != int64(1) {
		t.Fatal("changing a stored result changed its source")
	}
	cmdtest.CheckReplay(t, h)
}
