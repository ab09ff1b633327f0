package script

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Log levels of redis.log, Redis's values.
const (
	logDebug = iota
	logVerbose
	logNotice
	logWarning
)

// Replication flags of redis.set_repl, Redis's values.
const (
	replNone  = 0
	replAOF   = 1
	replSlave = 2
	replAll   = 3
)

// redisLib builds the redis table scripts call the server through.
func (s *State) redisLib() *lua.LTable {
	L := s.L
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("call", func(L *lua.LState) int { return s.call(L, true) })
	set("pcall", func(L *lua.LState) int { return s.call(L, false) })
	set("error_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
			L.Push(errorTable(L, "ERR wrong number or type of arguments"))
			return 1
		}
		msg := L.ToString(1)
		if !strings.HasPrefix(msg, "-") {
			msg = "-" + msg
		}
		L.Push(replyError(L, msg))
		return 1
	})
	set("status_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
			L.Push(errorTable(L, "ERR wrong number or type of arguments"))
			return 1
		}
		r := L.NewTable()
		r.RawSetString("ok", L.Get(1))
		L.Push(r)
		return 1
	})
	set("sha1hex", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			raise(L, "wrong number of arguments")
		}
		L.Push(lua.LString(SHA1Hex(L.ToString(1))))
		return 1
	})
	set("log", s.logLine)
	set("acl_check_cmd", s.aclCheck)
	set("setresp", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			raise(L, "redis.setresp() requires one argument.")
		}
		n := L.ToInt(1)
		if n != 2 && n != 3 {
			raise(L, "RESP version must be 2 or 3.")
		}
		s.run.proto = n
		return 0
	})
	set("set_repl", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			// Redis's own words, though it takes one.
			raise(L, "redis.set_repl() requires two arguments.")
		}
		// Accepted and ignored: a script's writes always replicate as
		// the commands' effects.
		if n := L.ToInt(1); n < replNone || n > replAll {
			raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
		}
		return 0
	})
	set("replicate_commands", func(L *lua.LState) int { L.Push(lua.LTrue); return 1 })
	// No script debugger: breakpoint reports it did not stop, debug
	// prints nothing, as Redis outside a debugging session.
	set("breakpoint", func(L *lua.LState) int { L.Push(lua.LFalse); return 1 })
	set("debug", func(L *lua.LState) int { return 0 })
	for name, v := range map[string]int{"LOG_DEBUG": logDebug, "LOG_VERBOSE": logVerbose, "LOG_NOTICE": logNotice,
		"LOG_WARNING": logWarning, "REPL_NONE": replNone, "REPL_AOF": replAOF, "REPL_SLAVE": replSlave,
		"REPL_REPLICA": replSlave, "REPL_ALL": replAll} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(s.version))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(versionNum(s.version)))
	return t
}

// versionNum is Redis's 0x00MMmmpp encoding of "M.m.p".
func versionNum(v string) int {
	n := 0
	parts := strings.SplitN(v, ".", 3)
	for i := 0; i < 3; i++ {
		x := 0
		if i < len(parts) {
			x, _ = strconv.Atoi(parts[i])
		}
		n = n<<8 | (x & 0xff)
	}
	return n
}

// SHA1Hex is the lower-case hex SHA-1 of s, a script's name in the cache.
func SHA1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func (s *State) logLine(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		raise(L, "redis.log() requires two arguments or more.")
	}
	if L.Get(1).Type() != lua.LTNumber {
		raise(L, "First argument must be a number (log level).")
	}
	level := L.ToInt(1)
	if level < logDebug || level > logWarning {
		raise(L, "Invalid debug level.")
	}
	parts := make([]string, 0, n-1)
	for i := 2; i <= n; i++ {
		parts = append(parts, L.ToString(i))
	}
	lv := [...]slog.Level{slog.LevelDebug, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn}[level]
	s.log.Log(context.Background(), lv, strings.Join(parts, " "), "source", "script")
	return 0
}

// args converts the arguments of a redis lib call to a command line,
// raising Redis's error when one is neither a string nor a number.
func (s *State) args(L *lua.LState) [][]byte {
	argv, msg := commandLine(L)
	if msg != "" {
		L.Error(errorTable(L, "ERR "+msg), 0)
	}
	return argv
}

// commandLine is the Lua stack as a command line, or the reason (without
// "ERR ") it is not one: no argument, or one neither a string nor a
// number. Numbers are written as Redis writes them (%.17g).
func commandLine(L *lua.LState) ([][]byte, string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	argv := make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			argv[i-1] = []byte(v)
		case lua.LNumber:
			argv[i-1] = []byte(formatG(float64(v), 17))
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
	}
	return argv, ""
}

// aclCheck is redis.acl_check_cmd.
func (s *State) aclCheck(L *lua.LState) int {
	argv := s.args(L)
	var ac ACLChecker
	if s.run != nil {
		ac, _ = s.run.bridge.(ACLChecker)
	}
	if ac == nil {
		raise(L, "redis.acl_check_cmd can only be called inside a script invocation")
	}
	allowed, known := ac.CheckACL(argv)
	if !known {
		raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(allowed))
	return 1
}

// call is redis.call (raise) and redis.pcall: the arguments become a
// command the bridge runs, its reply a Lua value; an error reply is
// raised or returned as an error table.
func (s *State) call(L *lua.LState, raiseErr bool) int {
	fail := func(msg string) int {
		t := errorTable(L, "ERR "+msg)
		if raiseErr {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	argv, msg := commandLine(L)
	if msg != "" {
		return fail(msg)
	}
	if s.run == nil || s.run.bridge == nil {
		return fail("This Redis command is not allowed from script")
	}
	reply := s.run.bridge.Call(argv, s.run.proto)
	v, _, isErr := parseReply(L, reply, s.run.proto)
	if isErr && raiseErr {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// formatG formats f as C's printf("%.<prec>g").
func formatG(f float64, prec int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f) && math.Signbit(f):
		// C's printf shows the sign of a NaN: 0/0 is "-nan" on x86.
		return "-nan"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}
