package script

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// Conversions between RESP replies and Lua values, by Redis's table
// ("Lua to RESP2/RESP3 type conversion"). Both directions are here so the
// round trip is visible in one place.

// parseReply turns one RESP reply into the Lua value redis.call returns:
// integer -> number, bulk -> string, status -> {ok=}, error -> {err=},
// array -> table, the null bulk and null array -> false; and after
// redis.setresp(3): null -> nil, booleans, map -> {map=}, set -> {set=},
// double -> {double=}, big number -> {big_number=}, verbatim ->
// {verbatim_string={format=, string=}}. isErr reports an error reply.
func parseReply(L *lua.LState, b []byte, proto int) (v lua.LValue, rest []byte, isErr bool) {
	if len(b) == 0 {
		return lua.LFalse, nil, false
	}
	line, body := cutLine(b[1:])
	switch b[0] {
	case '+':
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(line))
		return t, body, false
	case '-':
		return commandError(L, "-"+string(line)), body, true
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		return lua.LNumber(n), body, false
	case '$', '=':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, body, false
		}
		if n > len(body) {
			n = len(body)
		}
		s, rest := body[:n], body[min(n+2, len(body)):]
		if b[0] == '=' && len(s) >= 4 {
			vt := L.NewTable()
			vt.RawSetString("format", lua.LString(s[:3]))
			vt.RawSetString("string", lua.LString(s[4:]))
			t := L.NewTable()
			t.RawSetString("verbatim_string", vt)
			return t, rest, false
		}
		return lua.LString(s), rest, false
	case '*', '>', '~':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, body, false
		}
		t := L.CreateTable(n, 0)
		var e lua.LValue
		for i := 1; i <= n; i++ {
			e, body, _ = parseReply(L, body, proto)
			if b[0] == '~' {
				t.RawSet(e, lua.LTrue)
			} else {
				t.RawSetInt(i, e)
			}
		}
		if b[0] == '~' {
			w := L.NewTable()
			w.RawSetString("set", t)
			return w, body, false
		}
		return t, body, false
	case '%', '|':
		n, _ := strconv.Atoi(string(line))
		t := L.NewTable()
		var k, e lua.LValue
		for i := 0; i < n; i++ {
			k, body, _ = parseReply(L, body, proto)
			e, body, _ = parseReply(L, body, proto)
			if k != lua.LNil {
				t.RawSet(k, e)
			}
		}
		if b[0] == '|' {
			// Attributes are side information: the reply follows.
			return parseReply(L, body, proto)
		}
		w := L.NewTable()
		w.RawSetString("map", t)
		return w, body, false
	case '_':
		return lua.LNil, body, false
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), body, false
	case ',':
		f, _ := strconv.ParseFloat(string(line), 64)
		t := L.NewTable()
		t.RawSetString("double", lua.LNumber(f))
		return t, body, false
	case '(':
		t := L.NewTable()
		t.RawSetString("big_number", lua.LString(line))
		return t, body, false
	}
	return lua.LFalse, nil, false
}

func cutLine(b []byte) (line, rest []byte) {
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i+2:]
}

// reply writes a script's result v to the caller: string -> bulk, number
// -> integer (truncated), true -> 1, false -> null, {err=} -> error,
// {ok=} -> status, a table -> array of its elements up to the first nil;
// the RESP3 forms ({map=}, {set=}, {double=}, {big_number=},
// {verbatim_string=}) too. sproto is the script's redis.setresp: with 3,
// booleans are written as booleans, as Redis does.
func (s *State) reply(w *resp.Writer, v lua.LValue, sproto int, depth int) {
	if depth >= maxReplyDepth {
		// A table that holds itself, or nests deeper than Redis's Lua
		// stack reaches: the reply so far stays well formed, ending in
		// the error where Redis's does.
		w.Error("ERR reached lua stack limit")
		return
	}
	switch x := v.(type) {
	case lua.LString:
		w.Bulk([]byte(x))
	case lua.LBool:
		switch {
		case sproto == 3:
			w.Bool(bool(x))
		case bool(x):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(luaToInt(float64(x)))
	case *lua.LTable:
		s.replyTable(w, x, sproto, depth)
	default:
		w.Null()
	}
}

// maxReplyDepth is how deep a script's reply may nest: Redis's converter
// runs out of Lua stack (LUAI_MAXCSTACK, 8000 slots) after 7995 nested
// tables and answers an error in their place.
const maxReplyDepth = 7995

func (s *State) replyTable(w *resp.Writer, t *lua.LTable, sproto, depth int) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		writeError(w, cString(string(e)), counted(t))
		return
	}
	if st, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Simple(noNewlines(cString(string(st))))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		writeDouble(w, float64(d))
		return
	}
	if bn, ok := t.RawGetString("big_number").(lua.LString); ok {
		n := noNewlines(string(bn))
		if w.Proto >= 3 {
			w.Raw([]byte("(" + n + "\r\n"))
		} else {
			w.BulkString(n)
		}
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, fok := vt.RawGetString("format").(lua.LString)
		str, sok := vt.RawGetString("string").(lua.LString)
		if fok && sok {
			if w.Proto >= 3 {
				body := string(f) + ":" + string(str)
				w.Raw([]byte("=" + strconv.Itoa(len(body)) + "\r\n" + body + "\r\n"))
			} else {
				w.BulkString(string(str))
			}
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		var kv []lua.LValue
		inOrder(m, func(k, v lua.LValue) { kv = append(kv, k, v) })
		w.Map(len(kv) / 2)
		for _, e := range kv {
			s.reply(w, e, sproto, depth+1)
		}
		return
	}
	if set, ok := t.RawGetString("set").(*lua.LTable); ok {
		var ks []lua.LValue
		inOrder(set, func(k, _ lua.LValue) { ks = append(ks, k) })
		w.Set(len(ks))
		for _, k := range ks {
			s.reply(w, k, sproto, depth+1)
		}
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		s.reply(w, t.RawGetInt(i), sproto, depth+1)
	}
}

// writeDouble writes a double as Redis 7.0 does: %.17g, a bulk string in
// RESP2.
func writeDouble(w *resp.Writer, f float64) {
	txt := formatG(f, 17)
	if w.Proto >= 3 {
		w.Raw([]byte("," + txt + "\r\n"))
		return
	}
	w.BulkString(txt)
}

// luaToInt converts a Lua number to an integer reply as C's cast does
// for values in range: toward zero.
func luaToInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return math.MinInt64
	case f >= math.MaxInt64:
		return math.MinInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// inOrder calls fn for each pair of t in the order pairs() visits them,
// the same every time: gopher-lua's ForEach walks Go maps, whose order
// changes from one walk to the next, so a script's map and set replies,
// cjson and cmsgpack came out in a different order each run.
func inOrder(t *lua.LTable, fn func(k, v lua.LValue)) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		fn(k, v)
	}
}

// cString is s up to its first NUL byte: Redis hands a script's status
// and error replies on as C strings.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

func noNewlines(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	}
	return s
}
