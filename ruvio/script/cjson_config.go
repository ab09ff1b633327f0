package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// lua-cjson's configuration functions, with its defaults and its
// argument checks. Each Lua state has its own settings, as each
// lua-cjson module instance does; Redis runs every script in one state,
// so there a setting a script leaves stays for the next, while ruvio
// runs scripts in several states: a script that changes a setting should
// restore it, as Redis's own tests do.

// What encode_invalid_numbers may be set to.
const (
	invalidOff  = 0
	invalidOn   = 1
	invalidNull = 2
)

type cjsonConfig struct {
	encodeMaxDepth, decodeMaxDepth int
	precision                      int
	keepBuffer                     bool
	encodeInvalid                  int
	decodeInvalid                  bool
	sparseConvert                  bool
	sparseRatio, sparseSafe        int
}

func defaultCJSON() *cjsonConfig {
	return &cjsonConfig{encodeMaxDepth: 1000, decodeMaxDepth: 1000, precision: 14, keepBuffer: true,
		decodeInvalid: true, sparseRatio: 2, sparseSafe: 10}
}

// register adds the configuration functions to the cjson table t.
func (cfg *cjsonConfig) register(L *lua.LState, t *lua.LTable) {
	fn := func(name string, args int, f func(L *lua.LState) int) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() > args {
				argError(L, args+1, name, "found too many arguments")
			}
			return f(L)
		}))
	}
	ints := func(name string, setting *int, lo, hi int) {
		fn(name, 1, func(L *lua.LState) int { return pushInts(L, intOption(L, 1, name, setting, lo, hi)) })
	}
	bools := func(name string, setting *bool) {
		fn(name, 1, func(L *lua.LState) int { L.Push(lua.LBool(boolOption(L, 1, name, setting))); return 1 })
	}
	ints("encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
	ints("decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
	ints("encode_number_precision", &cfg.precision, 1, 14)
	bools("encode_keep_buffer", &cfg.keepBuffer)
	bools("decode_invalid_numbers", &cfg.decodeInvalid)
	fn("encode_invalid_numbers", 1, func(L *lua.LState) int {
		names := []string{"off", "on", "null"}
		switch v := L.Get(1).(type) {
		case *lua.LNilType:
		case lua.LBool:
			cfg.encodeInvalid = invalidOff
			if v {
				cfg.encodeInvalid = invalidOn
			}
		default:
			cfg.encodeInvalid = checkOption(L, 1, "encode_invalid_numbers", names)
		}
		if cfg.encodeInvalid == invalidNull {
			L.Push(lua.LString("null"))
		} else {
			L.Push(lua.LBool(cfg.encodeInvalid == invalidOn))
		}
		return 1
	})
	fn("encode_sparse_array", 3, func(L *lua.LState) int {
		convert := boolOption(L, 1, "encode_sparse_array", &cfg.sparseConvert)
		ratio := intOption(L, 2, "encode_sparse_array", &cfg.sparseRatio, 0, math.MaxInt32)
		safe := intOption(L, 3, "encode_sparse_array", &cfg.sparseSafe, 0, math.MaxInt32)
		L.Push(lua.LBool(convert))
		return 1 + pushInts(L, ratio, safe)
	})
}

func pushInts(L *lua.LState, ns ...int) int {
	for _, n := range ns {
		L.Push(lua.LNumber(n))
	}
	return len(ns)
}

// intOption is lua-cjson's json_integer_option: a nil argument leaves
// the setting; the setting is returned.
func intOption(L *lua.LState, i int, fn string, setting *int, lo, hi int) int {
	if v := L.Get(i); v != lua.LNil {
		n, ok := v.(lua.LNumber)
		if !ok {
			if s, isStr := v.(lua.LString); isStr {
				f, err := strconv.ParseFloat(strings.TrimSpace(string(s)), 64)
				n, ok = lua.LNumber(f), err == nil
			}
		}
		if !ok {
			argError(L, i, fn, "number expected, got "+typeName(L, i))
		}
		// luaL_checkinteger truncates toward zero.
		val := int(float64(n))
		if val < lo || val > hi {
			argError(L, 1, fn, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
		}
		*setting = val
	}
	return *setting
}

// boolOption is lua-cjson's json_enum_option for on/off settings: a
// boolean, "on" or "off"; the setting is returned.
func boolOption(L *lua.LState, i int, fn string, setting *bool) bool {
	switch v := L.Get(i).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*setting = bool(v)
	default:
		*setting = checkOption(L, i, fn, []string{"off", "on"}) == 1
	}
	return *setting
}

// checkOption is luaL_checkoption: the argument must name one of names.
func checkOption(L *lua.LState, i int, fn string, names []string) int {
	s := checkString(L, i, fn)
	for k, n := range names {
		if n == s {
			return k
		}
	}
	argError(L, i, fn, "invalid option '"+s+"'")
	return 0
}
