package setcmd_test

import (
	"testing"
)

func TestSetAlgebra(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "a", "1", "2", "3", "4")
	h.Do("SADD", "b", "3", "4", "5")
	h.Do("SADD", "c", "4", "6")
	run(t, h, []step{
		{args: []string{"SINTER", "a"}, want: []any{"1", "2", "3", "4"}, shape: unordered},
		{args: []string{"SINTER", "a", "b"}, want: []any{"3", "4"}, shape: unordered},
		{args: []string{"SINTER", "a", "b", "c"}, want: []any{"4"}},
		{args: []string{"SINTER", "a", "a"}, want: []any{"1", "2", "3", "4"}, shape: unordered},
		{args: []string{"SINTER", "a", "nokey"}, want: []any{}},
		{args: []string{"SINTER", "nokey"}, want: []any{}},
		{args: []string{"SUNION", "a", "b", "c"}, want: []any{"1", "2", "3", "4", "5", "6"}, shape: unordered},
		{args: []string{"SUNION", "nokey", "c"}, want: []any{"4", "6"}, shape: unordered},
		{args: []string{"SUNION", "nokey"}, want: []any{}},
		{args: []string{"SDIFF", "a", "b"}, want: []any{"1", "2"}, shape: unordered},
		{args: []string{"SDIFF", "a", "b", "c"}, want: []any{"1", "2"}, shape: unordered},
		{args: []string{"SDIFF", "a", "nokey"}, want: []any{"1", "2", "3", "4"}, shape: unordered},
		{args: []string{"SDIFF", "a", "a"}, want: []any{}},
		{args: []string{"SDIFF", "nokey", "a"}, want: []any{}},
	})
}

func TestSetStore(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "a", "1", "2", "3", "4")
	h.Do("SADD", "b", "3", "4", "5")
	h.Do("SET", "str", "x", "PX", "100000")
	h.Do("SADD", "ttl", "z")
	h.DB.SetExpire("ttl", h.NowMs+50_000)
	run(t, h, []step{
		{args: []string{"SINTERSTORE", "d", "a", "b"}, want: int64(2)},
		{args: []string{"SMEMBERS", "d"}, want: []any{"3", "4"}, shape: unordered},
		// The destination may hold any type and is replaced, TTL and all.
		{args: []string{"SUNIONSTORE", "str", "a", "b"}, want: int64(5)},
		{args: []string{"SCARD", "str"}, want: int64(5)},
		{args: []string{"SDIFFSTORE", "ttl", "a", "b"}, want: int64(2)},
		{args: []string{"SMEMBERS", "ttl"}, want: []any{"1", "2"}, shape: unordered},
		// A destination among the sources reads the old value.
		{args: []string{"SDIFFSTORE", "a", "a", "b"}, want: int64(2)},
		{args: []string{"SMEMBERS", "a"}, want: []any{"1", "2"}, shape: unordered},
		{args: []string{"SUNIONSTORE", "b", "b", "a"}, want: int64(5)},
		// An empty result deletes the destination.
		{args: []string{"SINTERSTORE", "d", "a", "nokey"}, want: int64(0)},
		{args: []string{"SCARD", "d"}, want: int64(0)},
		{args: []string{"SDIFFSTORE", "d2", "nokey", "a"}, want: int64(0)},
		{args: []string{"SUNIONSTORE", "d3", "nokey"}, want: int64(0)},
	})
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
	checkReplay(t, h)
}
