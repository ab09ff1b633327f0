package setcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/setcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

// newHarness serves the set commands, plus the string commands so tests
// can create keys of another type, and stand-ins for DEL, which the log
// holds for keys that expired.
func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, setcmd.Specs(), stringcmd.Specs(), cmdtest.KeyStandIns())
}
