package script

import (
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// KilledError is the error a script stopped by SCRIPT KILL fails with.
const KilledError = "ERR Script killed by user with SCRIPT KILL..."

// chunkName is what Lua calls the script in positions ("user_script:1:");
// errors name its source "@user_script" as Redis does.
const (
	chunkName  = "user_script"
	sourceName = "@user_script"
)

// errorTable is Redis's error object: {err="CODE message"}.
func errorTable(L *lua.LState, msg string) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("err", lua.LString(msg))
	return t
}

// replyError is the error table a Redis error reply, or a message for
// one, becomes: "-CODE msg" keeps its code, a bare message gets ERR, and
// a trailing newline goes, as Redis builds them.
func replyError(L *lua.LState, s string) *lua.LTable {
	return errorTable(L, errorText(s))
}

// countedField marks the error table of a command's error reply, which
// INFO counted when the command answered it: the script's reply passing
// it on is not counted again. Redis's tables carry the same field, which
// a script can see.
const countedField = "ignore_error_stats_update"

// commandError is the error table of a command's error reply.
func commandError(L *lua.LState, s string) *lua.LTable {
	t := replyError(L, s)
	t.RawSetString(countedField, lua.LTrue)
	return t
}

// counted reports whether error table t came from a command's reply.
func counted(t *lua.LTable) bool {
	return lua.LVAsBool(t.RawGetString(countedField))
}

// writeError writes a script's error reply, uncounted when its error was
// counted where it arose.
func writeError(out *resp.Writer, msg string, wasCounted bool) {
	if wasCounted {
		out.ErrorCounted(msg)
	} else {
		out.Error(msg)
	}
}

func errorText(s string) string {
	code, msg := "ERR", s
	if strings.HasPrefix(s, "-") {
		if sp := strings.IndexByte(s, ' '); sp < 0 {
			msg = s[1:]
		} else {
			code, msg = s[1:sp], s[sp+1:]
		}
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// raise fails the running script with Redis's error table for msg (its
// API's own errors, which carry no Lua position).
func raise(L *lua.LState, msg string) {
	L.Error(errorTable(L, "ERR "+msg), 0)
}

// errorHandler runs where an error was raised: it turns the error into a
// table and notes the script line it happened on, for the reply.
func (s *State) errorHandler(L *lua.LState) int {
	ev := L.Get(1)
	t, ok := ev.(*lua.LTable)
	if !ok {
		t = errorTable(L, "ERR "+luaWording(lua.LVAsString(L.ToStringMeta(ev))))
	}
	if s.run != nil && s.run.killed != nil && s.run.killed() {
		t = errorTable(L, KilledError)
	}
	for level := 0; ; level++ {
		d, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", d, lua.LNil); err != nil || d.What == "G" || d.CurrentLine < 0 {
			continue
		}
		t.RawSetString("source", lua.LString(sourceName))
		t.RawSetString("line", lua.LNumber(d.CurrentLine))
		break
	}
	L.Push(t)
	return 1
}

var (
	badArgument = regexp.MustCompile(`bad argument #(\d+) to ([\w.]+) \(`)
	badOperands = regexp.MustCompile(`cannot perform (\w+) operation between (\w+) and (\w+)`)
)

// luaWording rewrites the gopher-lua runtime errors whose Lua 5.1 text
// can be told from them: the function named in a bad argument is quoted,
// and an operation on a wrong type says what Lua says. Lua's messages
// that name the variable involved ("local 'a'") cannot be rebuilt and
// stay gopher-lua's.
func luaWording(msg string) string {
	msg = badArgument.ReplaceAllString(msg, "bad argument #$1 to '$2' (")
	return badOperands.ReplaceAllStringFunc(msg, func(m string) string {
		p := badOperands.FindStringSubmatch(m)
		bad := p[2]
		if p[1] == "concat" {
			if bad == "string" || bad == "number" {
				bad = p[3]
			}
			return "attempt to concatenate a " + bad + " value"
		}
		if bad == "number" {
			bad = p[3]
		}
		return "attempt to perform arithmetic on a " + bad + " value"
	})
}

// errorReply is the reply of a script that failed with ev: the error's
// text and, when known, where it happened; wasCounted says the error is
// a command's, counted already.
func errorReply(ev lua.LValue, sha string) (msg string, wasCounted bool) {
	t, ok := ev.(*lua.LTable)
	if !ok {
		// The handler could not run (the call stack was full): the
		// error as raised.
		msg := ev.String()
		if strings.HasSuffix(msg, "callstack overflow") {
			msg = "stack overflow"
		}
		return "ERR " + clip(firstLine(msg), 200), false
	}
	msg = "ERR unknown error"
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		msg = string(e)
	}
	src, line := t.RawGetString("source"), t.RawGetString("line")
	if src != lua.LNil && line != lua.LNil {
		msg += " script: " + sha + ", on " + src.String() + ":" + lineText(line) + "."
	}
	return msg, counted(t)
}

func lineText(v lua.LValue) string {
	if n, ok := v.(lua.LNumber); ok {
		return strconv.FormatInt(int64(n), 10)
	}
	return v.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
