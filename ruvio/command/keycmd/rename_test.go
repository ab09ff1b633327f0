package keycmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestRename(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"RENAME", "nope", "x"}, Want: errNoSuchKey},
		{Args: []string{"RENAME", "nope", "nope"}, Want: errNoSuchKey},
		{Args: []string{"RENAMENX", "nope", "x"}, Want: errNoSuchKey},
		{Args: []string{"SET", "a", "1", "EX", "100"}, Want: "OK"},
		{Args: []string{"RENAME", "a", "a"}, Want: "OK"},
		{Args: []string{"RENAMENX", "a", "a"}, Want: int64(0)},
		{Args: []string{"TTL", "a"}, Want: int64(100)},

		{Args: []string{"RENAME", "a", "b"}, Want: "OK"},
		{Args: []string{"EXISTS", "a"}, Want: int64(0)},
		{Args: []string{"GET", "b"}, Want: "1"},
		{Args: []string{"TTL", "b"}, Want: int64(100)}, // the time to live moves along

		{Args: []string{"SET", "c", "2"}, Want: "OK"},
		{Args: []string{"RENAME", "c", "b"}, Want: "OK"}, // replaces, expiry included
		{Args: []string{"GET", "b"}, Want: "2"},
		{Args: []string{"TTL", "b"}, Want: int64(-1)},

		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"RENAMENX", "b", "h"}, Want: int64(0)},
		{Args: []string{"GET", "b"}, Want: "2"},
		{Args: []string{"RENAMENX", "h", "h2"}, Want: int64(1)},
		{Args: []string{"TYPE", "h2"}, Want: "hash"},
		{Args: []string{"EXISTS", "h"}, Want: int64(0)},
		{Args: []string{"RENAME", "h2", "b"}, Want: "OK"},
		{Args: []string{"TYPE", "b"}, Want: "hash"},

		{Args: []string{"RENAME", "b"}, Want: cmdtest.ErrArity("rename")},
		{Args: []string{"RENAMENX", "b", "c", "d"}, Want: cmdtest.ErrArity("renamenx")},

		// An expired source is gone; an expired destination is free.
		{Args: []string{"SET", "s", "v", "PX", "10"}, Want: "OK"},
		{Args: []string{"SET", "d", "w", "PX", "10"}, Want: "OK"},
		{Args: []string{"SET", "e", "x"}, Want: "OK"},
		{Adv: 10, Args: []string{"RENAME", "s", "z"}, Want: errNoSuchKey},
		{Args: []string{"RENAMENX", "e", "d"}, Want: int64(1)},
		{Args: []string{"GET", "d"}, Want: "x"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

// TestKeySpecs pins the Redis 7 command table entries.
func TestKeySpecs(t *testing.T) {
	h := newHarness(t)
	want := map[string]cmdtest.SpecRow{
		"del":         {Arity: -2, Flags: "write", First: 1, Last: -1, Step: 1, Categories: "keyspace write slow"},
		"unlink":      {Arity: -2, Flags: "write fast", First: 1, Last: -1, Step: 1, Categories: "keyspace write fast"},
		"exists":      {Arity: -2, Flags: "readonly fast", First: 1, Last: -1, Step: 1, Categories: "keyspace read fast"},
		"touch":       {Arity: -2, Flags: "readonly fast", First: 1, Last: -1, Step: 1, Categories: "keyspace read fast"},
		"type":        {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "keyspace read fast"},
		"expire":      {Arity: -3, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "keyspace write fast"},
		"pexpire":     {Arity: -3, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "keyspace write fast"},
		"expireat":    {Arity: -3, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "keyspace write fast"},
		"pexpireat":   {Arity: -3, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "keyspace write fast"},
		"ttl":         {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "keyspace read fast"},
		"pttl":        {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "keyspace read fast"},
		"expiretime":  {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "keyspace read fast"},
		"pexpiretime": {Arity: 2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "keyspace read fast"},
		"persist":     {Arity: 2, Flags: "write fast", First: 1, Last: 1, Step: 1, Categories: "keyspace write fast"},
		"rename":      {Arity: 3, Flags: "write", First: 1, Last: 2, Step: 1, Categories: "keyspace write slow"},
		"renamenx":    {Arity: 3, Flags: "write fast", First: 1, Last: 2, Step: 1, Categories: "keyspace write fast"},
	}
	cmdtest.CheckSpecs(t, h.Table, want)
	// The commands over any number of keys run once per key.
	for name, w := range want {
		if s := h.Table.Lookup([]byte(name)); s != nil && (s.PerKey != nil) != (w.Last == -1) {
			t.Errorf("%s: PerKey set = %v", name, s.PerKey != nil)
		}
	}
}
