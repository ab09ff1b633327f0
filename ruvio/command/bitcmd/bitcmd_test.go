package bitcmd_test

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/bitcmd"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

// newHarness serves the bitmap commands with the string and key commands
// the tests build values and expiries with.
func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, bitcmd.Specs(), stringcmd.Specs(), keycmd.Specs(), cmdtest.TypeMakers())
}

// run runs rows (a command split on spaces, then its reply) on a fresh
// harness in each protocol and checks that the log replays to the same
// keyspace.
func run(t *testing.T, rows [][2]any) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		h := newHarness(t)
		h.Proto = proto
		var steps cmdtest.Steps
		for _, r := range rows {
			steps = append(steps, cmdtest.Step{Args: strings.Split(r[0].(string), " "), Want: cmdtest.Norm(r[1])})
		}
		steps.Run(t, h)
		cmdtest.CheckReplay(t, h)
	}
}

func a(xs ...any) []any { return cmdtest.Array(xs...) }

const (
	wrongType = cmdtest.WrongType
	errSyntax = cmdtest.Error("ERR syntax error")
	errNotInt = cmdtest.Error("ERR value is not an integer or out of range")
	errOffset = cmdtest.Error("ERR bit offset is not an integer or out of range")
	errType   = cmdtest.Error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
)

