package stringcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

func TestAppendStrlen(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"APPEND", "a", "hello"}, Want: int64(5)},
		{Args: []string{"APPEND", "a", " world"}, Want: int64(11)},
		{Args: []string{"APPEND", "a", ""}, Want: int64(11)},
		{Args: []string{"GET", "a"}, Want: "hello world"},
		{Args: []string{"STRLEN", "a"}, Want: int64(11)},
		{Args: []string{"STRLEN", "none"}, Want: int64(0)},
		{Args: []string{"APPEND", "e", ""}, Want: int64(0)},
		{Args: []string{"EXISTS", "e"}, Want: int64(1)}, // APPEND creates even an empty string
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"APPEND", "h", "x"}, Want: cmdtest.WrongType},
		{Args: []string{"STRLEN", "h"}, Want: cmdtest.WrongType},
		{Args: []string{"SET", "t", "ab", "EX", "100"}, Want: "OK"},
		{Args: []string{"APPEND", "t", "c"}, Want: int64(3)},
		{Args: []string{"TTL", "t"}, Want: int64(100)},
		{Args: []string{"INCR", "t"}, Want: errNotInt},
		{Args: []string{"SET", "n", "41"}, Want: "OK"},
		{Args: []string{"APPEND", "n", "9"}, Want: int64(3)},
		{Args: []string{"INCR", "n"}, Want: int64(420)},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
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
	cmdtest.CheckReplay(t, h)
}

func TestAppendTooLong(t *testing.T) {
	// The real limit stands in TestSetrange, where no string is built.
	defer stringcmd.SetMaxStringLen(16)()
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"APPEND", "a", "0123456789"}, Want: int64(10)},
		{Args: []string{"APPEND", "a", "abcdef"}, Want: int64(16)},
		{Args: []string{"APPEND", "a", "x"}, Want: errTooLong},
		{Args: []string{"APPEND", "a", ""}, Want: int64(16)},
		{Args: []string{"SETRANGE", "a", "16", "x"}, Want: errTooLong},
		{Args: []string{"SETRANGE", "a", "15", "x"}, Want: int64(16)},
		{Args: []string{"GET", "a"}, Want: "0123456789abcdex"},
	}.Run(t, h)
}

func TestGetrange(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SET", "a", "hello world"}, Want: "OK"},
		{Args: []string{"GETRANGE", "a", "0", "4"}, Want: "hello"},
		{Args: []string{"GETRANGE", "a", "-5", "-1"}, Want: "world"},
		{Args: []string{"GETRANGE", "a", "0", "-1"}, Want: "hello world"},
		{Args: []string{"GETRANGE", "a", "5", "3"}, Want: ""},
		{Args: []string{"GETRANGE", "a", "-1", "-5"}, Want: ""},
		{Args: []string{"GETRANGE", "a", "0", "100"}, Want: "hello world"},
		{Args: []string{"GETRANGE", "a", "-100", "2"}, Want: "hel"},
		{Args: []string{"GETRANGE", "a", "-100", "-50"}, Want: "h"},
		{Args: []string{"GETRANGE", "a", "20", "30"}, Want: ""},
		{Args: []string{"GETRANGE", "a", "10", "10"}, Want: "d"},
		{Args: []string{"GETRANGE", "a", maxInt64Text, minInt64Text}, Want: ""},
		{Args: []string{"GETRANGE", "a", minInt64Text, maxInt64Text}, Want: "hello world"},
		{Args: []string{"SUBSTR", "a", "0", "4"}, Want: "hello"},
		{Args: []string{"GETRANGE", "none", "0", "-1"}, Want: ""},
		{Args: []string{"GETRANGE", "a", "x", "1"}, Want: errNotInt},
		{Args: []string{"GETRANGE", "a", "0", "1.5"}, Want: errNotInt},
		{Args: []string{"GETRANGE", "none", "x", "1"}, Want: errNotInt},
		{Args: []string{"SET", "e", ""}, Want: "OK"},
		{Args: []string{"GETRANGE", "e", "0", "-1"}, Want: ""},
		{Args: []string{"GETRANGE", "e", "0", "0"}, Want: ""},
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"GETRANGE", "h", "0", "-1"}, Want: cmdtest.WrongType},
		{Args: []string{"GETRANGE", "a", "0", "-1", "x"}, Want: cmdtest.ErrArity("getrange")},
	}.Run(t, h)
}

