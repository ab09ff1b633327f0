package zsetcmd

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/setcmd"
)

func TestAlgebra(t *testing.T) {
	setup := []step{
		{cmd: "ZADD z1 1 a 2 b 3 c", want: int64(3)},
		{cmd: "ZADD z2 10 b 20 c 30 d", want: int64(3)},
		{cmd: "SET str v", want: "OK"},
	}
	runCases(t, []tcase{
		{name: "read", steps: append(setup[:3:3],
			step{cmd: "ZUNION 2 z1 z2", want: a("a", "b", "c", "d")},
			step{cmd: "ZUNION 2 z1 z2 WITHSCORES", want: a("a", "1", "b", "12", "c", "23", "d", "30")},
			step{cmd: "ZUNION 2 z1 z2 WEIGHTS 2 -1 WITHSCORES", want: a("d", "-30", "c", "-14", "b", "-6", "a", "2")},
			step{cmd: "ZUNION 2 z1 z2 AGGREGATE MIN WITHSCORES", want: a("a", "1", "b", "2", "c", "3", "d", "30")},
			// Redis zeroes the NaN of inf * 0 for ZINTER's first source
			// only: a later one's NaN makes the sum NaN, counted as 0,
			// and leaves MIN and MAX as they were.
			step{cmd: "ZADD inf -inf e", want: int64(1)},
			step{cmd: "ZINTER 2 inf inf WEIGHTS 2 0 WITHSCORES", want: a("e", "0")},
			step{cmd: "ZINTER 2 inf inf WEIGHTS 0 2 WITHSCORES", want: a("e", "-inf")},
			step{cmd: "ZINTER 2 inf inf WEIGHTS 2 0 AGGREGATE MIN WITHSCORES", want: a("e", "-inf")},
			step{cmd: "ZINTER 2 inf inf WEIGHTS 2 0 AGGREGATE MAX WITHSCORES", want: a("e", "-inf")},
			step{cmd: "ZUNION 2 z1 z2 AGGREGATE max WITHSCORES", want: a("a", "1", "b", "10", "c", "20", "d", "30")},
			step{cmd: "ZINTER 2 z1 z2 WITHSCORES", want: a("b", "12", "c", "23")},
			step{cmd: "ZINTER 2 z1 z2 AGGREGATE MAX", want: a("b", "c")},
			step{cmd: "ZINTER 2 z1 missing", want: a()},
			step{cmd: "ZDIFF 2 z1 z2 WITHSCORES", want: a("a", "1")},
			step{cmd: "ZDIFF 1 missing", want: a()},
			step{cmd: "ZINTERCARD 2 z1 z2", want: int64(2)},
			step{cmd: "ZINTERCARD 2 z1 z2 LIMIT 1", want: int64(1)},
			step{cmd: "ZINTERCARD 2 z1 z2 LIMIT 0", want: int64(2)},
			step{cmd: "ZINTERCARD 1 z1 LIMIT 1 LIMIT 2", want: int64(2)},
			step{cmd: "ZINTERCARD 2 z1 z2 LIMIT -1", want: e("ERR LIMIT can't be negative")},
			step{cmd: "ZINTERCARD 2 z1 z2 WITHSCORES", want: e(errSyntax)},
			step{cmd: "ZUNION 0 z1", want: e("ERR at least 1 input key is needed for 'zunion' command")},
			step{cmd: "ZINTERCARD 0 z1", want: e("ERR at least 1 input key is needed for 'zintercard' command")},
			step{cmd: "ZUNION x z1", want: e("ERR value is not an integer or out of range")},
			step{cmd: "ZUNION 3 z1", want: e(errSyntax)},
			step{cmd: "ZUNION 1 str WEIGHTS x", want: e(wrongType)},
			step{cmd: "ZUNION 1 z1 WEIGHTS x", want: e("ERR weight value is not a float")},
			step{cmd: "ZUNION 1 z1 WEIGHTS", want: e(errSyntax)},
			step{cmd: "ZUNION 1 z1 AGGREGATE avg", want: e(errSyntax)},
			step{cmd: "ZDIFF 2 z1 z2 WEIGHTS 1 2", want: e(errSyntax)},
			step{cmd: "ZUNIONSTORE d 1 z1 WITHSCORES", want: e(errSyntax)},
		)},
		{name: "read", proto: 3, steps: append(setup[:3:3],
			step{cmd: "ZUNION 2 z1 z2 WITHSCORES", want: a(a("a", 1.0), a("b", 12.0), a("c", 23.0), a("d", 30.0))},
			step{cmd: "ZDIFF 2 z2 z1 WITHSCORES", want: a(a("d", 30.0))},
		)},
		{name: "store", steps: append(setup[:3:3],
			step{cmd: "ZUNIONSTORE d 2 z1 z2 WEIGHTS 1 0.5", want: int64(4)},
			step{cmd: "ZRANGE d 0 -1 WITHSCORES", want: a("a", "1", "b", "7", "c", "13", "d", "15")},
			step{cmd: "PEXPIRE d 1000", want: int64(1)},
			step{cmd: "ZINTERSTORE d 2 z1 z2", want: int64(2)},
			step{cmd: "PTTL d", want: int64(-1)},
			step{cmd: "ZDIFFSTORE str 2 z2 z1", want: int64(1)},
			step{cmd: "ZRANGE str 0 -1 WITHSCORES", want: a("d", "30")},
			step{cmd: "ZINTERSTORE d 2 z1 missing", want: int64(0)},
			step{cmd: "EXISTS d", want: int64(0)},
			step{cmd: "ZUNIONSTORE z1 2 z1 z1", want: int64(3)},
			step{cmd: "ZRANGE z1 0 -1 WITHSCORES", want: a("a", "2", "b", "4", "c", "6")},
		)},
		// As in Redis, a small stored result keeps 0 for -0 (a
		// listpack's rule); a reply, or a stored result too large for the
		// compact form, keeps the sign.
		{name: "negative zero", steps: []step{
			{cmd: "ZADD z 0 a -1 a", want: int64(1)},
			{cmd: "ZUNION 1 z WEIGHTS 0 WITHSCORES", want: a("a", "-0")},
			{cmd: "ZINTER 1 z WEIGHTS 0 WITHSCORES", want: a("a", "-0")},
			{cmd: "ZUNIONSTORE d 1 z WEIGHTS 0", want: int64(1)},
			{cmd: "ZRANGE d 0 -1 WITHSCORES", want: a("a", "0")},
			{cmd: "ZADD big" + manyMembers(200), want: int64(200)},
			{cmd: "ZUNIONSTORE d 1 big WEIGHTS 0", want: int64(200)},
			{cmd: "ZRANGE d 0 0 WITHSCORES", want: a("m000", "-0")},
			{cmd: "ZRANGESTORE r d 0 -1", want: int64(200)},
			{cmd: "ZRANGE r 0 0 WITHSCORES", want: a("m000", "-0")},
			{cmd: "ZRANGESTORE r d 0 0", want: int64(1)},
			{cmd: "ZRANGE r 0 0 WITHSCORES", want: a("m000", "0")},
		}},
		{name: "nan", steps: []step{
			{cmd: "ZADD p +inf a", want: int64(1)},
			{cmd: "ZADD n -inf a", want: int64(1)},
			{cmd: "ZUNION 2 p n WITHSCORES", want: a("a", "0")},
			{cmd: "ZUNION 1 p WEIGHTS 0 WITHSCORES", want: a("a", "0")},
			{cmd: "ZINTER 2 p n AGGREGATE MIN WITHSCORES", want: a("a", "-inf")},
		}},
	})
}

