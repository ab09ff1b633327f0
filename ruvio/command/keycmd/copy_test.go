package keycmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
)

func TestCopy(t *testing.T) {
	h := newHarness(t)
	r := cmdtest.Row
	cmdtest.Steps{
		r("COPY", "nope", "x", 0),
		r("COPY", "a", "a", cmdtest.Error("ERR source and destination objects are the same")),
		r("SET", "a", "1", "EX", "100", "OK"),
		r("COPY", "a", "b", 1),
		r("GET", "b", "1"),
		r("TTL", "b", 100),
		r("SET", "c", "2", "OK"),
		r("COPY", "c", "b", 0),
		r("COPY", "c", "b", "REPLACE", 1),
		r("TTL", "b", -1),
		r("GET", "b", "2"),
		r("APPEND", "b", "x", 2),
		r("GET", "c", "2"), // the copy is deep
		r("TESTHASH", "h", "OK"),
		r("COPY", "h", "h2", "DB", "0", 1),
		r("TYPE", "h2", "hash"),
		r("COPY", "h", "h3", "DB", "1", cmdtest.Error("ERR Copying to another database is not allowed in cluster mode")),
		r("COPY", "h", "h3", "DB", "16", cmdtest.Error("ERR DB index is out of range")),
		r("COPY", "h", "h3", "DB", "x", errNotInt),
		r("COPY", "h", "h3", "DB", cmdtest.Error("ERR syntax error")),
		r("COPY", "h", "h3", "NOW", cmdtest.Error("ERR syntax error")),
		r("COPY", "h", cmdtest.ErrArity("copy")),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestLCS(t *testing.T) {
	for _, proto := range []int{2, 3} {
		h := newHarness(t)
		h.Proto = proto
		r := cmdtest.Row
		a := cmdtest.Array
		var matches, withLen any
		matches = a("matches", a(a(a(4, 7), a(5, 8)), a(a(2, 3), a(0, 1))), "len", 6)
		withLen = a("matches", a(a(a(4, 7), a(5, 8), 4)), "len", 6)
		if proto == 3 {
			matches = map[string]any{"matches": matches.([]any)[1], "len": int64(6)}
			withLen = map[string]any{"matches": withLen.([]any)[1], "len": int64(6)}
		}
		cmdtest.Steps{
			r("SET", "k1", "ohmytext", "OK"),
			r("SET", "k2", "mynewtext", "OK"),
			r("LCS", "k1", "k2", "mytext"),
			r("LCS", "k1", "k2", "LEN", 6),
			r("LCS", "k1", "k2", "IDX", matches),
			r("LCS", "k1", "k2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN", withLen),
			r("LCS", "k1", "k2", "IDX", "LEN", cmdtest.Error("ERR If you want both the length and indexes, please just use IDX.")),
			r("LCS", "k1", "k2", "MINMATCHLEN", cmdtest.Error("ERR syntax error")),
			r("LCS", "k1", "nope", ""),
			r("TESTLIST", "l", "OK"),
			r("LCS", "k1", "l", cmdtest.Error("ERR The specified keys must contain string values")),
		}.Run(t, h)
	}
}

func TestCopyLCSSpecs(t *testing.T) {
	h := cmdtest.New(t, keycmd.Specs())
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"copy": {Arity: -3, Flags: "write denyoom", First: 1, Last: 2, Step: 1, Categories: "keyspace write slow"},
		"lcs":  {Arity: -3, Flags: "readonly", First: 1, Last: 2, Step: 1, Categories: "read string slow"},
	})
}
