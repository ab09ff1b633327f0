package hashcmd_test

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// newHarness serves the hash commands, plus the string commands so tests
// can create keys of another type, and DEL, which the log holds for keys
// that expired.
func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, hashcmd.Specs(), stringcmd.Specs(), []*command.Spec{delSpec})
}

// delSpec stands in for the key family's DEL.
var delSpec = &command.Spec{
	Name: "del", Arity: -2, Flags: command.Write, FirstKey: 1, LastKey: -1, Step: 1,
	PerKey: func(c *command.Ctx, key []byte) int64 {
		if c.DB.Delete(string(key)) {
			c.Dirty++
			return 1
		}
		return 0
	},
}

// shape says how a reply is compared.
type shape int

const (
	exact     shape = iota
	unordered       // an array of strings in any order
	pairs           // field/value pairs: a RESP2 flat array or a RESP3 map
)

type step struct {
	args  []string
	want  any
	shape shape
}

func (s step) String() string { return fmt.Sprintf("%q", s.args) }

// run executes steps in order and checks each reply.
func run(t *testing.T, h *cmdtest.Harness, steps []step) {
	t.Helper()
	for _, s := range steps {
		got := h.Do(s.args...)
		if !same(got, s.want, s.shape) {
			t.Errorf("%v = %#v, want %#v", s, got, s.want)
		}
	}
}

func same(got, want any, sh shape) bool {
	switch sh {
	case unordered:
		return reflect.DeepEqual(sortedStrings(got), sortedStrings(want))
	case pairs:
		return reflect.DeepEqual(pairMap(got), pairMap(want))
	}
	return reflect.DeepEqual(got, want)
}

func sortedStrings(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return v
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// pairMap turns a flat pair array or a decoded RESP3 map into a
// map[string]any so either can be compared.
func pairMap(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case []any:
		if len(x)%2 != 0 {
			return v
		}
		m := make(map[string]any, len(x)/2)
		for i := 0; i < len(x); i += 2 {
			m[fmt.Sprint(x[i])] = x[i+1]
		}
		return m
	}
	return v
}

// checkReplay fails when replaying the logged effects does not rebuild
// the harness's keyspace.
func checkReplay(t testing.TB, h *cmdtest.Harness) {
	t.Helper()
	if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
		t.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
	}
}

// raw runs a read command and returns its undecoded reply, to check RESP3
// types the harness's decoder folds together (sets and arrays).
func raw(h *cmdtest.Harness, args ...string) string {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.Proto = h.Proto
	c := &command.Ctx{Args: argv, W: w, DB: h.DB, Now: h.NowMs}
	h.Table.Lookup(argv[0]).Run(c)
	w.Flush()
	return buf.String()
}

func wrongType() cmdtest.Error { return cmdtest.Error(command.ErrWrongType) }
