package keycmd_test

import (
	"slices"
	"testing"
)

func TestDelExistsTouch(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"MSET", "a", "1", "b", "2", "c", "3"}, want: "OK"},
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"EXISTS", "a"}, want: int64(1)},
		{args: []string{"EXISTS", "a", "a", "nope", "b", "h"}, want: int64(4)},
		{args: []string{"TOUCH", "a", "a", "nope", "h"}, want: int64(3)},
		{args: []string{"EXISTS"}, want: errArity("exists")},
		{args: []string{"DEL", "a", "nope", "a"}, want: int64(1)},
		{args: []string{"EXISTS", "a"}, want: int64(0)},
		{args: []string{"UNLINK", "b", "h"}, want: int64(2)},
		{args: []string{"DEL", "nope"}, want: int64(0)},
		{args: []string{"DEL"}, want: errArity("del")},
		{args: []string{"UNLINK"}, want: errArity("unlink")},
		{args: []string{"TOUCH"}, want: errArity("touch")},
		{args: []string{"SET", "t", "x", "PX", "10"}, want: "OK"},
		{args: []string{"EXISTS", "t"}, want: int64(1)},
		{adv: 10, args: []string{"EXISTS", "t"}, want: int64(0)},
		{args: []string{"DEL", "t"}, want: int64(0)},
	})
	checkReplay(t, h)
}

func TestDelPropagatesEachKey(t *testing.T) {
	h := newHarness(t)
	h.Do("MSET", "a", "1", "b", "2")
	mark := len(h.Log)
	if got := h.Do("UNLINK", "a", "x", "b"); got != int64(2) {
		t.Fatalf("UNLINK = %v", got)
	}
	if got, want := logged(h, mark), []string{"DEL a", "DEL b"}; !slices.Equal(got, want) {
		t.Fatalf("logged %q, want %q", got, want)
	}
	mark = len(h.Log)
	h.Do("DEL", "a", "b")
	if got := logged(h, mark); len(got) != 0 {
		t.Fatalf("DEL of missing keys logged %q", got)
	}
}

func TestType(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"SET", "s", "v"}, want: "OK"},
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"TESTSET", "st"}, want: "OK"},
		{args: []string{"TESTLIST", "l"}, want: "OK"},
		{args: []string{"TESTZSET", "z"}, want: "OK"},
		{args: []string{"TYPE", "s"}, want: "string"},
		{args: []string{"TYPE", "h"}, want: "hash"},
		{args: []string{"TYPE", "st"}, want: "set"},
		{args: []string{"TYPE", "l"}, want: "list"},
		{args: []string{"TYPE", "z"}, want: "zset"},
		{args: []string{"TYPE", "nope"}, want: "none"},
		{args: []string{"TYPE"}, want: errArity("type")},
		{args: []string{"TYPE", "a", "b"}, want: errArity("type")},
		{args: []string{"PEXPIRE", "z", "5"}, want: int64(1)},
		{adv: 5, args: []string{"TYPE", "z"}, want: "none"},
	})
	checkReplay(t, h)
}
