package zsetcmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// newHarness serves the sorted-set commands, plus the string and key
// commands the tests use to build other types, expiries and checks.
func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, Specs(), stringcmd.Specs(), keycmd.Specs())
}

// checkInvariants fails when a sorted set in db is empty, which Redis
// never allows, or its Len disagrees with its elements.
func checkInvariants(t testing.TB, db *keyspace.DB) {
	t.Helper()
	db.Each(func(key string, e *keyspace.Entry) bool {
		if s, ok := e.Val.(*sortedset.Set); ok {
			n := 0
			for range s.Each {
				n++
			}
			if n == 0 || n != s.Len() {
				t.Errorf("key %q holds a sorted set of %d elements (Len %d)", key, n, s.Len())
			}
		}
		return true
	})
}

// step is one command of a table test and its expected decoded reply. cmd
// is split on spaces; argv, when set, is used as is (for arguments with
// spaces or empty ones).
type step struct {
	cmd  string
	want any
	argv []string
}

// tcase is a sequence of steps run on a fresh keyspace in one protocol.
type tcase struct {
	name  string
	proto int // 0 means 2
	steps []step
}

// runCases runs each case on a fresh harness, compares every reply, then
// checks the invariants and that the logged effects replay to the same
// state.
func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		proto := max(tc.proto, 2)
		t.Run(fmt.Sprintf("%s/resp%d", tc.name, proto), func(t *testing.T) {
			h := newHarness(t)
			h.Proto = proto
			steps := make(cmdtest.Steps, len(tc.steps))
			for i, st := range tc.steps {
				steps[i] = cmdtest.Step{Args: st.argv, Want: st.want}
				if st.argv == nil {
					steps[i].Args = strings.Split(st.cmd, " ")
				}
			}
			steps.Run(t, h)
			checkInvariants(t, h.DB)
			cmdtest.CheckReplay(t, h)
		})
	}
}

// a builds an expected array reply.
func a(xs ...any) []any { return cmdtest.Array(xs...) }

// e builds an expected error reply.
func e(msg string) cmdtest.Error { return cmdtest.Error(msg) }

const wrongType = command.ErrWrongType
