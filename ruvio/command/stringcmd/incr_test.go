package stringcmd_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

// pow2 is 2**n in decimal.
func pow2(n uint) string { return new(big.Int).Lsh(big.NewInt(1), n).String() }

func TestIncr(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"INCR", "n"}, Want: int64(1)},
		{Args: []string{"INCRBY", "n", "10"}, Want: int64(11)},
		{Args: []string{"DECR", "n"}, Want: int64(10)},
		{Args: []string{"DECRBY", "n", "3"}, Want: int64(7)},
		{Args: []string{"INCRBY", "n", "-10"}, Want: int64(-3)},
		{Args: []string{"DECRBY", "n", "-3"}, Want: int64(0)},
		{Args: []string{"DECR", "m"}, Want: int64(-1)},
		{Args: []string{"GET", "n"}, Want: "0"},

		{Args: []string{"SET", "s", "abc"}, Want: "OK"},
		{Args: []string{"INCR", "s"}, Want: errNotInt},
		{Args: []string{"SET", "s", " 1"}, Want: "OK"},
		{Args: []string{"INCR", "s"}, Want: errNotInt},
		{Args: []string{"SET", "s", "01"}, Want: "OK"},
		{Args: []string{"INCR", "s"}, Want: errNotInt},
		{Args: []string{"SET", "s", "1.0"}, Want: "OK"},
		{Args: []string{"DECR", "s"}, Want: errNotInt},
		{Args: []string{"SET", "s", "99999999999999999999"}, Want: "OK"},
		{Args: []string{"INCR", "s"}, Want: errNotInt},
		{Args: []string{"SET", "s", ""}, Want: "OK"},
		{Args: []string{"INCR", "s"}, Want: errNotInt},
		{Args: []string{"GET", "s"}, Want: ""},

		{Args: []string{"SET", "big", maxInt64Text}, Want: "OK"},
		{Args: []string{"INCR", "big"}, Want: errOverflow},
		{Args: []string{"INCRBY", "big", "0"}, Want: int64(9223372036854775807)},
		{Args: []string{"DECRBY", "big", "-1"}, Want: errOverflow},
		{Args: []string{"SET", "small", minInt64Text}, Want: "OK"},
		{Args: []string{"DECR", "small"}, Want: errOverflow},
		{Args: []string{"INCRBY", "small", "-1"}, Want: errOverflow},
		{Args: []string{"INCRBY", "small", maxInt64Text}, Want: int64(-1)},
		{Args: []string{"GET", "small"}, Want: "-1"},

		{Args: []string{"INCRBY", "n", "abc"}, Want: errNotInt},
		{Args: []string{"INCRBY", "n", "1.5"}, Want: errNotInt},
		{Args: []string{"INCRBY", "n", "+1"}, Want: errNotInt},
		{Args: []string{"DECRBY", "n", "x"}, Want: errNotInt},
		{Args: []string{"DECRBY", "n", minInt64Text}, Want: errDecrOverflow},
		{Args: []string{"INCRBY", "n", minInt64Text}, Want: int64(-9223372036854775808)},

		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"INCR", "h"}, Want: cmdtest.WrongType},
		{Args: []string{"DECRBY", "h", "1"}, Want: cmdtest.WrongType},

		// The time to live survives.
		{Args: []string{"SET", "t", "5", "EX", "100"}, Want: "OK"},
		{Args: []string{"INCR", "t"}, Want: int64(6)},
		{Args: []string{"TTL", "t"}, Want: int64(100)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
	cmdtest.Steps{
		{Adv: 100_000, Args: []string{"INCR", "t"}, Want: int64(1)},
		{Args: []string{"TTL", "t"}, Want: int64(-1)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestIncrByFloat(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"INCRBYFLOAT", "f", "10.50"}, Want: "10.5"},
		{Args: []string{"INCRBYFLOAT", "f", "0.1"}, Want: "10.6"},
		{Args: []string{"INCRBYFLOAT", "f", "-5"}, Want: "5.6"},
		{Args: []string{"GET", "f"}, Want: "5.6"},
		{Args: []string{"SET", "e", "5.0e3"}, Want: "OK"},
		{Args: []string{"INCRBYFLOAT", "e", "2.0e2"}, Want: "5200"},
		// Long double arithmetic, as Redis: not float64's 0.30000000000000004.
		{Args: []string{"INCRBYFLOAT", "z", "0.1"}, Want: "0.1"},
		{Args: []string{"INCRBYFLOAT", "z", "0.2"}, Want: "0.3"},
		{Args: []string{"INCRBYFLOAT", "tiny", "1e-20"}, Want: "0"},
		{Args: []string{"INCRBYFLOAT", "negz", "-1e-20"}, Want: "0"},
		{Args: []string{"INCRBYFLOAT", "negz", "-0"}, Want: "0"},
		{Args: []string{"INCRBYFLOAT", "i", "3"}, Want: "3"},
		{Args: []string{"INCRBYFLOAT", "i", "-3.5"}, Want: "-0.5"},
		{Args: []string{"INCRBYFLOAT", "i", ".5"}, Want: "0"},
		{Args: []string{"INCRBYFLOAT", "i", "1."}, Want: "1"},
		{Args: []string{"INCRBYFLOAT", "i", "+1E2"}, Want: "101"},
		{Args: []string{"INCRBYFLOAT", "i", "0x10"}, Want: "117"},
		{Args: []string{"INCRBYFLOAT", "i", "0x1p-1"}, Want: "117.5"},
		{Args: []string{"INCRBYFLOAT", "i", "1.23456789012345678901"}, Want: "118.73456789012345679"},

		// Beyond float64 but inside the long double range; the result is
		// printed in full, as %.17Lf does.
		{Args: []string{"INCRBYFLOAT", "b", "0x1p1024"}, Want: pow2(1024)},
		{Args: []string{"INCRBYFLOAT", "b", "0x1p1024"}, Want: pow2(1025)},
		{Args: []string{"INCRBYFLOAT", "b", "-0x1p1024"}, Want: pow2(1024)},
		{Args: []string{"INCRBYFLOAT", "c", "0x1p16383"}, Want: pow2(16383)},
		{Args: []string{"INCRBYFLOAT", "c", "0x1p16383"}, Want: errNaN},
		{Args: []string{"INCRBYFLOAT", "c", "1e5000"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "c", "1.2e4932"}, Want: errNotFloat}, // past LDBL_MAX
		{Args: []string{"INCRBYFLOAT", "c", "1e-5000"}, Want: errNotFloat},  // underflows to 0
		{Args: []string{"INCRBYFLOAT", "c", "1e-4940"}, Want: pow2(16383)},  // subnormal, too small to show
		{Args: []string{"INCRBYFLOAT", "c", strings.Repeat("1", 5120)}, Want: errNotFloat},

		{Args: []string{"INCRBYFLOAT", "f", "abc"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", ""}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", " 1"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "1 "}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "nan"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "1p3"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "1_0"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "--1"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "1e"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "f", "inf"}, Want: errNaN},
		{Args: []string{"INCRBYFLOAT", "f", "-Infinity"}, Want: errNaN},
		{Args: []string{"SET", "m", "1.1e4932"}, Want: "OK"},
		{Args: []string{"INCRBYFLOAT", "m", "1.1e4932"}, Want: errNaN},
		{Args: []string{"GET", "f"}, Want: "5.6"},
		{Args: []string{"SET", "s", "abc"}, Want: "OK"},
		{Args: []string{"INCRBYFLOAT", "s", "1"}, Want: errNotFloat},
		{Args: []string{"SET", "s", "inf"}, Want: "OK"},
		{Args: []string{"INCRBYFLOAT", "s", "abc"}, Want: errNotFloat},
		{Args: []string{"INCRBYFLOAT", "s", "1"}, Want: errNaN},
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"INCRBYFLOAT", "h", "1"}, Want: cmdtest.WrongType},

		{Args: []string{"SET", "t", "1", "EX", "100"}, Want: "OK"},
		{Args: []string{"INCRBYFLOAT", "t", "1.5"}, Want: "2.5"},
		{Args: []string{"TTL", "t"}, Want: int64(100)},
	}.Run(t, h)
	// INCRBYFLOAT is logged as SET ... KEEPTTL of the result.
	cmdtest.CheckReplay(t, h)
	h.Proto = 3
	cmdtest.Steps{{Args: []string{"INCRBYFLOAT", "f", "1"}, Want: "6.6"}}.Run(t, h)
}