func TestSpecs(t *testing.T) {
	h := newHarness(t)
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"setbit":      {Arity: 4, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write bitmap slow"},
		"getbit":      {Arity: 3, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "read bitmap fast"},
		"bitcount":    {Arity: -2, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read bitmap slow"},
		"bitpos":      {Arity: -3, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read bitmap slow"},
		"bitop":       {Arity: -4, Flags: "write denyoom", First: 2, Last: -1, Step: 1, Categories: "write bitmap slow"},
		"bitfield":    {Arity: -2, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write bitmap slow"},
		"bitfield_ro": {Arity: -2, Flags: "readonly fast", First: 1, Last: 1, Step: 1, Categories: "read bitmap fast"},
	})
}

func TestSetGetBit(t *testing.T) {
	run(t, [][2]any{
		{"SETBIT k 7 1", 0},
		{"GET k", "\x01"},
		{"SETBIT k 7 1", 1},
		{"SETBIT k 7 0", 1},
		{"GET k", "\x00"},
		{"SETBIT k 17 1", 0},
		{"GET k", "\x00\x00\x40"},
		{"GETBIT k 17", 1},
		{"GETBIT k 16", 0},
		{"GETBIT k 1000", 0},
		{"GETBIT missing 3", 0},
		{"SETBIT z 0 0", 0},
		{"STRLEN z", 1},
		{"SETBIT k 4294967296 1", errOffset},
		{"SETBIT k -1 1", errOffset},
		{"SETBIT k x 1", errOffset},
		{"SETBIT k 0 2", cmdtest.Error("ERR bit is not an integer or out of range")},
		{"GETBIT k x", errOffset},
		{"TESTLIST l", "OK"},
		{"SETBIT l 0 1", wrongType},
		{"GETBIT l 0", wrongType},
		{"SETBIT l x 1", errOffset},
		{"PEXPIRE k 10000", 1},
		{"SETBIT k 100 1", 0},
		{"PTTL k", 10000},
		{"GETBIT k 4294967295", 0},
	})
}

func TestBitCount(t *testing.T) {
	run(t, [][2]any{
		{"SET s foobar", "OK"},
		{"BITCOUNT s", 26},
		{"BITCOUNT s 0 0", 4},
		{"BITCOUNT s 1 1", 6},
		{"BITCOUNT s 1 1 BYTE", 6},
		{"BITCOUNT s 5 30 BIT", 17},
		{"BITCOUNT s 0 -1 bit", 26},
		{"BITCOUNT s -2 -1", 7},
		{"BITCOUNT s -1 -2", 0},
		{"BITCOUNT s 3 1", 0},
		{"BITCOUNT s -100 100", 26},
		{"BITCOUNT s 1 1 BIT", 1},
		{"BITCOUNT s 0 0 BIT", 0},
		{"BITCOUNT s 0", errSyntax},
		{"BITCOUNT s 0 1 xx", errSyntax},
		{"BITCOUNT s a 1", errNotInt},
		{"BITCOUNT s 0 1 BIT x", errSyntax},
		{"BITCOUNT missing a b", 0},
		{"TESTLIST l", "OK"},
		{"BITCOUNT l", wrongType},
		{"SET e ", "OK"},
	})
}

func TestBitPos(t *testing.T) {
	run(t, [][2]any{
		{"SETBIT k 20 1", 0},
		{"BITPOS k 1", 20},
		{"BITPOS k 0", 0},
		{"BITPOS k 1 3", -1},
		{"BITPOS k 1 2", 20},
		{"BITPOS k 1 0 -1 BIT", 20},
		{"BITPOS k 1 21 -1 BIT", -1},
		{"BITPOS k 0 20 20 BIT", -1},
		{"BITPOS k 0 20 21 BIT", 21},
		{"BITPOS missing 1", -1},
		{"BITPOS missing 0", 0},
		{"BITPOS missing 1 x", -1},
		{"BITPOS k 2", cmdtest.Error("ERR The bit argument must be 1 or 0.")},
		{"BITPOS k x", errNotInt},
		{"BITPOS k 1 a", errNotInt},
		{"BITPOS k 1 0 -1 xx", errSyntax},
		{"BITPOS k 1 0 -1 BIT x", errSyntax},
		{"SET ones \xff\xff", "OK"},
		{"BITPOS ones 0", 16},
		{"BITPOS ones 0 0", 16},
		{"BITPOS ones 0 0 -1", -1},
		{"BITPOS ones 0 3 -1 BIT", -1},
		{"BITPOS ones 1 -1", 8},
		{"BITPOS ones 1 9 4 BIT", -1},
		{"TESTLIST l", "OK"},
		{"BITPOS l 1", wrongType},
	})
}

func TestBitOp(t *testing.T) {
	run(t, [][2]any{
		{"SET a \x0f\xf0", "OK"},
		{"SET b \xff", "OK"},
		{"BITOP AND d a b", 2},
		{"GET d", "\x0f\x00"},
		{"BITOP OR d a b", 2},
		{"GET d", "\xff\xf0"},
		{"BITOP XOR d a b missing", 2},
		{"GET d", "\xf0\xf0"},
		{"BITOP NOT d a", 2},
		{"GET d", "\xf0\x0f"},
		{"BITOP and d a missing", 2},
		{"GET d", "\x00\x00"},
		{"BITOP NOT d a b", cmdtest.Error("ERR BITOP NOT must be called with a single source key.")},
		{"BITOP NAND d a", errSyntax},
		{"TESTLIST l", "OK"},
		{"BITOP AND d a l", wrongType},
		{"BITOP OR l a", 2},
		{"GET l", "\x0f\xf0"},
		{"BITOP OR d missing other", 0},
		{"EXISTS d", 0},
		{"SET t x", "OK"},
		{"PEXPIRE t 1000", 1},
		{"BITOP OR t a", 2},
		{"PTTL t", -1},
	})
}

func TestBitField(t *testing.T) {
	run(t, [][2]any{
		{"BITFIELD k", a()},
		{"EXISTS k", 0},
		{"BITFIELD k SET u8 0 255 GET u8 0 GET i8 0", a(0, 255, -1)},
		{"BITFIELD k INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 5 GET u4 100", a(1, 3, 7)},
		{"BITFIELD k SET i8 #1 -128 GET i8 8 GET u8 #1", a(0, -128, 128)},
		{"BITFIELD k OVERFLOW FAIL INCRBY i8 8 -1 GET i8 8", a(nil, -128)},
		{"BITFIELD k OVERFLOW WRAP INCRBY i8 8 -1", a(127)},
		{"BITFIELD k OVERFLOW SAT INCRBY i8 8 1000", a(127)},
		{"BITFIELD k OVERFLOW SAT INCRBY i8 8 -1000", a(-128)},
		{"BITFIELD k OVERFLOW WRAP INCRBY u2 0 5 INCRBY i3 0 100 INCRBY u63 0 -1", a(0, -3, 6899514629131599871)},
		{"BITFIELD k INCRBY i64 64 -9223372036854775808 INCRBY i64 64 -1", a(-9223372036737335296, -9223372036737335297)},
		{"BITFIELD k OVERFLOW SAT INCRBY i64 64 1 SET u8 0 -1", a(-9223372036737335296, 191)},
		{"BITFIELD k GET u8 0", a(255)},
		{"BITFIELD f OVERFLOW FAIL SET u8 0 256", a(nil)},
		{"GET f", "\x00"},
		{"BITFIELD f OVERFLOW FAIL SET u8 100 256 GET u8 0", a(nil, 0)},
		{"STRLEN f", 14},
		{"BITFIELD_RO k GET u8 0 GET u4 4", a(255, 15)},
		{"BITFIELD_RO k OVERFLOW SAT GET u8 0", a(255)},
		{"BITFIELD_RO k SET u8 0 1", cmdtest.Error("ERR BITFIELD_RO only supports the GET subcommand")},
		{"BITFIELD_RO k SET u99 0 1", errType},
		{"BITFIELD k GET u64 0", errType},
		{"BITFIELD k GET i65 0", errType},
		{"BITFIELD k GET i0 0", errType},
		{"BITFIELD k GET x8 0", errType},
		{"BITFIELD k GET u8 -1", errOffset},
		{"BITFIELD k GET u8 #-1", errOffset},
		{"BITFIELD k GET u8 #536870912", errOffset},
		{"BITFIELD k GET u8 #536870911", a(0)},
		{"BITFIELD k GET u8", errSyntax},
		{"BITFIELD k FOO u8 0", errSyntax},
		{"BITFIELD k OVERFLOW xx", cmdtest.Error("ERR Invalid OVERFLOW type specified")},
		{"BITFIELD k SET u8 0 x", errNotInt},
		{"TESTLIST l", "OK"},
		{"BITFIELD l", wrongType},
		{"BITFIELD l GET u8 0", wrongType},
		{"BITFIELD l SET u8 0 1", wrongType},
		{"BITFIELD_RO missing GET i8 0", a(0)},
	})
}
