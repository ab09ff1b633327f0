package cmdtest

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// TB is what the checks report failures through: a *testing.T, or a
// *rapid.T inside a property test, so a failure there shrinks.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// WrongType is the decoded WRONGTYPE reply.
const WrongType = Error(command.ErrWrongType)

// ErrArity is the decoded reply to command name called with the wrong
// number of arguments.
func ErrArity(name string) Error { return Error(command.ErrWrongArgs(name)) }

// Shape says how a reply is compared with the one wanted.
type Shape int

const (
	// Exact compares deeply (Equal).
	Exact Shape = iota
	// Unordered takes an array of strings in any order.
	Unordered
	// Pairs takes field/value pairs, as a RESP2 flat array or a RESP3 map.
	Pairs
)

// Equal reports whether two decoded replies are the same.
func Equal(got, want any) bool { return reflect.DeepEqual(got, want) }

// Equal reports whether reply got is want, compared as sh says.
func (sh Shape) Equal(got, want any) bool {
	switch sh {
	case Unordered:
		return Equal(sortedStrings(got), sortedStrings(want))
	case Pairs:
		return Equal(pairMap(got), pairMap(want))
	}
	return Equal(got, want)
}

// sortedStrings sorts an array of strings; anything else is left as is.
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

// Step is one row of a command table: move the clock by Adv ms, then,
// unless Args is nil, run Args and expect Want, compared as Shape says.
type Step struct {
	Args  []string
	Want  any
	Shape Shape
	Adv   int64
}

// Steps is a command table, run in order on one harness.
type Steps []Step

// Run runs the steps on h, failing t for each reply that is not the one
// wanted and for each command that asked to block.
func (steps Steps) Run(t TB, h *Harness) {
	t.Helper()
	for i, s := range steps {
		h.NowMs += s.Adv
		if s.Args == nil {
			continue
		}
		got := h.Do(s.Args...)
		if !s.Shape.Equal(got, s.Want) {
			t.Errorf("step %d: %q = %#v, want %#v", i, s.Args, got, s.Want)
		}
		if h.Blocked != nil {
			t.Errorf("step %d: %q blocked", i, s.Args)
		}
	}
}

// Row is shorthand for a Step: the last argument is the reply wanted, the
// others are the command's arguments, all strings. Ints in the reply are
// taken as the int64s replies decode to.
func Row(args ...any) Step {
	st := Step{Want: Norm(args[len(args)-1])}
	for _, a := range args[:len(args)-1] {
		st.Args = append(st.Args, a.(string))
	}
	return st
}

// Array builds an expected array reply, ints taken as int64; without
// elements it is the empty array, never nil (a null).
func Array(xs ...any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = Norm(x)
	}
	return out
}

// Norm returns an expected reply with its ints, at any depth of arrays,
// turned into the int64s replies decode to.
func Norm(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []any:
		return Array(x...)
	}
	return v
}

// CheckReplay fails t unless replaying h's log on an empty keyspace (see
// Harness.Replay) reaches h's keyspace.
func CheckReplay(t TB, h *Harness) {
	t.Helper()
	if got, want := Dump(h.Replay()), Dump(h.DB); got != want {
		t.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
	}
}

// Raw runs one data command on h's keyspace, in h's protocol, outside the
// harness: nothing is logged and the reply is returned as written on the
// wire, with the command's context, for what decoding hides (a RESP3 set
// from an array, a null array from a null bulk string) or the harness
// does not model (inMulti, EXEC running queued commands).
func (h *Harness) Raw(inMulti bool, args ...string) (string, *command.Ctx) {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.Proto = h.Proto
	c := &command.Ctx{Args: argv, W: w, DB: h.DB, Now: h.NowMs, InMulti: inMulti, Tokens: h.Tokens}
	h.Table.Lookup(argv[0]).Run(c)
	w.Flush()
	return buf.String(), c
}

// RawStep is a command and how the reply it writes on the wire must
// start.
type RawStep struct {
	Args   []string
	Prefix string
}

// RawSteps is a table of RawStep, run in order with Raw.
type RawSteps []RawStep

// Run runs the steps on h outside MULTI, failing t for each reply that
// does not start as wanted.
func (steps RawSteps) Run(t TB, h *Harness) {
	t.Helper()
	for _, s := range steps {
		if got, _ := h.Raw(false, s.Args...); !strings.HasPrefix(got, s.Prefix) {
			t.Errorf("RESP%d %q = %q, want prefix %q", h.Proto, s.Args, got, s.Prefix)
		}
	}
}

// Logged renders the effects logged since mark, one command a line with
// its arguments joined by spaces.
func (h *Harness) Logged(mark int) []string {
	var out []string
	for _, argv := range h.Log[mark:] {
		out = append(out, string(bytes.Join(argv, []byte(" "))))
	}
	return out
}
