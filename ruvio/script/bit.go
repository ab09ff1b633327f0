package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The bit library (LuaBitOp's API, which Redis ships): operations on
// numbers taken as 32-bit integers, results signed.

func init() { libraries["bit"] = openBit }

func openBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	fold := func(name string, op func(a, b int32) int32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			r := toBit(L, 1, name)
			for i := 2; i <= L.GetTop(); i++ {
				r = op(r, toBit(L, i, name))
			}
			L.Push(lua.LNumber(r))
			return 1
		}))
	}
	fold("band", func(a, b int32) int32 { return a & b })
	fold("bor", func(a, b int32) int32 { return a | b })
	fold("bxor", func(a, b int32) int32 { return a ^ b })
	unary := func(name string, op func(a int32) int32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(op(toBit(L, 1, name))))
			return 1
		}))
	}
	unary("tobit", func(a int32) int32 { return a })
	unary("bnot", func(a int32) int32 { return ^a })
	unary("bswap", func(a int32) int32 {
		u := uint32(a)
		return int32(u>>24 | (u>>8)&0xff00 | (u&0xff00)<<8 | u<<24)
	})
	shift := func(name string, op func(a uint32, n uint) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			a, n := toBit(L, 1, name), toBit(L, 2, name)
			L.Push(lua.LNumber(int32(op(uint32(a), uint(n&31)))))
			return 1
		}))
	}
	shift("lshift", func(a uint32, n uint) uint32 { return a << n })
	shift("rshift", func(a uint32, n uint) uint32 { return a >> n })
	shift("arshift", func(a uint32, n uint) uint32 { return uint32(int32(a) >> n) })
	shift("rol", func(a uint32, n uint) uint32 { return a<<n | a>>(32-n) })
	shift("ror", func(a uint32, n uint) uint32 { return a>>n | a<<(32-n) })
	t.RawSetString("tohex", L.NewFunction(func(L *lua.LState) int {
		a := uint32(toBit(L, 1, "tohex"))
		n := int32(8)
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			n = toBit(L, 2, "tohex")
		}
		upper := n < 0
		if upper {
			n = -n
		}
		n = min(n, 8)
		s := strconv.FormatUint(uint64(a), 16)
		if upper {
			s = strings.ToUpper(s)
		}
		s = strings.Repeat("0", 8) + s
		L.Push(lua.LString(s[len(s)-int(n):]))
		return 1
	}))
	return t
}

// toBit reads argument i as LuaBitOp does: a number (or a numeric
// string) rounded to an integer and taken modulo 2^32.
func toBit(L *lua.LState, i int, fn string) int32 {
	f := checkNumber(L, i, fn)
	// LuaBitOp adds 2^52+2^51 and keeps the low 32 bits of the sum's
	// representation: for magnitudes below 2^51, the number rounded half
	// to even and wrapped; beyond, whatever bits the sum's mantissa keeps,
	// which this reproduces bit for bit.
	return int32(uint32(math.Float64bits(f + 6755399441055744.0)))
}

// checkNumber is luaL_checknumber with Lua 5.1's error text.
func checkNumber(L *lua.LState, i int, fn string) float64 {
	v := L.Get(i)
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x)
	case lua.LString:
		if f, ok := luaNumber(string(x)); ok {
			return f
		}
	}
	argError(L, i, fn, "number expected, got "+typeName(L, i))
	return 0
}

// argError raises Lua 5.1's "bad argument" error.
func argError(L *lua.LState, i int, fn, msg string) {
	if !calledFromLua(L) {
		// Lua 5.1 names the function as its caller called it: pcall
		// does not name it.
		fn = "?"
	}
	libError(L, "bad argument #%d to '%s' (%s)", i, fn, msg)
}

// libError fails as a C library function fails in Lua 5.1 (luaL_error):
// the message starts with the position of the Lua code that called the
// function, and has none when another C function (pcall) called it.
func libError(L *lua.LState, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if d, ok := callerFrame(L); ok {
		msg = fmt.Sprintf("%s:%d: %s", d.Source, d.CurrentLine, msg)
	}
	L.Error(lua.LString(msg), 0)
}

// callerFrame is the Lua code that called the running Go function, if
// Lua code did.
func callerFrame(L *lua.LState) (*lua.Debug, bool) {
	d, ok := L.GetStack(1)
	if !ok {
		return nil, false
	}
	if _, err := L.GetInfo("Sl", d, lua.LNil); err != nil || d.What == "G" || d.CurrentLine <= 0 {
		return nil, false
	}
	return d, true
}

func calledFromLua(L *lua.LState) bool {
	_, ok := callerFrame(L)
	return ok
}

func typeName(L *lua.LState, i int) string {
	if i > L.GetTop() {
		return "no value"
	}
	return L.Get(i).Type().String()
}
