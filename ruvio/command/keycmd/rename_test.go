package keycmd_test

import "testing"

func TestRename(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"RENAME", "nope", "x"}, want: errNoSuchKey},
		{args: []string{"RENAME", "nope", "nope"}, want: errNoSuchKey},
		{args: []string{"RENAMENX", "nope", "x"}, want: errNoSuchKey},
		{args: []string{"SET", "a", "1", "EX", "100"}, want: "OK"},
		{args: []string{"RENAME", "a", "a"}, want: "OK"},
		{args: []string{"RENAMENX", "a", "a"}, want: int64(0)},
		{args: []string{"TTL", "a"}, want: int64(100)},

		{args: []string{"RENAME", "a", "b"}, want: "OK"},
		{args: []string{"EXISTS", "a"}, want: int64(0)},
		{args: []string{"GET", "b"}, want: "1"},
		{args: []string{"TTL", "b"}, want: int64(100)}, // the time to live moves along

		{args: []string{"SET", "c", "2"}, want: "OK"},
		{args: []string{"RENAME", "c", "b"}, want: "OK"}, // replaces, expiry included
		{args: []string{"GET", "b"}, want: "2"},
		{args: []string{"TTL", "b"}, want: int64(-1)},

		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"RENAMENX", "b", "h"}, want: int64(0)},
		{args: []string{"GET", "b"}, want: "2"},
		{args: []string{"RENAMENX", "h", "h2"}, want: int64(1)},
		{args: []string{"TYPE", "h2"}, want: "hash"},
		{args: []string{"EXISTS", "h"}, want: int64(0)},
		{args: []string{"RENAME", "h2", "b"}, want: "OK"},
		{args: []string{"TYPE", "b"}, want: "hash"},

		{args: []string{"RENAME", "b"}, want: errArity("rename")},
		{args: []string{"RENAMENX", "b", "c", "d"}, want: errArity("renamenx")},

		// An expired source is gone; an expired destination is free.
		{args: []string{"SET", "s", "v", "PX", "10"}, want: "OK"},
		{args: []string{"SET", "d", "w", "PX", "10"}, want: "OK"},
		{args: []string{"SET", "e", "x"}, want: "OK"},
		{adv: 10, args: []string{"RENAME", "s", "z"}, want: errNoSuchKey},
		{args: []string{"RENAMENX", "e", "d"}, want: int64(1)},
		{args: []string{"GET", "d"}, want: "x"},
	})
	checkReplay(t, h)
}

// TestKeySpecs pins the Redis 7 command table entries.
func TestKeySpecs(t *testing.T) {
	h := newHarness(t)
	type entry struct {
		arity             int
		flags             string
		first, last, step int
		categories        string
	}
	want := map[string]entry{
		"del":         {-2, "write", 1, -1, 1, "keyspace write slow"},
		"unlink":      {-2, "write fast", 1, -1, 1, "keyspace write fast"},
		"exists":      {-2, "readonly fast", 1, -1, 1, "keyspace read fast"},
		"touch":       {-2, "readonly fast", 1, -1, 1, "keyspace read fast"},
		"type":        {2, "readonly fast", 1, 1, 1, "keyspace read fast"},
		"expire":      {-3, "write fast", 1, 1, 1, "keyspace write fast"},
		"pexpire":     {-3, "write fast", 1, 1, 1, "keyspace write fast"},
		"expireat":    {-3, "write fast", 1, 1, 1, "keyspace write fast"},
		"pexpireat":   {-3, "write fast", 1, 1, 1, "keyspace write fast"},
		"ttl":         {2, "readonly fast", 1, 1, 1, "keyspace read fast"},
		"pttl":        {2, "readonly fast", 1, 1, 1, "keyspace read fast"},
		"expiretime":  {2, "readonly fast", 1, 1, 1, "keyspace read fast"},
		"pexpiretime": {2, "readonly fast", 1, 1, 1, "keyspace read fast"},
		"persist":     {2, "write fast", 1, 1, 1, "keyspace write fast"},
		"rename":      {3, "write", 1, 2, 1, "keyspace write slow"},
		"renamenx":    {3, "write fast", 1, 2, 1, "keyspace write fast"},
	}
	for name, w := range want {
		s := h.Table.Lookup([]byte(name))
		if s == nil {
			t.Errorf("%s missing", name)
			continue
		}
		got := entry{s.Arity, join(s.Flags.Names()), s.FirstKey, s.LastKey, s.Step, join(s.Categories)}
		if got != w {
			t.Errorf("%s = %+v, want %+v", name, got, w)
		}
		if (s.PerKey != nil) != (w.last == -1) {
			t.Errorf("%s: PerKey set = %v", name, s.PerKey != nil)
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
