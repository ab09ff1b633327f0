package zsetcmd

import (
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestZRemRange(t *testing.T) {
	runCases(t, []tcase{
		{name: "score", steps: with(fiveSteps,
			step{cmd: "ZREMRANGEBYSCORE z (1 3", want: int64(2)},
			step{cmd: "ZRANGE z 0 -1", want: a("a", "d", "e")},
			step{cmd: "ZREMRANGEBYSCORE z 10 20", want: int64(0)},
			step{cmd: "ZREMRANGEBYSCORE z x 1", want: e(errScoreBound)},
			step{cmd: "ZREMRANGEBYSCORE z -inf +inf", want: int64(3)},
			step{cmd: "EXISTS z", want: int64(0)},
			step{cmd: "ZREMRANGEBYSCORE z -inf +inf", want: int64(0)},
			step{cmd: "ZREMRANGEBYSCORE str 0 1", want: e(wrongType)},
			step{cmd: "ZREMRANGEBYSCORE str x 1", want: e(errScoreBound)},
		)},
		{name: "rank", steps: with(fiveSteps,
			step{cmd: "ZREMRANGEBYRANK z 0 0", want: int64(1)},
			step{cmd: "ZREMRANGEBYRANK z 5 10", want: int64(0)},
			step{cmd: "ZREMRANGEBYRANK z 2 1", want: int64(0)},
			step{cmd: "ZREMRANGEBYRANK z -1 -1", want: int64(1)},
			step{cmd: "ZRANGE z 0 -1", want: a("b", "c", "d")},
			step{cmd: "ZREMRANGEBYRANK z -100 0", want: int64(1)},
			step{cmd: "ZREMRANGEBYRANK z x 1", want: e(errInt)},
			step{cmd: "ZREMRANGEBYRANK z 0 100", want: int64(2)},
			step{cmd: "EXISTS z", want: int64(0)},
			step{cmd: "ZREMRANGEBYRANK z 0 -1", want: int64(0)},
			step{cmd: "ZREMRANGEBYRANK str 0 -1", want: e(wrongType)},
			step{cmd: "ZREMRANGEBYRANK str 0 x", want: e(errInt)},
		)},
		{name: "lex", steps: with(lexSteps,
			step{cmd: "ZREMRANGEBYLEX z [b (d", want: int64(2)},
			step{cmd: "ZRANGE z 0 -1", want: a("a", "d")},
			step{cmd: "ZREMRANGEBYLEX z + -", want: int64(0)},
			step{cmd: "ZREMRANGEBYLEX z x +", want: e(errLexBound)},
			step{cmd: "ZREMRANGEBYLEX z - +", want: int64(2)},
			step{cmd: "EXISTS z", want: int64(0)},
			step{cmd: "ZREMRANGEBYLEX str - +", want: e(wrongType)},
		)},
	})
}

func TestZPop(t *testing.T) {
	runCases(t, []tcase{
		{name: "pop", steps: with(fiveSteps,
			step{cmd: "ZPOPMIN z", want: a("a", "1")},
			step{cmd: "ZPOPMAX z 2", want: a("e", "5", "d", "4")},
			step{cmd: "ZPOPMIN z 0", want: a()},
			step{cmd: "ZPOPMIN z -1", want: e("ERR value is out of range, must be positive")},
			step{cmd: "ZPOPMIN z x", want: e("ERR value is out of range, must be positive")},
			step{cmd: "ZPOPMIN z 1 2", want: e(errSyntax)},
			step{cmd: "ZPOPMIN z 10", want: a("b", "2", "c", "3")},
			step{cmd: "EXISTS z", want: int64(0)},
			step{cmd: "ZPOPMIN z", want: a()},
			step{cmd: "ZPOPMAX z 3", want: a()},
			step{cmd: "ZPOPMIN str", want: e(wrongType)},
			step{cmd: "ZPOPMAX str 0", want: e(wrongType)},
			step{cmd: "ZPOPMAX str x", want: e("ERR value is out of range, must be positive")},
		)},
		{name: "pop", proto: 3, steps: with(fiveSteps,
			step{cmd: "ZPOPMIN z", want: a("a", 1.0)},
			step{cmd: "ZPOPMIN z 1", want: a(a("b", 2.0))},
			step{cmd: "ZPOPMAX z 2", want: a(a("e", 5.0), a("d", 4.0))},
			step{cmd: "ZPOPMAX z 0", want: a()},
			step{cmd: "ZPOPMAX missing", want: a()},
		)},
	})
}

func TestBZPop(t *testing.T) {
	runCases(t, []tcase{
		{name: "served", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1 a 2 b 3 c", want: int64(3)},
			{cmd: "BZPOPMIN missing z 0", want: a("z", "a", "1")},
			{cmd: "BZPOPMAX z 0.5", want: a("z", "c", "3")},
			{cmd: "BZPOPMAX z str 0", want: a("z", "b", "2")},
			{cmd: "EXISTS z", want: int64(0)},
			{cmd: "BZPOPMIN z x", want: e("ERR timeout is not a float or out of range")},
			{cmd: "BZPOPMIN z -1", want: e("ERR timeout is negative")},
			{cmd: "BZPOPMIN missing str 0", want: e(wrongType)},
			{cmd: "BZPOPMIN z", want: e("ERR wrong number of arguments for 'bzpopmin' command")},
		}},
		{name: "served", proto: 3, steps: []step{
			{cmd: "ZADD z 1 a 2 b", want: int64(2)},
			{cmd: "BZPOPMIN z 0", want: a("z", "a", 1.0)},
			{cmd: "BZPOPMAX z 0", want: a("z", "b", 2.0)},
		}},
	})
}

func TestBZPopBlocks(t *testing.T) {
	h := newHarness(t)
	if got := h.Do("BZPOPMIN", "z", "y", "z", "1.5"); got != nil {
		t.Fatalf("blocked command replied %#v", got)
	}
	want := &command.BlockRequest{Keys: []string{"z", "y"}, TimeoutMs: 1500}
	if !reflect.DeepEqual(h.Blocked, want) {
		t.Fatalf("Blocked = %#v, want %#v", h.Blocked, want)
	}
	if len(h.Log) != 0 {
		t.Fatalf("a blocked command logged %q", h.Log)
	}
	// The server reruns the command once a key is written.
	h.Do("ZADD", "y", "7", "m")
	if got := h.Do("BZPOPMAX", "z", "y", "0"); !reflect.DeepEqual(got, a("y", "m", "7")) {
		t.Fatalf("rerun got %#v", got)
	}
	if h.Blocked != nil {
		t.Fatalf("served command still blocked")
	}
	wantLog := []string{"ZADD y 7 m", "ZPOPMAX y"}
	if got := h.Logged(0); !reflect.DeepEqual(got, wantLog) {
		t.Fatalf("log = %q, want %q", got, wantLog)
	}
	cmdtest.CheckReplay(t, h)

	// Inside MULTI there is no waiting: the timeout's null array at once.
	for _, proto := range []int{2, 3} {
		h := newHarness(t)
		h.Proto = proto
		got, c := h.Raw(true, "BZPOPMIN", "z", "0")
		want := "*-1\r\n"
		if proto == 3 {
			want = "_\r\n"
		}
		if got != want || c.Block != nil {
			t.Errorf("resp%d: BZPOPMIN in MULTI wrote %q (block %v), want %q", proto, got, c.Block, want)
		}
	}
}
