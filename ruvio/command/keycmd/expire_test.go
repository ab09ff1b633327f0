package keycmd_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestExpireFamily(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"SET", "k", "v"}, want: "OK"},
		{args: []string{"TTL", "k"}, want: int64(-1)},
		{args: []string{"PTTL", "k"}, want: int64(-1)},
		{args: []string{"TTL", "nope"}, want: int64(-2)},
		{args: []string{"PTTL", "nope"}, want: int64(-2)},
		{args: []string{"EXPIRE", "nope", "10"}, want: int64(0)},

		{args: []string{"EXPIRE", "k", "100"}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(100)},
		{args: []string{"PTTL", "k"}, want: int64(100_000)},
		{args: []string{"EXPIRETIME", "k"}, want: int64(now/1000 + 100)},
		{args: []string{"PEXPIRETIME", "k"}, want: int64(now + 100_000)},
		{args: []string{"PEXPIRE", "k", "1499"}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(1)}, // rounds to nearest second
		{args: []string{"PEXPIRE", "k", "1500"}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(2)},
		{args: []string{"EXPIREAT", "k", itoa(now/1000 + 50)}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(50)},
		{args: []string{"PEXPIREAT", "k", itoa(now + 777)}, want: int64(1)},
		{args: []string{"PTTL", "k"}, want: int64(777)},
		{adv: 700, args: []string{"PTTL", "k"}, want: int64(77)},
		{args: []string{"TTL", "k"}, want: int64(0)},
		{adv: 77, args: []string{"TTL", "k"}, want: int64(-2)},
		{args: []string{"EXPIRETIME", "k"}, want: int64(-2)},
		{args: []string{"PEXPIRETIME", "nope"}, want: int64(-2)},

		{args: []string{"SET", "p", "v"}, want: "OK"},
		{args: []string{"EXPIRETIME", "p"}, want: int64(-1)},
		{args: []string{"PERSIST", "p"}, want: int64(0)},
		{args: []string{"PERSIST", "nope"}, want: int64(0)},
		{args: []string{"EXPIRE", "p", "10"}, want: int64(1)},
		{args: []string{"PERSIST", "p"}, want: int64(1)},
		{args: []string{"TTL", "p"}, want: int64(-1)},
		{args: []string{"PERSIST", "p"}, want: int64(0)},

		{args: []string{"EXPIRE", "p", "ten"}, want: errNotInt},
		{args: []string{"EXPIRE", "p", "1.5"}, want: errNotInt},
		{args: []string{"EXPIRE", "p"}, want: errArity("expire")},
		{args: []string{"EXPIRE", "p", maxInt64Text}, want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{args: []string{"EXPIRE", "p", "9223372036854775"}, want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{args: []string{"EXPIRE", "p", minInt64Text}, want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{args: []string{"PEXPIRE", "p", maxInt64Text}, want: cmdtest.Error("ERR invalid expire time in 'pexpire' command")},
		{args: []string{"EXPIREAT", "p", maxInt64Text}, want: cmdtest.Error("ERR invalid expire time in 'expireat' command")},
		{args: []string{"PEXPIREAT", "p", maxInt64Text}, want: int64(1)},
		{args: []string{"PEXPIRETIME", "p"}, want: int64(9223372036854775807)},
		{args: []string{"PERSIST", "p"}, want: int64(1)},
		// Overflow is checked before the key is looked up.
		{args: []string{"EXPIRE", "nope", maxInt64Text}, want: cmdtest.Error("ERR invalid expire time in 'expire' command")},
		{args: []string{"TTL", "p"}, want: int64(-1)},

		// Expiry works on every type.
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"EXPIRE", "h", "5"}, want: int64(1)},
		{args: []string{"TTL", "h"}, want: int64(5)},
		{args: []string{"SET", "q", "v", "EX", "30"}, want: "OK"},
	})
	checkReplay(t, h)
	run(t, h, []step{{adv: 5000, args: []string{"EXISTS", "h"}, want: int64(0)}})
	checkReplay(t, h)
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
		if got, want := logged(h, mark), []string{"DEL k"}; !slices.Equal(got, want) {
			t.Errorf("%q logged %q, want %q", args, got, want)
		}
		if got := h.Do(args...); got != int64(0) {
			t.Errorf("%q on a missing key = %#v, want 0", args, got)
		}
	}
	checkReplay(t, h)
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
		if got, want := logged(h, mark), []string{"PEXPIREAT k " + itoa(now+10_000)}; !slices.Equal(got, want) {
			t.Errorf("%q logged %q, want %q", args, got, want)
		}
	}
	// Later the replay still lands on the same instant.
	h.NowMs += 9_999
	checkReplay(t, h)
	if got := h.Do("PTTL", "k"); got != int64(1) {
		t.Fatalf("PTTL = %#v", got)
	}
}

