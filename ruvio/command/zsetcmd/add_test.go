package zsetcmd

import (
	"fmt"
	"math"
	"testing"
)

const (
	errSyntax   = "ERR syntax error"
	errFloat    = "ERR value is not a valid float"
	errInt      = "ERR value is not an integer or out of range"
	errNaNReply = "ERR resulting score is not a number (NaN)"
)

func TestZAdd(t *testing.T) {
	runCases(t, []tcase{
		{name: "basic", steps: []step{
			{cmd: "ZADD z 1 a 2 b", want: int64(2)},
			{cmd: "ZADD z 3 a 4 c", want: int64(1)},
			{cmd: "ZRANGE z 0 -1 WITHSCORES", want: a("b", "2", "a", "3", "c", "4")},
			{cmd: "ZADD z CH 5 a 4 c 6 d", want: int64(2)},
			{cmd: "ZADD z ch 5 a", want: int64(0)},
			{cmd: "ZCARD z", want: int64(4)},
			// A member given twice: added once, then updated.
			{cmd: "ZADD y CH 1 m 2 m", want: int64(2)},
			{cmd: "ZADD y 1 n 2 n", want: int64(1)},
			{cmd: "ZRANGE y 0 -1 WITHSCORES", want: a("m", "2", "n", "2")},
		}},
		{name: "nx-xx", steps: []step{
			{cmd: "ZADD z NX 1 a", want: int64(1)},
			{cmd: "ZADD z nx 2 a 3 b", want: int64(1)},
			{cmd: "ZSCORE z a", want: "1"},
			{cmd: "ZADD z XX 5 a 6 c", want: int64(0)},
			{cmd: "ZSCORE z a", want: "5"},
			{cmd: "ZSCORE z c", want: nil},
			{cmd: "ZADD z XX CH 7 a", want: int64(1)},
			{cmd: "ZADD missing XX 1 a", want: int64(0)},
			{cmd: "EXISTS missing", want: int64(0)},
		}},
		{name: "gt-lt", steps: []step{
			{cmd: "ZADD z 5 a", want: int64(1)},
			{cmd: "ZADD z GT CH 4 a", want: int64(0)},
			{cmd: "ZSCORE z a", want: "5"},
			{cmd: "ZADD z GT CH 6 a", want: int64(1)},
			{cmd: "ZADD z LT CH 7 a", want: int64(0)},
			{cmd: "ZADD z LT CH 1 a", want: int64(1)},
			{cmd: "ZADD z GT 3 b", want: int64(1)}, // new members are added anyway
			{cmd: "ZADD z XX GT CH 10 a 10 zz", want: int64(1)},
			{cmd: "ZRANGE z 0 -1 WITHSCORES", want: a("b", "3", "a", "10")},
		}},
		{name: "incr", steps: []step{
			{cmd: "ZADD z INCR 1.5 a", want: "1.5"},
			{cmd: "ZADD z INCR 1 a", want: "2.5"},
			{cmd: "ZADD z NX INCR 1 a", want: nil},
			{cmd: "ZADD z XX INCR 1 b", want: nil},
			{cmd: "ZADD missing XX INCR 1 b", want: nil},
			{cmd: "ZADD z GT INCR -1 a", want: nil},
			{cmd: "ZADD z LT INCR -1 a", want: "1.5"},
			{cmd: "ZADD z GT INCR 0 a", want: nil}, // not greater
			{cmd: "ZADD z INCR 0 a", want: "1.5"},
			{cmd: "ZADD z INCR +inf a", want: "inf"},
			{cmd: "ZADD z INCR -inf a", want: e(errNaNReply)},
			{cmd: "ZSCORE z a", want: "inf"},
			{cmd: "ZCARD missing", want: int64(0)},
		}},
		{name: "incr-resp3", proto: 3, steps: []step{
			{cmd: "ZADD z INCR 1.5 a", want: 1.5},
			{cmd: "ZADD z NX INCR 1 a", want: nil},
			{cmd: "ZADD z INCR inf a", want: math.Inf(1)},
			{cmd: "ZADD z 1 a", want: int64(0)},
		}},
		{name: "scores", steps: []step{
			{cmd: "ZADD z 0.1 a -0 b 0x10 c 1e20 d -inf e 2.50 f", want: int64(6)},
			// A small set stores -0 as 0, as Redis's listpack does.
			{cmd: "ZRANGE z 0 -1 WITHSCORES", want: a("e", "-inf", "b", "0", "a", "0.10000000000000001", "f", "2.5", "c", "16", "d", "1e+20")},
			// -0 and 0 are equal: no update.
			{cmd: "ZADD z CH 0 b", want: int64(0)},
			{cmd: "ZSCORE z b", want: "0"},
			{cmd: "ZADD z 1e400 x", want: e(errFloat)},
			{cmd: "ZADD z nan x", want: e(errFloat)},
			{argv: []string{"ZADD", "z", " 1", "x"}, want: e(errFloat)},
			{argv: []string{"ZADD", "z", "", "x"}, want: e(errFloat)},
			{cmd: "ZADD z 1.5e-7 x", want: int64(1)},
			{cmd: "ZSCORE z x", want: "1.4999999999999999e-07"},
		}},
		{name: "errors", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1", want: e("ERR wrong number of arguments for 'zadd' command")},
			{cmd: "ZADD z 1 a 2", want: e(errSyntax)},
			{cmd: "ZADD z CH NX", want: e(errSyntax)},
			{cmd: "ZADD z 1 a NX", want: e(errSyntax)},
			{cmd: "ZADD z NX XX 1", want: e(errSyntax)}, // pairs are counted first
			{cmd: "ZADD z NX XX 1 a", want: e("ERR XX and NX options at the same time are not compatible")},
			{cmd: "ZADD z GT LT 1 a", want: e("ERR GT, LT, and/or NX options at the same time are not compatible")},
			{cmd: "ZADD z NX GT 1 a", want: e("ERR GT, LT, and/or NX options at the same time are not compatible")},
			{cmd: "ZADD z LT NX 1 a", want: e("ERR GT, LT, and/or NX options at the same time are not compatible")},
			{cmd: "ZADD z INCR 1 a 2 b", want: e("ERR INCR option supports a single increment-element pair")},
			{cmd: "ZADD z 1 a x b", want: e(errFloat)},
			{cmd: "ZADD str 1 a", want: e(wrongType)},
			{cmd: "ZADD str x a", want: e(errFloat)}, // arguments before the type
			{cmd: "EXISTS z", want: int64(0)},
		}},
	})
}

