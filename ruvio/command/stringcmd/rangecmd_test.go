package stringcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

func TestAppendStrlen(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"APPEND", "a", "hello"}, want: int64(5)},
		{args: []string{"APPEND", "a", " world"}, want: int64(11)},
		{args: []string{"APPEND", "a", ""}, want: int64(11)},
		{args: []string{"GET", "a"}, want: "hello world"},
		{args: []string{"STRLEN", "a"}, want: int64(11)},
		{args: []string{"STRLEN", "none"}, want: int64(0)},
		{args: []string{"APPEND", "e", ""}, want: int64(0)},
		{args: []string{"EXISTS", "e"}, want: int64(1)}, // APPEND creates even an empty string
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"APPEND", "h", "x"}, want: wrongType()},
		{args: []string{"STRLEN", "h"}, want: wrongType()},
		{args: []string{"SET", "t", "ab", "EX", "100"}, want: "OK"},
		{args: []string{"APPEND", "t", "c"}, want: int64(3)},
		{args: []string{"TTL", "t"}, want: int64(100)},
		{args: []string{"INCR", "t"}, want: errNotInt},
		{args: []string{"SET", "n", "41"}, want: "OK"},
		{args: []string{"APPEND", "n", "9"}, want: int64(3)},
		{args: []string{"INCR", "n"}, want: int64(420)},
	})
	checkReplay(t, h)
	// Appends share nothing with an earlier value of the same key.
	h.Do("SET", "s", "x")
	for i := 0; i < 20; i++ {
		h.Do("APPEND", "s", "y")
	}
	h.Do("SET", "s2", "x")
	got := h.Do("GET", "s")
	if got != "xyyyyyyyyyyyyyyyyyyyy" {
		t.Fatalf("GET s = %q", got)
	}
	checkReplay(t, h)
}

func TestAppendTooLong(t *testing.T) {
	// The real limit stands in TestSetrange, where no string is built.
	defer stringcmd.SetMaxStringLen(16)()
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"APPEND", "a", "0123456789"}, want: int64(10)},
		{args: []string{"APPEND", "a", "abcdef"}, want: int64(16)},
		{args: []string{"APPEND", "a", "x"}, want: errTooLong},
		{args: []string{"APPEND", "a", ""}, want: int64(16)},
		{args: []string{"SETRANGE", "a", "16", "x"}, want: errTooLong},
		{args: []string{"SETRANGE", "a", "15", "x"}, want: int64(16)},
		{args: []string{"GET", "a"}, want: "0123456789abcdex"},
	})
}

func TestGetrange(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"SET", "a", "hello world"}, want: "OK"},
		{args: []string{"GETRANGE", "a", "0", "4"}, want: "hello"},
		{args: []string{"GETRANGE", "a", "-5", "-1"}, want: "world"},
		{args: []string{"GETRANGE", "a", "0", "-1"}, want: "hello world"},
		{args: []string{"GETRANGE", "a", "5", "3"}, want: ""},
		{args: []string{"GETRANGE", "a", "-1", "-5"}, want: ""},
		{args: []string{"GETRANGE", "a", "0", "100"}, want: "hello world"},
		{args: []string{"GETRANGE", "a", "-100", "2"}, want: "hel"},
		{args: []string{"GETRANGE", "a", "-100", "-50"}, want: "h"},
		{args: []string{"GETRANGE", "a", "20", "30"}, want: ""},
		{args: []string{"GETRANGE", "a", "10", "10"}, want: "d"},
		{args: []string{"GETRANGE", "a", maxInt64Text, minInt64Text}, want: ""},
		{args: []string{"GETRANGE", "a", minInt64Text, maxInt64Text}, want: "hello world"},
		{args: []string{"SUBSTR", "a", "0", "4"}, want: "hello"},
		{args: []string{"GETRANGE", "none", "0", "-1"}, want: ""},
		{args: []string{"GETRANGE", "a", "x", "1"}, want: errNotInt},
		{args: []string{"GETRANGE", "a", "0", "1.5"}, want: errNotInt},
		{args: []string{"GETRANGE", "none", "x", "1"}, want: errNotInt},
		{args: []string{"SET", "e", ""}, want: "OK"},
		{args: []string{"GETRANGE", "e", "0", "-1"}, want: ""},
		{args: []string{"GETRANGE", "e", "0", "0"}, want: ""},
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"GETRANGE", "h", "0", "-1"}, want: wrongType()},
		{args: []string{"GETRANGE", "a", "0", "-1", "x"}, want: errArity("getrange")},
	})
}

func TestSetrange(t *testing.T) {
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"SET", "a", "hello world"}, want: "OK"},
		{args: []string{"SETRANGE", "a", "6", "Redis"}, want: int64(11)},
		{args: []string{"GET", "a"}, want: "hello Redis"},
		{args: []string{"SETRANGE", "a", "11", "!"}, want: int64(12)},
		{args: []string{"SETRANGE", "a", "14", "?"}, want: int64(15)},
		{args: []string{"GET", "a"}, want: "hello Redis!\x00\x00?"},
		{args: []string{"SETRANGE", "n", "5", "x"}, want: int64(6)},
		{args: []string{"GET", "n"}, want: "\x00\x00\x00\x00\x00x"},
		{args: []string{"SETRANGE", "m", "3", ""}, want: int64(0)},
		{args: []string{"EXISTS", "m"}, want: int64(0)},
		{args: []string{"SETRANGE", "a", "0", ""}, want: int64(15)},
		{args: []string{"SETRANGE", "a", "100", ""}, want: int64(15)},
		{args: []string{"SETRANGE", "a", "-1", "x"}, want: errOffset},
		{args: []string{"SETRANGE", "a", "y", "x"}, want: errNotInt},
		{args: []string{"SETRANGE", "a", "536870912", "x"}, want: errTooLong},
		{args: []string{"SETRANGE", "a", "536870911", "xy"}, want: errTooLong},
		{args: []string{"SETRANGE", "a", maxInt64Text, "x"}, want: errTooLong},
		{args: []string{"SETRANGE", "m", "536870912", "x"}, want: errTooLong},
		{args: []string{"EXISTS", "m"}, want: int64(0)},
		{args: []string{"TESTHASH", "h"}, want: "OK"},
		{args: []string{"SETRANGE", "h", "0", "x"}, want: wrongType()},
		{args: []string{"SET", "t", "abc", "PX", "5000"}, want: "OK"},
		{args: []string{"SETRANGE", "t", "1", "X"}, want: int64(3)},
		{args: []string{"PTTL", "t"}, want: int64(5000)},
		{args: []string{"GET", "t"}, want: "aXc"},
	})
	checkReplay(t, h)

	// Bytes past a stored value's length may hold anything; the gap that
	// SETRANGE opens must still read as zeros.
	h.DB.Set("s", []byte("abcdef")[:2])
	run(t, h, []step{
		{args: []string{"SETRANGE", "s", "4", "x"}, want: int64(5)},
		{args: []string{"GET", "s"}, want: "ab\x00\x00x"},
	})
}
