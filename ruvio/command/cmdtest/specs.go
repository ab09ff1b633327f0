package cmdtest

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// KeyStandIns returns stand-ins for the key family's DEL and PEXPIREAT, so
// a family's tests can give keys a time to live and replay a log that
// holds lazy expiry's DELs without depending on the key family.
func KeyStandIns() []*command.Spec {
	return []*command.Spec{
		{Name: "del", Arity: -2, Flags: command.Write, FirstKey: 1, LastKey: -1, Step: 1,
			PerKey: func(c *command.Ctx, key []byte) int64 {
				if c.DB.Delete(string(key)) {
					c.Dirty++
					return 1
				}
				return 0
			}},
		{Name: "pexpireat", Arity: 3, Flags: command.Write, FirstKey: 1, LastKey: 1, Step: 1,
			Run: func(c *command.Ctx) {
				at, _ := command.ParseInt(c.Args[2])
				if c.DB.SetExpire(string(c.Args[1]), at) {
					c.Dirty++
					c.W.Int(1)
				} else {
					c.W.Int(0)
				}
			}},
	}
}

// TypeMakers returns TESTHASH, TESTSET, TESTLIST and TESTZSET key, which
// store a one-element value of each aggregate type, so a family meets the
// other types (WRONGTYPE, TYPE, expiry of any value) through logged,
// replayable writes without depending on the other families.
func TypeMakers() []*command.Spec {
	maker := func(name string, mk func() any) *command.Spec {
		return &command.Spec{Name: name, Arity: 2, Flags: command.Write, FirstKey: 1, LastKey: 1, Step: 1,
			Run: func(c *command.Ctx) {
				c.DB.Set(string(c.Args[1]), mk())
				c.Dirty++
				c.W.OK()
			}}
	}
	return []*command.Spec{
		maker("testhash", func() any {
			h := hash.New()
			h.Set("f", []byte("v"))
			return h
		}),
		maker("testset", func() any { return map[string]struct{}{"m": {}} }),
		maker("testlist", func() any { return deque.New([]byte("e")) }),
		maker("testzset", func() any {
			z := sortedset.New()
			z.Add("m", 1)
			return z
		}),
	}
}

// SpecRow is a command's table entry as a test pins it: flags and
// categories are space-separated names.
type SpecRow struct {
	Arity             int
	Flags             string
	First, Last, Step int
	Categories        string
}

// RowOf returns s's SpecRow.
func RowOf(s *command.Spec) SpecRow {
	return SpecRow{s.Arity, strings.Join(s.Flags.Names(), " "), s.FirstKey, s.LastKey, s.Step,
		strings.Join(s.Categories, " ")}
}

// CheckSpecs fails t for each command of want that table lacks or holds
// with another entry.
func CheckSpecs(t TB, table *command.Table, want map[string]SpecRow) {
	t.Helper()
	for name, w := range want {
		s := table.Lookup([]byte(name))
		if s == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if got := RowOf(s); got != w {
			t.Errorf("%s = %+v, want %+v", name, got, w)
		}
	}
}
