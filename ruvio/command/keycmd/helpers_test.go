package keycmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

// now is the harness's starting clock, for absolute times in tables.
const now = cmdtest.StartMs

// newHarness serves the key commands, the string commands, and makers of
// one-element values of the aggregate types (TESTHASH key and so on), so
// the key commands meet every type through logged, replayable writes
// without depending on the other families.
func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, keycmd.Specs(), stringcmd.Specs(), cmdtest.TypeMakers())
}

const (
	errNotInt    = cmdtest.Error("ERR value is not an integer or out of range")
	errNoSuchKey = cmdtest.Error("ERR no such key")
	maxInt64Text = "9223372036854775807"
	minInt64Text = "-9223372036854775808"
)
