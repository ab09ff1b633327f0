package keycmd_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestExpireFamily(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SET", "k", "v"}, Want: "OK"},
		{Args: []string{"TTL", "k"}, Want: int64(-1)},
		{Args: []string{"PTTL", "k"}, Want: int64(-1)},
		{Args: []string{"TTL", "nope"}, Want: int64(-2)},
		{Args: []string{"PTTL", "nope"}, Want: int64(-2)},
		{Args: []string{"EXPIRE", "nope", "10"}, Want: int64(0)},

		{Args: []string{"EXPIRE", "k", "100"}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(100)},
		{Args: []string{"PTTL", "k"}, Want: int64(100_000)},
		{Args: []string{"EXPIRETIME", "k"}, Want: int64(now/1000 + 100)},
		{Args: []string{"PEXPIRETIME", "k"}, Want: int64(now + 100_000)},
		{Args: []string{"PEXPIRE", "k", "1499"}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(1)}, // rounds to nearest second
		{Args: []string{"PEXPIRE", "k", "1500"}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(2)},
		{Args: []string{"EXPIREAT", "k", itoa(now/1000 + 50)}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(50)},
		{Args: []string{"PEXPIREAT", "k", itoa(now + 777)}, Want: int64(1)},
		{Args: []string{"PTTL", "k"}, Want: int64(777)},
		{Adv: 700, Args: []string{"PTTL", "k"}, Want: int64(77)},
		{Args: []string{"TTL", "k"}, Want: int64(0)},
		{Adv: 77, Args: []string{"TTL", "k"}, Want: int64(-2)},
		{Args: []string{"EXPIRETIME", "k"}, Want: int64(-2)},
		{Args: []string{"PEXPIRETIME", "nope"}, Want: int64(-2)},

		{Args: []string{"SET", "p", "v"}, Want: "OK"},
		{Args: []string{"EXPIRETIME", "p"}, Want: int64(-1)},
		{Args: []string{"PERSIST", "p"}, Want: int64(0)},
		{Args: []string{"PERSIST", "nope"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "p", "10"}, Want: int64(1)},
		{Args: []string{"PERSIST", "p"}, Want: int64(1)},
		{Args: []string{"TTL", "p"}, Want: int64(-1)},
		{Args: []string{"PERSIST", "p"}, Want: int64(0)},

		{Args: []string{"EXPIRE", "p", "ten"}, Want: errNotInt},
		{Args: []string{"EXPIRE", "p", "1.5"}, Want: errNotInt},
		{Args: []string{"EXPIRE", "p"}, Want: cmdtest.ErrArity("expire")},
		{Args: []string{"EXPIRE", "p", maxInt64Text}, Want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{Args: []string{"EXPIRE", "p", "9223372036854775"}, Want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{Args: []string{"EXPIRE", "p", minInt64Text}, Want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{Args: []string{"PEXPIRE", "p", maxInt64Text}, Want: cmdtest.Error("ERR invalid expire time in 'pexpire' command")},
		{Args: []string{"EXPIREAT", "p", maxInt64Text}, Want: cmdtest.Error("ERR invalid expire time in 'expireat' command")},
		{Args: []string{"PEXPIREAT", "p", maxInt64Text}, Want: int64(1)},
		{Args: []string{"PEXPIRETIME", "p"}, Want: int64(9223372036854775807)},
		{Args: []string{"PERSIST", "p"}, Want: int64(1)},
		// Overflow is checked before the key is looked up.
		{Args: []string{"EXPIRE", "nope", maxInt64Text}, Want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{Args: []string{"TTL", "p"}, Want: int64(-1)},

		// Expiry works on every type.
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"EXPIRE", "h", "5"}, Want: int64(1)},
		{Args: []string{"TTL", "h"}, Want: int64(5)},
		{Args: []string{"SET", "q", "v", "EX", "30"}, Want: "OK"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	cmdtest.Steps{{Adv: 5000, Args: []string{"EXISTS", "h"}, Want: int64(0)}}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestExpireInThePastDeletes(t *testing.T) {
	h := newHarness(t)
	cases := [][]string{
		{"EXPIRE", "k", "0"},
		{"EXPIRE", "k", "-10"},
		{"PEXPIRE", "k", "0"},
		{"EXPIREAT", "k", "1"},
		{"PEXPIREAT", "k", itoa(now)},
		{"PEXPIREAT", "k", minInt64Text},
		{"EXPIRE", "k", "-9223372036854775"},
	}
	for _, args := range cases {
		h.Do("SET", "k", "v")
		mark := len(h.Log)
		if got := h.Do(args...); got != int64(1) {
			t.Errorf("%q = %#v, want 1", args, got)
		}
		if got := h.Do("EXISTS", "k"); got != int64(0) {
			t.Errorf("after %q the key still exists", args)
		}
		if got, want := h.Logged(mark), []string{"DEL k"}; !slices.Equal(got, want) {
			t.Errorf("%q logged %q, want %q", args, got, want)
		}
		if got := h.Do(args...); got != int64(0) {
			t.Errorf("%q on a missing key = %#v, want 0", args, got)
		}
	}
	cmdtest.CheckReplay(t, h)
}

func TestExpireLogsAbsoluteTime(t *testing.T) {
	h := newHarness(t)
	h.Do("SET", "k", "v")
	for _, args := range [][]string{
		{"EXPIRE", "k", "10"},
		{"PEXPIRE", "k", "10000", "XX"},
		{"EXPIREAT", "k", itoa(now/1000 + 10)},
		{"PEXPIREAT", "k", itoa(now + 10_000)},
	} {
		mark := len(h.Log)
		h.Do(args...)
		if got, want := h.Logged(mark), []string{"PEXPIREAT k " + itoa(now+10_000)}; !slices.Equal(got, want) {
			t.Errorf("%q logged %q, want %q", args, got, want)
		}
	}
	// Later the replay still lands on the same instant.
	h.NowMs += 9_999
	cmdtest.CheckReplay(t, h)
	if got := h.Do("PTTL", "k"); got != int64(1) {
		t.Fatalf("PTTL = %#v", got)
	}
}

func TestExpireConditions(t *testing.T) {
	h := newHarness(t)
	errNX := cmdtest.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
	errGTLT := cmdtest.Error("ERR GT and LT options at the same time are not compatible")
	cmdtest.Steps{
		{Args: []string{"SET", "k", "v"}, Want: "OK"},
		// No expiry yet: XX and GT fail (GT counts none as infinite), LT and NX pass.
		{Args: []string{"EXPIRE", "k", "100", "XX"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "k", "100", "GT"}, Want: int64(0)},
		{Args: []string{"TTL", "k"}, Want: int64(-1)},
		{Args: []string{"EXPIRE", "k", "100", "NX"}, Want: int64(1)},
		{Args: []string{"EXPIRE", "k", "200", "NX"}, Want: int64(0)},
		{Args: []string{"TTL", "k"}, Want: int64(100)},
		{Args: []string{"EXPIRE", "k", "200", "xx"}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(200)},
		{Args: []string{"EXPIRE", "k", "100", "GT"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "k", "200", "GT"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "k", "300", "gt"}, Want: int64(1)},
		{Args: []string{"EXPIRE", "k", "400", "LT"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "k", "300", "LT"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "k", "50", "lt"}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(50)},
		{Args: []string{"EXPIRE", "k", "60", "XX", "GT"}, Want: int64(1)},
		{Args: []string{"EXPIRE", "k", "70", "XX", "LT"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "k", "60", "XX", "XX"}, Want: int64(1)},
		{Args: []string{"TTL", "k"}, Want: int64(60)},

		{Args: []string{"SET", "n", "v"}, Want: "OK"},
		{Args: []string{"EXPIRE", "n", "100", "LT"}, Want: int64(1)},
		{Args: []string{"PERSIST", "n"}, Want: int64(1)},
		// LT against no expiry passes even with a past time, which deletes.
		{Args: []string{"EXPIRE", "n", "-1", "LT"}, Want: int64(1)},
		{Args: []string{"EXISTS", "n"}, Want: int64(0)},
		{Args: []string{"EXPIRE", "nope", "10", "NX"}, Want: int64(0)},

		{Args: []string{"EXPIRE", "k", "10", "NX", "XX"}, Want: errNX},
		{Args: []string{"EXPIRE", "k", "10", "NX", "GT"}, Want: errNX},
		{Args: []string{"PEXPIRE", "k", "10", "LT", "NX"}, Want: errNX},
		{Args: []string{"EXPIRE", "k", "10", "GT", "LT"}, Want: errGTLT},
		{Args: []string{"EXPIREAT", "k", "10", "GT", "FOO"}, Want: cmdtest.Error("ERR Unsupported option FOO")},
		{Args: []string{"EXPIRE", "k", "ten", "FOO"}, Want: cmdtest.Error("ERR Unsupported option FOO")},
		{Args: []string{"EXPIRE", "k", "ten", "NX", "XX"}, Want: errNX},
		{Args: []string{"EXPIRE", "k", "ten", "NX"}, Want: errNotInt},
		{Args: []string{"TTL", "k"}, Want: int64(60)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
