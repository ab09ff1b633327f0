package stringcmd_test

import (
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

// now is the harness's starting clock, for absolute times in tables.
const now = cmdtest.StartMs

// newHarness serves the string commands, the key commands their effects
// replay through (GETEX logs PEXPIREAT, PERSIST and DEL), and makers of
// the aggregate types (TESTHASH key and so on), so WRONGTYPE paths are
// logged and replayed like any write.
func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, stringcmd.Specs(), keycmd.Specs(), cmdtest.TypeMakers())
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

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