func TestZIncrBy(t *testing.T) {
	runCases(t, []tcase{
		{name: "incr", steps: []step{
			{cmd: "ZINCRBY z 2 a", want: "2"},
			{cmd: "ZINCRBY z 1.5 a", want: "3.5"},
			{cmd: "ZINCRBY z -3.5 a", want: "0"},
			{cmd: "ZINCRBY z +inf a", want: "inf"},
			{cmd: "ZINCRBY z -inf a", want: e(errNaNReply)},
			{cmd: "ZINCRBY z 1 a", want: "inf"},
			{cmd: "ZINCRBY z x a", want: e(errFloat)},
			// Flag parsing is shared with ZADD: "nx" is a flag here.
			{cmd: "ZINCRBY z nx a", want: e(errSyntax)},
			{cmd: "ZINCRBY z 1", want: e("ERR wrong number of arguments for 'zincrby' command")},
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZINCRBY str 1 a", want: e(wrongType)},
		}},
		{name: "incr", proto: 3, steps: []step{
			{cmd: "ZINCRBY z 2 a", want: 2.0},
			{cmd: "ZINCRBY z 0.25 a", want: 2.25},
		}},
	})
}

func TestZRem(t *testing.T) {
	runCases(t, []tcase{
		{name: "rem", steps: []step{
			{cmd: "ZADD z 1 a 2 b 3 c", want: int64(3)},
			{cmd: "ZREM z a x", want: int64(1)},
			{cmd: "ZREM z x", want: int64(0)},
			{cmd: "ZREM z b c a", want: int64(2)},
			{cmd: "EXISTS z", want: int64(0)},
			{cmd: "ZREM missing a", want: int64(0)},
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZREM str a", want: e(wrongType)},
			{cmd: "ZREM z", want: e("ERR wrong number of arguments for 'zrem' command")},
		}},
	})
}

// ZADD keeps no part of its request: members added, moved and looked up
// read the same after the request's bytes are overwritten, in the compact
// form and in the skiplist (more than 128 members).
func TestZAddOwnsItsMembers(t *testing.T) {
	for _, n := range []int{3, 200} {
		h := newHarness(t)
		for i := range n {
			argv := [][]byte{[]byte("ZADD"), []byte("z"), []byte("1"), []byte(fmt.Sprintf("m%03d", i))}
			h.DoBytes(argv)
			copy(argv[3], "XXXX")
			// The same member again at its score, then at a new one.
			again := [][]byte{[]byte("ZADD"), []byte("z"), []byte("1"), []byte(fmt.Sprintf("m%03d", i))}
			h.DoBytes(again)
			copy(again[3], "YYYY")
			moved := [][]byte{[]byte("ZADD"), []byte("z"), []byte("2"), []byte(fmt.Sprintf("m%03d", i))}
			h.DoBytes(moved)
			copy(moved[3], "ZZZZ")
		}
		got, _ := h.Do("ZRANGE", "z", "0", "-1").([]any)
		if len(got) != n {
			t.Fatalf("%d members: ZRANGE gave %d", n, len(got))
		}
		for i, m := range got {
			if want := fmt.Sprintf("m%03d", i); m != want {
				t.Fatalf("%d members: member %d reads %v, want %s", n, i, m, want)
			}
		}
		if s := h.Do("ZSCORE", "z", "m001"); s != "2" {
			t.Fatalf("%d members: ZSCORE m001 = %v", n, s)
		}
		checkInvariants(t, h.DB)
	}
}