func TestSetrange(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SET", "a", "hello world"}, Want: "OK"},
		{Args: []string{"SETRANGE", "a", "6", "Redis"}, Want: int64(11)},
		{Args: []string{"GET", "a"}, Want: "hello Redis"},
		{Args: []string{"SETRANGE", "a", "11", "!"}, Want: int64(12)},
		{Args: []string{"SETRANGE", "a", "14", "?"}, Want: int64(15)},
		{Args: []string{"GET", "a"}, Want: "hello Redis!\x00\x00?"},
		{Args: []string{"SETRANGE", "n", "5", "x"}, Want: int64(6)},
		{Args: []string{"GET", "n"}, Want: "\x00\x00\x00\x00\x00x"},
		{Args: []string{"SETRANGE", "m", "3", ""}, Want: int64(0)},
		{Args: []string{"EXISTS", "m"}, Want: int64(0)},
		{Args: []string{"SETRANGE", "a", "0", ""}, Want: int64(15)},
		{Args: []string{"SETRANGE", "a", "100", ""}, Want: int64(15)},
		{Args: []string{"SETRANGE", "a", "-1", "x"}, Want: errOffset},
		{Args: []string{"SETRANGE", "a", "y", "x"}, Want: errNotInt},
		{Args: []string{"SETRANGE", "a", "536870912", "x"}, Want: errTooLong},
		{Args: []string{"SETRANGE", "a", "536870911", "xy"}, Want: errTooLong},
		{Args: []string{"SETRANGE", "a", maxInt64Text, "x"}, Want: errTooLong},
		{Args: []string{"SETRANGE", "m", "536870912", "x"}, Want: errTooLong},
		{Args: []string{"EXISTS", "m"}, Want: int64(0)},
		{Args: []string{"TESTHASH", "h"}, Want: "OK"},
		{Args: []string{"SETRANGE", "h", "0", "x"}, Want: cmdtest.WrongType},
		{Args: []string{"SET", "t", "abc", "PX", "5000"}, Want: "OK"},
		{Args: []string{"SETRANGE", "t", "1", "X"}, Want: int64(3)},
		{Args: []string{"PTTL", "t"}, Want: int64(5000)},
		{Args: []string{"GET", "t"}, Want: "aXc"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)

	// Bytes past a stored value's length may hold anything; the gap that
	// SETRANGE opens must still read as zeros.
	h.DB.Set("s", []byte("abcdef")[:2])
	cmdtest.Steps{
		{Args: []string{"SETRANGE", "s", "4", "x"}, Want: int64(5)},
		{Args: []string{"GET", "s"}, Want: "ab\x00\x00x"},
	}.Run(t, h)
}

// The string commands store short values in one allocation
// (keyspace.NewString). A SETRANGE inside the value copies it once, as
// Redis makes its value raw, and writes in place from then on.
func TestStringsAreStoredEmbedded(t *testing.T) {
	h := newHarness(t)
	embedded := func(key string) bool {
		e := h.DB.Peek(key)
		return e != nil && keyspace.Embedded(e.Val)
	}
	h.Do("SET", "s", "hello")
	h.Do("INCR", "n")
	h.Do("APPEND", "a", "first")
	for _, k := range []string{"s", "n", "a"} {
		if !embedded(k) {
			t.Errorf("%s is not stored embedded", k)
		}
	}
	h.Do("SETRANGE", "s", "0", "J")
	if got := h.Do("GET", "s"); got != "Jello" || embedded("s") {
		t.Errorf("after SETRANGE inside the value: GET %q, embedded %v", got, embedded("s"))
	}
	before := &h.DB.Peek("s").Val.([]byte)[0]
	h.Do("SETRANGE", "s", "1", "E")
	if got := h.Do("GET", "s"); got != "JEllo" || &h.DB.Peek("s").Val.([]byte)[0] != before {
		t.Errorf("a second SETRANGE inside the value: GET %q, written in place %v", got, &h.DB.Peek("s").Val.([]byte)[0] == before)
	}
	h.Do("SETRANGE", "s", "5", "!")
	if got := h.Do("GET", "s"); got != "JEllo!" {
		t.Errorf("after SETRANGE past the end: GET %q", got)
	}
	cmdtest.CheckReplay(t, h)
}
