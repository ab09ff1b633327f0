package stringcmd_test

import (
	"math/big"
	"strings"
	"testing"
)

// pow2 is 2**n in decimal.
func pow2(n uint) string { return new(big.Int).Lsh(big.NewInt(1), n).String() }

func TestIncr(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"INCR", "n"}, want: int64(1)},
		{args: []string{"INCRBY", "n", "10"}, want: int64(11)},
		{args: []string{"DECR", "n"}, want: int64(10)},
		{args: []string{"DECRBY", "n", "3"}, want: int64(7)},
		{args: []string{"INCRBY", "n", "-10"}, want: int64(-3)},
		{args: []string{"DECRBY", "n", "-3"}, want: int64(0)},
		{args: []string{"DECR", "m"}, want: int64(-1)},
		{args: []string{"GET", "n"}, want: "0"},

		{args: []string{"SET", "s", "abc"}, want: "OK"},
		{args: []string{"INCR", "s"}, want: errNotInt},
		{args: []string{"SET", "s", " 1"}, want: "OK"},
		{args: []string{"INCR", "s"}, want: errNotInt},
		{args: []string{"SET", "s", "01"}, want: "OK"},
		{args: []string{"INCR", "s"}, want: errNotInt},
		{args: []string{"SET", "s", "1.0"}, want: "OK"},
		{args: []string{"DECR", "s"}, want: errNotInt},
		{args: []string{"SET", "s", "99999999999999999999"}, want: "OK"},
		{args: []string{"INCR", "s"}, want: errNotInt},
		{args: []string{"SET", "s", ""}, want: "OK"},
		{args: []string{"INCR", "s"}, want: errNotInt},
		{args: []string{"GET", "s"}, want: ""},

		{args: []string{"SET", "big", maxInt64Text}, want: "OK"},
		{args: []string{"INCR", "big"}, want: errOverflow},
		{args: []string{"INCRBY", "big", "0"}, want: int64(9223372036854775807)},
		{args: []string{"DECRBY", "big", "-1"}, want: errOverflow},
		{args: []string{"SET", "small", minInt64Text}, want: "OK"},
		{args: []string{"DECR", "small"}, want: errOverflow},
		{args: []string{"INCRBY", "small", "-1"}, want: errOverflow},
		{args: []string{"INCRBY", "small", maxInt64Text}, want: int64(-1)},
		{args: []string{"GET", "small"}, want: "-1"},

		{args: []string{"INCRBY", "n", "abc"}, want: errNotInt},
		{args: []string{"INCRBY", "n", "1.5"}, want: errNotInt},
		{args: []string{"INCRBY", "n", "+1"}, want: errNotInt},
		{args: []string{"DECRBY", "n", "x"}, want: errNotInt},
		{args: []string{"DECRBY", "n", minInt64Text}, want: errDecrOverflow},
		{args: []string{"INCRBY", "n", minInt64Text}, want: int64(-9223372036854775808)},

		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"INCR", "h"}, want: wrongType()},
		{args: []string{"DECRBY", "h", "1"}, want: wrongType()},

		// The time to live survives.
		{args: []string{"SET", "t", "5", "EX", "100"}, want: "OK"},
		{args: []string{"INCR", "t"}, want: int64(6)},
		{args: []string{"TTL", "t"}, want: int64(100)},
	})
	checkReplay(t, h)
	run(t, h, []step{
		{adv: 100_000, args: []string{"INCR", "t"}, want: int64(1)},
		{args: []string{"TTL", "t"}, want: int64(-1)},
	})
	checkReplay(t, h)
}

