package listcmd_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

// s is shorthand for a step: the last argument is the expected reply.
func s(args ...any) cmdtest.Step { return cmdtest.Row(args...) }

func arr(xs ...any) []any { return cmdtest.Array(xs...) }

func e(msg string) cmdtest.Error { return cmdtest.Error(msg) }

const errWrongType = cmdtest.WrongType

// newHarness serves the list commands, the string commands to make keys
// of another type, and stand-ins for PEXPIREAT, to give a list a time to
// live, and DEL, which lazy expiry logs.
func newHarness(t testing.TB, proto int) *cmdtest.Harness {
	h := cmdtest.New(t, listcmd.Specs(), stringcmd.Specs(), cmdtest.KeyStandIns())
	h.Proto = proto
	return h
}

// runSteps plays steps in RESP2 and RESP3 on fresh keyspaces, then checks
// that the logged effects replay to the same keyspace.
func runSteps(t *testing.T, steps cmdtest.Steps) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		h := newHarness(t, proto)
		steps.Run(t, h)
		cmdtest.CheckReplay(t, h)
	}
}

// lastEffect renders the last effect logged.
func lastEffect(h *cmdtest.Harness) string { return h.Logged(len(h.Log) - 1)[0] }

// splitArgs splits a command on spaces into an argv.
func splitArgs(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}
