package zsetcmd

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

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

// dump renders a keyspace canonically. cmdtest.Dump cannot: a
// *sortedset.Set has no String method, so it would print pointers.
func dump(db *keyspace.DB) string {
	var lines []string
	db.Each(func(key string, e *keyspace.Entry) bool {
		var v string
		if s, ok := e.Val.(*sortedset.Set); ok {
			v = dumpSet(s)
		} else {
			v = cmdtest.DumpValue(e.Val)
		}
		lines = append(lines, fmt.Sprintf("%q exp=%d %s", key, e.ExpireAt, v))
		return true
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// dumpSet lists a set's elements in order with their exact scores (the
// bits, so that -0 and 0 differ), plus its length.
func dumpSet(s *sortedset.Set) string {
	var b strings.Builder
	fmt.Fprintf(&b, "zset(%d):", s.Len())
	for it := range s.Each {
		fmt.Fprintf(&b, " %s=%s", strconv.Quote(it.Member), sortedset.FormatScore(it.Score))
	}
	return b.String()
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

// checkReplay fails unless replaying the logged effects reaches the
// harness's state.
func checkReplay(t testing.TB, h *cmdtest.Harness) {
	t.Helper()
	got, want := dump(h.Replay()), dump(h.DB)
	if got != want {
		t.Errorf("replay diverged:\nreplayed:\n%s\nlive:\n%s", got, want)
	}
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
			for i, st := range tc.steps {
				argv := st.argv
				if argv == nil {
					argv = strings.Split(st.cmd, " ")
				}
				got := h.Do(argv...)
				if !reflect.DeepEqual(got, st.want) {
					t.Fatalf("step %d %q: got %#v, want %#v", i, argv, got, st.want)
				}
			}
			checkInvariants(t, h.DB)
			checkReplay(t, h)
		})
	}
}

// a builds an expected array reply.
func a(xs ...any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}

// e builds an expected error reply.
func e(msg string) cmdtest.Error { return cmdtest.Error(msg) }

const wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
