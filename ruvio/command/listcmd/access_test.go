package listcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestRangeIndexSet(t *testing.T) {
	notInt := e(command.ErrNotInteger)
	runSteps(t, cmdtest.Steps{
		s("RPUSH", "l", "a", "b", "c", "b", "d", 5),
		s("LRANGE", "l", "0", "-1", arr("a", "b", "c", "b", "d")),
		s("LRANGE", "l", "1", "2", arr("b", "c")),
		s("LRANGE", "l", "-2", "-1", arr("b", "d")),
		s("LRANGE", "l", "-100", "100", arr("a", "b", "c", "b", "d")),
		s("LRANGE", "l", "3", "1", arr()),
		s("LRANGE", "l", "5", "10", arr()),
		s("LRANGE", "l", "0", "-6", arr()),
		s("LRANGE", "l", "x", "1", notInt),
		s("LRANGE", "l", "0", "1.5", notInt),
		s("LRANGE", "nope", "0", "-1", arr()),
		s("LRANGE", "nope", "x", "1", notInt),
		s("LINDEX", "l", "0", "a"),
		s("LINDEX", "l", "-1", "d"),
		s("LINDEX", "l", "5", nil),
		s("LINDEX", "l", "-6", nil),
		s("LINDEX", "l", "x", notInt),
		s("LINDEX", "nope", "x", nil),
		s("LSET", "l", "1", "B", "OK"),
		s("LSET", "l", "-1", "D", "OK"),
		s("LSET", "l", "5", "x", e(command.ErrIndexOutOfRange)),
		s("LSET", "l", "-6", "x", e(command.ErrIndexOutOfRange)),
		s("LSET", "nope", "0", "x", e(command.ErrNoSuchKey)),
		s("LSET", "l", "x", "y", notInt),
		s("LSET", "nope", "x", "y", e(command.ErrNoSuchKey)),
		s("LRANGE", "l", "0", "-1", arr("a", "B", "c", "b", "D")),
		s("SET", "str", "v", "OK"),
		s("LRANGE", "str", "0", "-1", errWrongType),
		s("LRANGE", "str", "x", "1", notInt),
		s("LINDEX", "str", "0", errWrongType),
		s("LINDEX", "str", "x", errWrongType),
		s("LSET", "str", "0", "x", errWrongType),
	})
}

func TestInsertRemTrim(t *testing.T) {
	notInt := e(command.ErrNotInteger)
	runSteps(t, cmdtest.Steps{
		s("RPUSH", "l", "a", "b", "c", 3),
		s("LINSERT", "l", "BEFORE", "b", "X", 4),
		s("LINSERT", "l", "after", "c", "E", 5),
		s("LINSERT", "l", "After", "a", "Y", 6),
		s("LINSERT", "l", "before", "a", "0", 7),
		s("LINSERT", "l", "after", "nothere", "E", -1),
		s("LINSERT", "nope", "after", "a", "b", 0),
		s("LINSERT", "l", "middle", "a", "b", e(command.ErrSyntax)),
		s("LINSERT", "nope", "middle", "a", "b", e(command.ErrSyntax)),
		s("LRANGE", "l", "0", "-1", arr("0", "a", "Y", "X", "b", "c", "E")),

		s("RPUSH", "r", "x", "a", "x", "b", "x", "c", "x", 7),
		s("LREM", "r", "2", "x", 2),
		s("LRANGE", "r", "0", "-1", arr("a", "b", "x", "c", "x")),
		s("LREM", "r", "-1", "x", 1),
		s("LRANGE", "r", "0", "-1", arr("a", "b", "x", "c")),
		s("LREM", "r", "0", "x", 1),
		s("LREM", "r", "0", "zz", 0),
		s("LREM", "r", "y", "x", notInt),
		s("LREM", "nope", "1", "x", 0),
		s("LRANGE", "r", "0", "-1", arr("a", "b", "c")),
		s("LREM", "r", "0", "a", 1),
		s("LREM", "r", "-5", "b", 1),
		s("LREM", "r", "5", "c", 1),
		s("LLEN", "r", 0),

		s("RPUSH", "t", "0", "1", "2", "3", "4", "5", 6),
		s("LTRIM", "t", "1", "-2", "OK"),
		s("LRANGE", "t", "0", "-1", arr("1", "2", "3", "4")),
		s("LTRIM", "t", "0", "100", "OK"),
		s("LTRIM", "t", "-2", "-1", "OK"),
		s("LRANGE", "t", "0", "-1", arr("3", "4")),
		s("LTRIM", "t", "x", "1", notInt),
		s("LTRIM", "t", "0", "y", notInt),
		s("LTRIM", "nope", "0", "1", "OK"),
		s("LTRIM", "t", "5", "1", "OK"),
		s("LLEN", "t", 0),

		s("SET", "str", "v", "OK"),
		s("LINSERT", "str", "before", "a", "b", errWrongType),
		s("LREM", "str", "0", "a", errWrongType),
		s("LREM", "str", "x", "a", notInt),
		s("LTRIM", "str", "0", "1", errWrongType),
		s("LTRIM", "str", "0", "x", notInt),
	})
}

