package stringcmd_test

import (
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
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

// newHarness serves the string commands, the key commands their effects
// replay through (GETEX logs PEXPIREAT, PERSIST and DEL), and TESTHASH
// key, which stores a one-field hash so WRONGTYPE paths are logged and
// replayed like any write.
func newHarness(t testing.TB) *cmdtest.Harness {
	testHash := &command.Spec{Name: "testhash", Arity: 2, Flags: command.Write, FirstKey: 1, LastKey: 1, Step: 1,
		Run: func(c *command.Ctx) {
			c.DB.Set(string(c.Args[1]), map[string][]byte{"f": []byte("v")})
			c.Dirty++
			c.W.OK()
		}}
	return cmdtest.New(t, stringcmd.Specs(), keycmd.Specs(), []*command.Spec{testHash})
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

// checkReplay asserts that replaying the logged effects on an empty
// keyspace reaches the harness's state.
func checkReplay(t *testing.T, h *cmdtest.Harness) {
	t.Helper()
	if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
		t.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func wrongType() cmdtest.Error {
	return cmdtest.Error("WRONGTYPE Operation against a key holding the wrong kind of value")
}

const (
	errSyntax       = cmdtest.Error("ERR syntax error")
	errNotInt       = cmdtest.Error("ERR value is not an integer or out of range")
	errNotFloat     = cmdtest.Error("ERR value is not a valid float")
	errOverflow     = cmdtest.Error("ERR increment or decrement would overflow")
	errNaN          = cmdtest.Error("ERR increment would produce NaN or Infinity")
	errTooLong      = cmdtest.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	errOffset       = cmdtest.Error("ERR offset is out of range")
	errDecrOverflow = cmdtest.Error("ERR decrement would overflow")
	errNoSuchKey    = cmdtest.Error("ERR no such key")
	maxInt64Text    = "9223372036854775807"
	minInt64Text    = "-9223372036854775808"
)

func errArity(name string) cmdtest.Error {
	return cmdtest.Error("ERR wrong number of arguments for '" + name + "' command")
}
