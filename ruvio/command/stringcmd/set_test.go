package stringcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSetOptions(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SET", "k", "v"}, Want: "OK"},
		{Args: []string{"GET", "k"}, Want: "v"},
		{Args: []string{"SET", "k", "w", "NX"}, Want: nil},
		{Args: []string{"SET", "k", "w", "XX", "GET"}, Want: "v"},
		{Args: []string{"SET", "n", "w", "XX"}, Want: nil},
		{Args: []string{"SET", "k", "x", "NX", "XX"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SET", "k", "x", "EX", "0"}, Want: cmdtest.Error("ERR invalid expire time in 'set' command")},
		{Args: []string{"SET", "k", "x", "EX", "ten"}, Want: cmdtest.Error("ERR value is not an integer or out of range")},
		{Args: []string{"SET", "k", "x", "EX", "10", "KEEPTTL"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SET", "k", "x", "EX", "ten", "NX", "XX"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SET", "k", "x", "EX", "10", "PX", "10"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SET", "k", "x", "EX"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SET", "k", "x", "EX", "9223372036854775"}, Want: cmdtest.Error("ERR invalid expire time in 'set' command")},
		{Args: []string{"SET", "k", "x", "PX", "9223372036854775807"}, Want: cmdtest.Error("ERR invalid expire time in 'set' command")},
		{Args: []string{"SET", "r", "x", "EX", "10", "ex", "20"}, Want: "OK"},
		{Args: []string{"TTL", "r"}, Want: int64(20)},
		{Args: []string{"SET", "r", "y", "KEEPTTL", "KEEPTTL"}, Want: "OK"},
		{Args: []string{"TTL", "r"}, Want: int64(20)},
		{Args: []string{"SET", "t", "1", "PX", "1500"}, Want: "OK"},
		{Args: []string{"MGET", "k", "nope", "t"}, Want: []any{"w", nil, "1"}},
	}.Run(t, h)
	// The relative PX was logged as an absolute PXAT so replay agrees.
	cmdtest.CheckReplay(t, h)
	h.NowMs += 1500
	if got := h.Do("GET", "t"); got != nil {
		t.Fatalf("GET after expiry = %#v", got)
	}
}