func TestIncrByFloat(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"INCRBYFLOAT", "f", "10.50"}, want: "10.5"},
		{args: []string{"INCRBYFLOAT", "f", "0.1"}, want: "10.6"},
		{args: []string{"INCRBYFLOAT", "f", "-5"}, want: "5.6"},
		{args: []string{"GET", "f"}, want: "5.6"},
		{args: []string{"SET", "e", "5.0e3"}, want: "OK"},
		{args: []string{"INCRBYFLOAT", "e", "2.0e2"}, want: "5200"},
		// Long double arithmetic, as Redis: not float64's 0.30000000000000004.
		{args: []string{"INCRBYFLOAT", "z", "0.1"}, want: "0.1"},
		{args: []string{"INCRBYFLOAT", "z", "0.2"}, want: "0.3"},
		{args: []string{"INCRBYFLOAT", "tiny", "1e-20"}, want: "0"},
		{args: []string{"INCRBYFLOAT", "negz", "-1e-20"}, want: "0"},
		{args: []string{"INCRBYFLOAT", "negz", "-0"}, want: "0"},
		{args: []string{"INCRBYFLOAT", "i", "3"}, want: "3"},
		{args: []string{"INCRBYFLOAT", "i", "-3.5"}, want: "-0.5"},
		{args: []string{"INCRBYFLOAT", "i", ".5"}, want: "0"},
		{args: []string{"INCRBYFLOAT", "i", "1."}, want: "1"},
		{args: []string{"INCRBYFLOAT", "i", "+1E2"}, want: "101"},
		{args: []string{"INCRBYFLOAT", "i", "0x10"}, want: "117"},
		{args: []string{"INCRBYFLOAT", "i", "0x1p-1"}, want: "117.5"},
		{args: []string{"INCRBYFLOAT", "i", "1.23456789012345678901"}, want: "118.73456789012345679"},

		// Beyond float64 but inside the long double range; the result is
		// printed in full, as %.17Lf does.
		{args: []string{"INCRBYFLOAT", "b", "0x1p1024"}, want: pow2(1024)},
		{args: []string{"INCRBYFLOAT", "b", "0x1p1024"}, want: pow2(1025)},
		{args: []string{"INCRBYFLOAT", "b", "-0x1p1024"}, want: pow2(1024)},
		{args: []string{"INCRBYFLOAT", "c", "0x1p16383"}, want: pow2(16383)},
		{args: []string{"INCRBYFLOAT", "c", "0x1p16383"}, want: errNaN},
		{args: []string{"INCRBYFLOAT", "c", "1e5000"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "c", "1.2e4932"}, want: errNotFloat}, // past LDBL_MAX
		{args: []string{"INCRBYFLOAT", "c", "1e-5000"}, want: errNotFloat},  // underflows to 0
		{args: []string{"INCRBYFLOAT", "c", "1e-4940"}, want: pow2(16383)},  // subnormal, too small to show
		{args: []string{"INCRBYFLOAT", "c", strings.Repeat("1", 5120)}, want: errNotFloat},

		{args: []string{"INCRBYFLOAT", "f", "abc"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", ""}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", " 1"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "1 "}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "nan"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "1p3"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "1_0"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "--1"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "1e"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "f", "inf"}, want: errNaN},
		{args: []string{"INCRBYFLOAT", "f", "-Infinity"}, want: errNaN},
		{args: []string{"SET", "m", "1.1e4932"}, want: "OK"},
		{args: []string{"INCRBYFLOAT", "m", "1.1e4932"}, want: errNaN},
		{args: []string{"GET", "f"}, want: "5.6"},
		{args: []string{"SET", "s", "abc"}, want: "OK"},
		{args: []string{"INCRBYFLOAT", "s", "1"}, want: errNotFloat},
		{args: []string{"SET", "s", "inf"}, want: "OK"},
		{args: []string{"INCRBYFLOAT", "s", "abc"}, want: errNotFloat},
		{args: []string{"INCRBYFLOAT", "s", "1"}, want: errNaN},
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"INCRBYFLOAT", "h", "1"}, want: wrongType()},

		{args: []string{"SET", "t", "1", "EX", "100"}, want: "OK"},
		{args: []string{"INCRBYFLOAT", "t", "1.5"}, want: "2.5"},
		{args: []string{"TTL", "t"}, want: int64(100)},
	})
	// INCRBYFLOAT is logged as SET ... KEEPTTL of the result.
	checkReplay(t, h)
	h.Proto = 3
	run(t, h, []step{{args: []string{"INCRBYFLOAT", "f", "1"}, want: "6.6"}})
}
