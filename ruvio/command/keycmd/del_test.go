package keycmd_test

import (
	"slices"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestDelExistsTouch(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"MSET", "a", "1", "b", "2", "c", "3"}, Want: "OK"},
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"EXISTS", "a"}, Want: int64(1)},
		{Args: []string{"EXISTS", "a", "a", "nope", "b", "h"}, Want: int64(4)},
		{Args: []string{"TOUCH", "a", "a", "nope", "h"}, Want: int64(3)},
		{Args: []string{"EXISTS"}, Want: cmdtest.ErrArity("exists")},
		{Args: []string{"DEL", "a", "nope", "a"}, Want: int64(1)},
		{Args: []string{"EXISTS", "a"}, Want: int64(0)},
		{Args: []string{"UNLINK", "b", "h"}, Want: int64(2)},
		{Args: []string{"DEL", "nope"}, Want: int64(0)},
		{Args: []string{"DEL"}, Want: cmdtest.ErrArity("del")},
		{Args: []string{"UNLINK"}, Want: cmdtest.ErrArity("unlink")},
		{Args: []string{"TOUCH"}, Want: cmdtest.ErrArity("touch")},
		{Args: []string{"SET", "t", "x", "PX", "10"}, Want: "OK"},
		{Args: []string{"EXISTS", "t"}, Want: int64(1)},
		{Adv: 10, Args: []string{"EXISTS", "t"}, Want: int64(0)},
		{Args: []string{"DEL", "t"}, Want: int64(0)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestDelPropagatesEachKey(t *testing.T) {
	h := newHarness(t)
	h.Do("MSET", "a", "1", "b", "2")
	mark := len(h.Log)
	if got := h.Do("UNLINK", "a", "x", "b"); got != int64(2) {
		t.Fatalf("UNLINK = %v", got)
	}
	if got, want := h.Logged(mark), []string{"DEL a", "DEL b"}; !slices.Equal(got, want) {
		t.Fatalf("logged %q, want %q", got, want)
	}
	mark = len(h.Log)
	h.Do("DEL", "a", "b")
	if got := h.Logged(mark); len(got) != 0 {
		t.Fatalf("DEL of missing keys logged %q", got)
	}
}

func TestType(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SET", "s", "v"}, Want: "OK"},
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"TESTSET", "st"}, Want: "OK"},
		{Args: []string{"TESTLIST", "l"}, Want: "OK"},
		{Args: []string{"TESTZSET", "z"}, Want: "OK"},
		{Args: []string{"TYPE", "s"}, Want: "string"},
		{Args: []string{"TYPE", "h"}, Want: "hash"},
		{Args: []string{"TYPE", "st"}, Want: "set"},
		{Args: []string{"TYPE", "l"}, Want: "list"},
		{Args: []string{"TYPE", "z"}, Want: "zset"},
		{Args: []string{"TYPE", "nope"}, Want: "none"},
		{Args: []string{"TYPE"}, Want: cmdtest.ErrArity("type")},
		{Args: []string{"TYPE", "a", "b"}, Want: cmdtest.ErrArity("type")},
		{Args: []string{"PEXPIRE", "z", "5"}, Want: int64(1)},
		{Adv: 5, Args: []string{"TYPE", "z"}, Want: "none"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}