func TestLpos(t *testing.T) {
	const rankZero = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	runSteps(t, cmdtest.Steps{
		// Positions: a0 b1 c2 1:3 2:4 3:5 c6 c7.
		s("RPUSH", "p", "a", "b", "c", "1", "2", "3", "c", "c", 8),
		s("LPOS", "p", "c", 2),
		s("LPOS", "p", "c", "RANK", "2", 6),
		s("LPOS", "p", "c", "rank", "-1", 7),
		s("LPOS", "p", "c", "RANK", "-3", 2),
		s("LPOS", "p", "c", "RANK", "4", nil),
		s("LPOS", "p", "c", "RANK", "-4", nil),
		s("LPOS", "p", "c", "COUNT", "2", arr(2, 6)),
		s("LPOS", "p", "c", "COUNT", "0", arr(2, 6, 7)),
		s("LPOS", "p", "c", "RANK", "2", "COUNT", "0", arr(6, 7)),
		s("LPOS", "p", "c", "RANK", "-1", "COUNT", "2", arr(7, 6)),
		s("LPOS", "p", "c", "RANK", "5", "COUNT", "0", arr()),
		s("LPOS", "p", "c", "MAXLEN", "2", nil),
		s("LPOS", "p", "c", "MAXLEN", "3", 2),
		s("LPOS", "p", "c", "RANK", "-1", "MAXLEN", "1", 7),
		s("LPOS", "p", "c", "COUNT", "0", "MAXLEN", "7", arr(2, 6)),
		s("LPOS", "p", "c", "MAXLEN", "0", "COUNT", "1", "RANK", "3", arr(7)),
		s("LPOS", "p", "z", nil),
		s("LPOS", "p", "z", "COUNT", "0", arr()),
		s("LPOS", "nope", "c", nil),
		s("LPOS", "nope", "c", "COUNT", "1", arr()),
		s("LPOS", "p", "c", "RANK", "0", e(rankZero)),
		s("LPOS", "p", "c", "RANK", "x", e(command.ErrNotInteger)),
		s("LPOS", "p", "c", "RANK", "-9223372036854775808",
			e("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")),
		s("LPOS", "p", "c", "RANK", "-9223372036854775807", nil),
		s("LPOS", "p", "c", "COUNT", "-1", e("ERR COUNT can't be negative")),
		s("LPOS", "p", "c", "COUNT", "x", e("ERR COUNT can't be negative")),
		s("LPOS", "p", "c", "MAXLEN", "-1", e("ERR MAXLEN can't be negative")),
		s("LPOS", "p", "c", "RANK", e(command.ErrSyntax)),
		s("LPOS", "p", "c", "FOO", "1", e(command.ErrSyntax)),
		s("SET", "str", "v", "OK"),
		s("LPOS", "str", "c", errWrongType),
		s("LPOS", "str", "c", "RANK", "0", e(rankZero)),
		s("LPOS", "nope", "c", "RANK", "0", e(rankZero)),
	})
}

func TestMove(t *testing.T) {
	runSteps(t, cmdtest.Steps{
		s("RPUSH", "src", "a", "b", "c", 3),
		s("LMOVE", "src", "dst", "LEFT", "RIGHT", "a"),
		s("LMOVE", "src", "dst", "right", "left", "c"),
		s("LRANGE", "dst", "0", "-1", arr("c", "a")),
		s("RPOPLPUSH", "src", "dst", "b"),
		s("LLEN", "src", 0),
		s("LRANGE", "dst", "0", "-1", arr("b", "c", "a")),
		s("LMOVE", "src", "dst", "LEFT", "LEFT", nil),
		s("RPOPLPUSH", "src", "dst", nil),
		// The same list as source and destination rotates.
		s("LMOVE", "dst", "dst", "LEFT", "RIGHT", "b"),
		s("LRANGE", "dst", "0", "-1", arr("c", "a", "b")),
		s("RPOPLPUSH", "dst", "dst", "b"),
		s("LRANGE", "dst", "0", "-1", arr("b", "c", "a")),
		s("RPUSH", "one", "x", 1),
		s("LMOVE", "one", "one", "LEFT", "RIGHT", "x"),
		s("LRANGE", "one", "0", "-1", arr("x")),
		s("LMOVE", "src", "dst", "UP", "LEFT", e(command.ErrSyntax)),
		s("LMOVE", "src", "dst", "LEFT", "DOWN", e(command.ErrSyntax)),
		s("SET", "str", "v", "OK"),
		s("LMOVE", "dst", "str", "LEFT", "LEFT", errWrongType),
		s("LMOVE", "str", "dst", "LEFT", "LEFT", errWrongType),
		s("LMOVE", "nope", "str", "LEFT", "LEFT", nil),
		s("RPOPLPUSH", "dst", "str", errWrongType),
		s("LRANGE", "dst", "0", "-1", arr("b", "c", "a")),
	})
}

// TestNullKinds checks the wire form of nulls: a null bulk string where
// Redis sends one, a null array where it sends that, and RESP3's null.
func TestNullKinds(t *testing.T) {
	h := newHarness(t, 2)
	h.Do("RPUSH", "l", "a")
	cases := []struct {
		args  []string
		resp2 string
		resp3 string
	}{
		{[]string{"LPOP", "nope"}, "$-1\r\n", "_\r\n"},
		{[]string{"LPOP", "nope", "1"}, "*-1\r\n", "_\r\n"},
		{[]string{"RPOP", "nope", "0"}, "*-1\r\n", "_\r\n"},
		{[]string{"LPOP", "l", "0"}, "*0\r\n", "*0\r\n"},
		{[]string{"LINDEX", "l", "3"}, "$-1\r\n", "_\r\n"},
		{[]string{"LPOS", "l", "z"}, "$-1\r\n", "_\r\n"},
		{[]string{"LMOVE", "nope", "l", "LEFT", "LEFT"}, "$-1\r\n", "_\r\n"},
		{[]string{"RPOPLPUSH", "nope", "l"}, "$-1\r\n", "_\r\n"},
	}
	for _, c := range cases {
		for proto, want := range map[int]string{2: c.resp2, 3: c.resp3} {
			h.Proto = proto
			if got, _ := h.Raw(false, c.args...); got != want {
				t.Errorf("RESP%d %q = %q, want %q", proto, c.args, got, want)
			}
		}
	}
}