func TestExpireConditions(t *testing.T) {
	h := newHarness(t)
	errNX := cmdtest.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
	errGTLT := cmdtest.Error("ERR GT and LT options at the same time are not compatible")
	run(t, h, []step{
		{args: []string{"SET", "k", "v"}, want: "OK"},
		// No expiry yet: XX and GT fail (GT counts none as infinite), LT and NX pass.
		{args: []string{"EXPIRE", "k", "100", "XX"}, want: int64(0)},
		{args: []string{"EXPIRE", "k", "100", "GT"}, want: int64(0)},
		{args: []string{"TTL", "k"}, want: int64(-1)},
		{args: []string{"EXPIRE", "k", "100", "NX"}, want: int64(1)},
		{args: []string{"EXPIRE", "k", "200", "NX"}, want: int64(0)},
		{args: []string{"TTL", "k"}, want: int64(100)},
		{args: []string{"EXPIRE", "k", "200", "xx"}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(200)},
		{args: []string{"EXPIRE", "k", "100", "GT"}, want: int64(0)},
		{args: []string{"EXPIRE", "k", "200", "GT"}, want: int64(0)},
		{args: []string{"EXPIRE", "k", "300", "gt"}, want: int64(1)},
		{args: []string{"EXPIRE", "k", "400", "LT"}, want: int64(0)},
		{args: []string{"EXPIRE", "k", "300", "LT"}, want: int64(0)},
		{args: []string{"EXPIRE", "k", "50", "lt"}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(50)},
		{args: []string{"EXPIRE", "k", "60", "XX", "GT"}, want: int64(1)},
		{args: []string{"EXPIRE", "k", "70", "XX", "LT"}, want: int64(0)},
		{args: []string{"EXPIRE", "k", "60", "XX", "XX"}, want: int64(1)},
		{args: []string{"TTL", "k"}, want: int64(60)},

		{args: []string{"SET", "n", "v"}, want: "OK"},
		{args: []string{"EXPIRE", "n", "100", "LT"}, want: int64(1)},
		{args: []string{"PERSIST", "n"}, want: int64(1)},
		// LT against no expiry passes even with a past time, which deletes.
		{args: []string{"EXPIRE", "n", "-1", "LT"}, want: int64(1)},
		{args: []string{"EXISTS", "n"}, want: int64(0)},
		{args: []string{"EXPIRE", "nope", "10", "NX"}, want: int64(0)},

		{args: []string{"EXPIRE", "k", "10", "NX", "XX"}, want: errNX},
		{args: []string{"EXPIRE", "k", "10", "NX", "GT"}, want: errNX},
		{args: []string{"PEXPIRE", "k", "10", "LT", "NX"}, want: errNX},
		{args: []string{"EXPIRE", "k", "10", "GT", "LT"}, want: errGTLT},
		{args: []string{"EXPIREAT", "k", "10", "GT", "FOO"}, want: cmdtest.Error("ERR Unsupported option FOO")},
		{args: []string{"EXPIRE", "k", "ten", "FOO"}, want: cmdtest.Error("ERR Unsupported option FOO")},
		{args: []string{"EXPIRE", "k", "ten", "NX", "XX"}, want: errNX},
		{args: []string{"EXPIRE", "k", "ten", "NX"}, want: errNotInt},
		{args: []string{"TTL", "k"}, want: int64(60)},
	})
	checkReplay(t, h)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
