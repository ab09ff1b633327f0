package keycmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// now is the harness's starting clock in ms, for absolute times in tables.
const now = 1_700_000_000_000

// step is one row of a command table: advance the clock by adv ms, then
// (when args is set) run args and expect want.
type step struct {
	args []string
	want any
	adv  int64
}

// testSpecs store one-element values of the aggregate types (TESTHASH,
// TESTSET, TESTLIST, TESTZSET key), so the key commands meet every type
// through logged, replayable writes without depending on other families.
func testSpecs() []*command.Spec {
	maker := func(name string, mk func() any) *command.Spec {
		return &command.Spec{Name: name, Arity: 2, Flags: command.Write, FirstKey: 1, LastKey: 1, Step: 1,
			Run: func(c *command.Ctx) {
				c.DB.Set(string(c.Args[1]), mk())
				c.Dirty++
				c.W.OK()
			}}
	}
	return []*command.Spec{
		maker("testhash", func() any { return map[string][]byte{"f": []byte("v")} }),
		maker("testset", func() any { return map[string]struct{}{"m": {}} }),
		maker("testlist", func() any { return deque.New([]byte("e")) }),
		maker("testzset", func() any {
			z := sortedset.New()
			z.Add("m", 1)
			return z
		}),
	}
}

func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, keycmd.Specs(), stringcmd.Specs(), testSpecs())
}

func run(t *testing.T, h *cmdtest.Harness, steps []step) {
	t.Helper()
	for i, s := range steps {
		h.NowMs += s.adv
		if s.args == nil {
			continue
		}
		if got := h.Do(s.args...); !equal(got, s.want) {
			t.Errorf("step %d: %q = %#v, want %#v", i, s.args, got, s.want)
		}
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

// checkReplay asserts that replaying the logged effects on an empty
// keyspace reaches the harness's state.
func checkReplay(t *testing.T, h *cmdtest.Harness) {
	t.Helper()
	if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
		t.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
	}
}

// logged renders the effects logged since mark, one command a line.
func logged(h *cmdtest.Harness, mark int) []string {
	var out []string
	for _, argv := range h.Log[mark:] {
		line := ""
		for i, a := range argv {
			if i > 0 {
				line += " "
			}
			line += string(a)
		}
		out = append(out, line)
	}
	return out
}

func errArity(name string) cmdtest.Error {
	return cmdtest.Error("ERR wrong number of arguments for '" + name + "' command")
}

const (
	errNotInt    = cmdtest.Error("ERR value is not an integer or out of range")
	errNoSuchKey = cmdtest.Error("ERR no such key")
	maxInt64Text = "9223372036854775807"
	minInt64Text = "-9223372036854775808"
)
