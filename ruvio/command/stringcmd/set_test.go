package stringcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetOptions(t *testing.T) {
	h := newHarness(t)
	steps := []struct {
		args []string
		want any
	}{
		{[]string{"SET", "k", "v"}, "OK"},
		{[]string{"GET", "k"}, "v"},
		{[]string{"SET", "k", "w", "NX"}, nil},
		{[]string{"SET", "k", "w", "XX", "GET"}, "v"},
		{[]string{"SET", "n", "w", "XX"}, nil},
		{[]string{"SET", "k", "x", "NX", "XX"}, cmdtest.Error("ERR syntax error")},
		{[]string{"SET", "k", "x", "EX", "0"}, cmdtest.Error("ERR invalid expire time in 'set' command")},
		{[]string{"SET", "k", "x", "EX", "ten"}, cmdtest.Error("ERR value is not an integer or out of range")},
		{[]string{"SET", "k", "x", "EX", "10", "KEEPTTL"}, cmdtest.Error("ERR syntax error")},
		{[]string{"SET", "k", "x", "EX", "ten", "NX", "XX"}, cmdtest.Error("ERR syntax error")},
		{[]string{"SET", "k", "x", "EX", "10", "PX", "10"}, cmdtest.Error("ERR syntax error")},
		{[]string{"SET", "k", "x", "EX"}, cmdtest.Error("ERR syntax error")},
		{[]string{"SET", "k", "x", "EX", "9223372036854775"}, cmdtest.Error("ERR invalid expire time in 'set' command")},
		{[]string{"SET", "k", "x", "PX", "9223372036854775807"}, cmdtest.Error("ERR invalid expire time in 'set' command")},
		{[]string{"SET", "r", "x", "EX", "10", "ex", "20"}, "OK"},
		{[]string{"TTL", "r"}, int64(20)},
		{[]string{"SET", "r", "y", "KEEPTTL", "KEEPTTL"}, "OK"},
		{[]string{"TTL", "r"}, int64(20)},
		{[]string{"SET", "t", "1", "PX", "1500"}, "OK"},
		{[]string{"MGET", "k", "nope", "t"}, []any{"w", nil, "1"}},
	}
	for _, s := range steps {
		if got := h.Do(s.args...); !equal(got, s.want) {
			t.Errorf("%v = %#v, want %#v", s.args, got, s.want)
		}
	}
	// The relative PX was logged as an absolute PXAT so replay agrees.
	if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
		t.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
	}
	h.NowMs += 1500
	if got := h.Do("GET", "t"); got != nil {
		t.Fatalf("GET after expiry = %#v", got)
	}
}

func equal(a, b any) bool {
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok {
		if len(as) != len(bs) {
			return false
		}
		for i := range as {
			if !equal(as[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
