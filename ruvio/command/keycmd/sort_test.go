package keycmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/command/setcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

func TestSort(t *testing.T) {
	h := cmdtest.New(t, keycmd.Specs(), listcmd.Specs(), setcmd.Specs(), stringcmd.Specs(), hashcmd.Specs())
	r := cmdtest.Row
	a := cmdtest.Array
	h.Do("SET", "{t}w_a", "3")
	h.Do("SET", "{t}w_b", "1")
	h.Do("HSET", "{t}h_b", "f", "9")
	cmdtest.Steps{
		r("RPUSH", "{t}l", "3", "1", "2", 3),
		r("SORT", "{t}l", a("1", "2", "3")),
		r("SORT", "{t}l", "DESC", "LIMIT", "0", "2", a("3", "2")),
		r("SORT", "{t}l", "BY", "nosort", "DESC", a("2", "1", "3")),
		r("SORT", "{t}l", "STORE", "{t}d", 3),
		r("LRANGE", "{t}d", "0", "-1", a("1", "2", "3")),
		r("SORT", "{t}l", "LIMIT", "5", "1", a()),
		r("SORT", "{t}l", "LIMIT", "x", "1", errNotInt),
		r("SORT", "{t}l", "LIMIT", "1", cmdtest.Error("ERR syntax error")),
		r("SORT_RO", "{t}l", "STORE", "{t}d", cmdtest.Error("ERR syntax error")),
		r("SADD", "{t}s", "a", "b", "c", 3),
		r("SORT", "{t}s", cmdtest.Error("ERR One or more scores can't be converted into double")),
		r("SORT", "{t}s", "ALPHA", "DESC", a("c", "b", "a")),
		r("SORT", "{t}s", "BY", "nosort", a("a", "b", "c")),
		r("SORT", "{t}s", "BY", "{t}w_*", "GET", "#", "GET", "{t}w_*", "GET", "{t}h_*->f", a("c", nil, nil, "b", "1", "9", "a", "3", nil)),
		r("SORT", "{t}s", "BY", "{t}w_*", "GET", "{t}h_*->f", "STORE", "{t}d", 3),
		r("LRANGE", "{t}d", "0", "-1", a("", "9", "")),
		r("SORT", "{t}s", "BY", "w_*", cmdtest.Error("ERR BY option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots.")),
		r("SORT", "{t}s", "GET", "w_*", cmdtest.Error("ERR GET option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots.")),
		r("SORT", "{t}s", "GET", "*{t}", cmdtest.Error("ERR GET option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots.")),
		r("SORT", "{t}s", "ALPHA", "GET", "{t}", a(nil, nil, nil)),
		r("SORT", "{t}missing", "STORE", "{t}d", 0),
		r("EXISTS", "{t}d", 0),
		r("SET", "{t}str", "x", "OK"),
		r("SORT", "{t}str", cmdtest.WrongType),
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)

	sort := h.Table.Lookup([]byte("sort"))
	argv := func(xs ...string) [][]byte {
		out := make([][]byte, len(xs))
		for i, x := range xs {
			out[i] = []byte(x)
		}
		return out
	}
	if got := sort.KeyIndexes(argv("sort", "k", "BY", "store", "GET", "x", "STORE", "d")); len(got) != 2 || got[1] != 7 {
		t.Errorf("SORT keys = %v", got)
	}
	if sort.Flags&command.MovableKeys == 0 {
		t.Error("SORT is not movablekeys")
	}
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"sort":    {Arity: -2, Flags: "write denyoom movablekeys", First: 1, Last: 1, Step: 1, Categories: "write set sortedset list slow dangerous"},
		"sort_ro": {Arity: -2, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read set sortedset list slow dangerous"},
	})
}
