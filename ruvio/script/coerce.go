package script

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 turns a string holding a number into that number wherever a
// library function takes an integer (luaL_checkinteger reads it with
// lua_tonumber), so a script may pass ARGV's strings straight on:
// string.sub(s, ARGV[1]), unpack(t, 1, ARGV[2]), math.random(ARGV[1]).
// gopher-lua's CheckInt and OptInt take numbers only. openCoercion wraps
// the functions that read integers so, turning such arguments into
// numbers first; an argument that is no number is left for the function
// to refuse in its own words.

// intArgs are the argument positions a function reads as integers.
// From, when set, adds every position from it on (string.char's bytes);
// MinTop, when set, applies the positions only to a call with at least
// that many arguments (table.insert's position comes before a value only
// when there are three).
type intArgs struct {
	at     []int
	from   int
	minTop int
}

// coerced lists, per library table ("" for the globals), the functions
// and the positions they read as integers.
var coerced = map[string]map[string]intArgs{
	"": {
		"unpack": {at: []int{2, 3}}, "select": {at: []int{1}}, "tonumber": {at: []int{2}},
		"error": {at: []int{2}},
	},
	"string": {
		"sub": {at: []int{2, 3}}, "byte": {at: []int{2, 3}}, "char": {from: 1}, "find": {at: []int{3}},
		"match": {at: []int{3}}, "gsub": {at: []int{4}},
	},
	"table": {
		"concat": {at: []int{3, 4}}, "remove": {at: []int{2}}, "insert": {at: []int{2}, minTop: 3},
	},
	"math": {
		"random": {at: []int{1, 2}}, "randomseed": {at: []int{1}}, "ldexp": {at: []int{2}},
	},
}

// openCoercion wraps the functions coerced lists, in g and its library
// tables, once every library is in place.
func (s *State) openCoercion(g *lua.LTable) {
	for lib, fns := range coerced {
		t := g
		if lib != "" {
			var ok bool
			if t, ok = g.RawGetString(lib).(*lua.LTable); !ok {
				continue
			}
		}
		for name, args := range fns {
			fn, ok := t.RawGetString(name).(*lua.LFunction)
			if !ok || !fn.IsG {
				continue
			}
			orig := fn.GFunction
			t.RawSetString(name, s.L.NewFunction(func(L *lua.LState) int {
				args.apply(L)
				return orig(L)
			}))
		}
	}
}

// apply replaces the call's string arguments at a's positions that hold
// numbers by those numbers.
func (a intArgs) apply(L *lua.LState) {
	top := L.GetTop()
	if top < a.minTop {
		return
	}
	for _, i := range a.at {
		toNumber(L, i, top)
	}
	if a.from > 0 {
		for i := a.from; i <= top; i++ {
			toNumber(L, i, top)
		}
	}
}

func toNumber(L *lua.LState, i, top int) {
	if i > top {
		return
	}
	if s, ok := L.Get(i).(lua.LString); ok {
		if n, ok := luaNumber(string(s)); ok {
			L.Replace(i, lua.LNumber(n))
		}
	}
}

// luaNumber reads s as Lua 5.1's lua_tonumber does (strtod, then a
// hexadecimal integer): a number with spaces around it.
func luaNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	body, neg := s, false
	if len(body) > 0 && (body[0] == '-' || body[0] == '+') {
		body, neg = body[1:], body[0] == '-'
	}
	if len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		if n, err := strconv.ParseUint(body[2:], 16, 64); err == nil {
			if neg {
				return -float64(n), true
			}
			return float64(n), true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
