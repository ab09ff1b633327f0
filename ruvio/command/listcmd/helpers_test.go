package listcmd_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/resp"
)

type step struct {
	args []string
	want any
}

// s is shorthand for a step: the last argument is the expected reply.
func s(args ...any) step {
	st := step{want: norm(args[len(args)-1])}
	for _, a := range args[:len(args)-1] {
		st.args = append(st.args, a.(string))
	}
	return st
}

// norm turns the ints of an expected reply into the int64 cmdtest decodes.
func norm(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e)
		}
		return out
	}
	return v
}

func arr(xs ...any) []any { return norm(xs).([]any) }

func e(msg string) cmdtest.Error { return cmdtest.Error(msg) }

var errWrongType = e(command.ErrWrongType)

// pexpireat stands in for the key family's PEXPIREAT so tests can give
// a list a time to live and still replay their log.
var pexpireat = &command.Spec{Name: "pexpireat", Arity: 3, Flags: command.Write, FirstKey: 1, LastKey: 1, Step: 1,
	Run: func(c *command.Ctx) {
		at, _ := command.ParseInt(c.Args[2])
		if c.DB.SetExpire(string(c.Args[1]), at) {
			c.Dirty++
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}}

// del stands in for the key family's DEL, which lazy expiry logs.
var del = &command.Spec{Name: "del", Arity: -2, Flags: command.Write, FirstKey: 1, LastKey: -1, Step: 1,
	PerKey: func(c *command.Ctx, key []byte) int64 {
		if c.DB.Delete(string(key)) {
			c.Dirty++
			return 1
		}
		return 0
	}}

func newHarness(t testing.TB, proto int) *cmdtest.Harness {
	h := cmdtest.New(t, listcmd.Specs(), stringcmd.Specs(), []*command.Spec{pexpireat, del})
	h.Proto = proto
	return h
}

// runSteps plays steps in RESP2 and RESP3 on fresh keyspaces, then checks
// that the logged effects replay to the same keyspace.
func runSteps(t *testing.T, steps []step) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		h := newHarness(t, proto)
		for _, st := range steps {
			if got := h.Do(st.args...); !reflect.DeepEqual(got, st.want) {
				t.Errorf("RESP%d %q = %#v, want %#v", proto, st.args, got, st.want)
			}
			if h.Blocked != nil {
				t.Errorf("RESP%d %q blocked", proto, st.args)
			}
		}
		checkReplay(t, h)
	}
}

func checkReplay(t testing.TB, h *cmdtest.Harness) {
	t.Helper()
	if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
		t.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
	}
}

// raw runs one command outside the harness and returns the reply as sent
// on the wire, so tests can tell a null bulk string from a null array.
// It is for commands whose effects need not be logged.
func raw(h *cmdtest.Harness, proto int, inMulti bool, args ...string) (string, *command.Ctx) {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.Proto = proto
	c := &command.Ctx{Args: argv, W: w, DB: h.DB, Now: h.NowMs, InMulti: inMulti}
	h.Table.Lookup(argv[0]).Run(c)
	w.Flush()
	return buf.String(), c
}
