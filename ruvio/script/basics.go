package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// openBasics makes the base functions where gopher-lua differs from the
// Lua 5.1 Redis embeds answer as Redis's do: pcall, error, tonumber and
// math.huge.
func (s *State) openBasics(g *lua.LTable) {
	L := s.L
	origPcall := g.RawGetString("pcall").(*lua.LFunction)
	g.RawSetString("pcall", L.NewFunction(func(L *lua.LState) int {
		// Redis 7 replaces pcall: an error raised as a Redis error table
		// (redis.call's) is caught as its err string.
		results := passOn(L, origPcall, lua.MultRet)
		n := L.GetTop() - results
		if results >= 2 && L.Get(n+1) == lua.LFalse {
			if t, ok := L.Get(n + 2).(*lua.LTable); ok {
				if e, ok := t.RawGetString("err").(lua.LString); ok {
					L.Replace(n+2, e)
				}
			}
		}
		return results
	}))
	g.RawSetString("error", L.NewFunction(func(L *lua.LState) int {
		// Lua 5.1's error: a string or a number gets the position of the
		// function level names (1, the caller, by default; none at 0 or
		// where that function is not Lua's).
		msg := L.Get(1)
		level := L.OptInt(2, 1)
		switch v := msg.(type) {
		case lua.LString, lua.LNumber:
			if level > 0 {
				text := string(lua.LVAsString(v))
				if n, ok := v.(lua.LNumber); ok {
					text = formatG(float64(n), 14)
				}
				msg = lua.LString(where51(L, level) + text)
			}
		}
		L.Error(msg, 0)
		return 0
	}))
	origTonumber := g.RawGetString("tonumber").(*lua.LFunction)
	g.RawSetString("tonumber", L.NewFunction(func(L *lua.LState) int {
		// Base 10 reads a string as C's strtod does, as Lua 5.1 does:
		// "inf", "nan", hexadecimal, and magnitudes beyond a double's
		// (as infinity) included.
		if str, ok := L.Get(1).(lua.LString); ok && (L.GetTop() < 2 || L.Get(2) == lua.LNil || L.Get(2) == lua.LNumber(10)) {
			if f, ok := strtod(string(str)); ok {
				L.Push(lua.LNumber(f))
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}
		return passOn(L, origTonumber, 1)
	}))
	// gopher-lua's math.huge is the largest double, not infinity.
	g.RawGetString("math").(*lua.LTable).RawSetString("huge", lua.LNumber(math.Inf(1)))
}

// passOn calls fn with the running Go function's arguments, leaving its
// nret results (lua.MultRet: all) above them, and returns how many.
func passOn(L *lua.LState, fn *lua.LFunction, nret int) int {
	n := L.GetTop()
	L.Push(fn)
	for i := 1; i <= n; i++ {
		L.Push(L.Get(i))
	}
	L.Call(n, nret)
	return L.GetTop() - n
}

// where51 is Lua 5.1's luaL_where: "chunk:line: " of the function at
// level (1: the caller of the running Go function), or "" when that is
// not a Lua function.
func where51(L *lua.LState, level int) string {
	d, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", d, lua.LNil); err != nil || d.What == "G" || d.CurrentLine <= 0 {
		return ""
	}
	return d.Source + ":" + strconv.Itoa(d.CurrentLine) + ": "
}

// strtod reads s as Lua 5.1's lua_str2number does, through C's strtod:
// spaces around the number, decimal or hexadecimal, "inf", "infinity"
// and "nan" in any case; a magnitude beyond a double's is infinity.
func strtod(s string) (float64, bool) {
	f, _, ok := sortedset.ParseCFloat(strings.Trim(s, " \t\n\v\f\r"))
	return f, ok
}