// Plain sets take part in the algebra with every member scoring 1.
func TestAlgebraWithSets(t *testing.T) {
	h := cmdtest.New(t, Specs(), setcmd.Specs())
	cmdtest.Steps{
		cmdtest.Row("ZADD", "z", "1", "a", "2", "b", 2),
		cmdtest.Row("SADD", "s", "a", "c", 2),
		cmdtest.Row("ZUNION", "2", "z", "s", "WITHSCORES", a("c", "1", "a", "2", "b", "2")),
		cmdtest.Row("ZDIFF", "2", "z", "s", "WITHSCORES", a("b", "2")),
		cmdtest.Row("ZINTERCARD", "2", "z", "s", 1),
		cmdtest.Row("ZINTERSTORE", "d", "2", "s", "z", "WEIGHTS", "3", "1", 1),
		cmdtest.Row("ZSCORE", "d", "a", "4"),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestMPop(t *testing.T) {
	runCases(t, []tcase{
		{name: "zmpop", steps: []step{
			{cmd: "ZADD z 1 a 2 b 3 c", want: int64(3)},
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZMPOP 2 missing z MIN", want: a("z", a(a("a", "1")))},
			{cmd: "ZMPOP 1 z MAX COUNT 5", want: a("z", a(a("c", "3"), a("b", "2")))},
			{cmd: "EXISTS z", want: int64(0)},
			{cmd: "ZMPOP 1 z MIN", want: nil},
			{cmd: "ZMPOP 2 str z MIN", want: e(wrongType)},
			{cmd: "ZMPOP 0 z MIN", want: e("ERR numkeys should be greater than 0")},
			{cmd: "ZMPOP 2 z MIN", want: e(errSyntax)},
			{cmd: "ZMPOP 1 z FOO", want: e(errSyntax)},
			{cmd: "ZMPOP 1 z MIN COUNT 0", want: e("ERR count should be greater than 0")},
			{cmd: "ZMPOP 1 z MIN COUNT 1 COUNT 2", want: e(errSyntax)},
			{cmd: "ZMPOP 1 z", want: e("ERR wrong number of arguments for 'zmpop' command")},
			{cmd: "BZMPOP x 1 z MIN", want: e("ERR timeout is not a float or out of range")},
			{cmd: "BZMPOP 0 0 z MIN", want: e("ERR numkeys should be greater than 0")},
		}},
		{name: "zmpop", proto: 3, steps: []step{
			{cmd: "ZADD z 1 a 2 b", want: int64(2)},
			{cmd: "ZMPOP 1 z MIN COUNT 2", want: a("z", a(a("a", 1.0), a("b", 2.0)))},
			{cmd: "ZMPOP 1 z MIN", want: nil},
		}},
	})
}

func TestBZMPop(t *testing.T) {
	for _, proto := range []int{2, 3} {
		h := newHarness(t)
		h.Proto = proto
		if got := h.Do("BZMPOP", "0.5", "2", "a", "b", "MAX", "COUNT", "2"); got != nil || h.Blocked == nil ||
			!reflect.DeepEqual(h.Blocked.Keys, []string{"a", "b"}) || h.Blocked.TimeoutMs != 500 {
			t.Fatalf("BZMPOP on missing keys = %#v, blocked %+v", got, h.Blocked)
		}
		h.Do("ZADD", "b", "1", "x", "2", "y", "3", "z")
		want := a("b", a(a("z", "3"), a("y", "2")))
		if proto == 3 {
			want = a("b", a(a("z", 3.0), a("y", 2.0)))
		}
		if got := h.Do("BZMPOP", "0.5", "2", "a", "b", "MAX", "COUNT", "2"); !reflect.DeepEqual(got, want) {
			t.Fatalf("BZMPOP = %#v", got)
		}
		if got := strings.Join(h.Logged(len(h.Log)-1), ""); got != "ZPOPMAX b 2" {
			t.Fatalf("BZMPOP logged %q", got)
		}
		if got, _ := h.Raw(true, "BZMPOP", "0", "1", "a", "MIN"); got != map[int]string{2: "*-1\r\n", 3: "_\r\n"}[proto] {
			t.Fatalf("BZMPOP in MULTI = %q", got)
		}
		cmdtest.CheckReplay(t, h)
	}
}

func TestAlgebraSpecs(t *testing.T) {
	h := newHarness(t)
	row := func(arity int, flags string, first, last, step int, cats string) cmdtest.SpecRow {
		return cmdtest.SpecRow{Arity: arity, Flags: flags, First: first, Last: last, Step: step, Categories: cats}
	}
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"zunion":      row(-3, "readonly movablekeys", 0, 0, 0, "read sortedset slow"),
		"zinter":      row(-3, "readonly movablekeys", 0, 0, 0, "read sortedset slow"),
		"zdiff":       row(-3, "readonly movablekeys", 0, 0, 0, "read sortedset slow"),
		"zunionstore": row(-4, "write denyoom movablekeys", 1, 1, 1, "write sortedset slow"),
		"zinterstore": row(-4, "write denyoom movablekeys", 1, 1, 1, "write sortedset slow"),
		"zdiffstore":  row(-4, "write denyoom movablekeys", 1, 1, 1, "write sortedset slow"),
		"zintercard":  row(-3, "readonly movablekeys", 0, 0, 0, "read sortedset slow"),
		"zmpop":       row(-4, "write movablekeys", 0, 0, 0, "write sortedset slow"),
		"bzmpop":      row(-5, "write blocking movablekeys", 0, 0, 0, "write sortedset slow blocking"),
	})
	for args, want := range map[string][]int{
		"ZUNION 2 a b WITHSCORES": {2, 3},
		"ZUNIONSTORE d 2 a b":     {1, 3, 4},
		"ZINTERCARD 1 a LIMIT 1":  {2},
		"BZMPOP 0 2 a b MIN":      {3, 4},
		"ZDIFFSTORE d 5 a":        {1},
		"ZMPOP 1 a MIN COUNT 2":   {2},
	} {
		var argv [][]byte
		for _, f := range strings.Fields(args) {
			argv = append(argv, []byte(f))
		}
		if got := h.Table.Lookup(argv[0]).KeyIndexes(argv); !reflect.DeepEqual(got, want) {
			t.Errorf("%s keys = %v, want %v", args, got, want)
		}
	}
}

// manyMembers returns n ZADD pairs " -1 m000 -1 m001 ...", all scoring -1.
func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " -1 m%03d", i)
	}
	return b.String()
}
