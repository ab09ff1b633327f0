package script

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// openCompat adds the Lua 5.1 functions Redis's Lua has that gopher-lua
// lacks: gcinfo and the 5.0 leftovers table.foreach, table.foreachi and
// table.setn.
func (s *State) openCompat(g *lua.LTable) {
	L := s.L
	// gopher-lua's values live on Go's heap, not a Lua heap of their own:
	// there is no Lua heap size to report.
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LNumber(0)); return 1 }))
	t := g.RawGetString("table").(*lua.LTable)
	t.RawSetString("foreach", L.NewFunction(func(L *lua.LState) int {
		tb, fn := L.CheckTable(1), L.CheckFunction(2)
		for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
			L.Push(fn)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
	t.RawSetString("foreachi", L.NewFunction(func(L *lua.LState) int {
		tb, fn := L.CheckTable(1), L.CheckFunction(2)
		for i := 1; i <= tb.Len(); i++ {
			L.Push(fn)
			L.Push(lua.LNumber(i))
			L.Push(tb.RawGetInt(i))
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
	t.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
	// The string library is its own strings' metatable in gopher-lua;
	// protect gives strings a separate one.
	if str, ok := g.RawGetString("string").(*lua.LTable); ok {
		str.RawSetString("__index", lua.LNil)
		s.openFormat(str)
		s.openRep(str)
	}
}

// openFormat makes string.format follow Lua 5.1 where gopher-lua's
// differs: %q quotes as Lua does (a newline becomes a backslash and a
// newline, a zero byte \000), %s prints a number as tostring does
// (%.14g) and refuses what is neither string nor number, and %u is %d.
// Each conversion is otherwise gopher-lua's.
func (s *State) openFormat(str *lua.LTable) {
	orig := str.RawGetString("format").(*lua.LFunction)
	one := func(L *lua.LState, spec string, v lua.LValue) string {
		L.Push(orig)
		L.Push(lua.LString(spec))
		L.Push(v)
		L.Call(2, 1)
		out := L.ToString(-1)
		L.Pop(1)
		return out
	}
	str.RawSetString("format", s.L.NewFunction(func(L *lua.LState) int {
		f := checkString(L, 1, "format")
		var b strings.Builder
		arg := 2
		for i := 0; i < len(f); i++ {
			if f[i] != '%' {
				b.WriteByte(f[i])
				continue
			}
			j := i + 1
			for j < len(f) && strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
				j++
			}
			if j >= len(f) {
				if arg > L.GetTop() {
					argError(L, arg, "format", "no value")
				}
				L.RaiseError("invalid option '%%' to 'format'")
			}
			spec, conv := f[i:j+1], f[j]
			i = j
			if conv == '%' {
				b.WriteByte('%')
				continue
			}
			if arg > L.GetTop() {
				argError(L, arg, "format", "no value")
			}
			v := L.Get(arg)
			switch conv {
			case 'q':
				b.WriteString(luaQuote(checkString(L, arg, "format")))
			case 's':
				switch x := v.(type) {
				case lua.LString:
					b.WriteString(one(L, spec, x))
				case lua.LNumber:
					b.WriteString(one(L, spec, lua.LString(formatG(float64(x), 14))))
				default:
					argError(L, arg, "format", "string expected, got "+typeName(L, arg))
				}
			case 'u':
				b.WriteString(one(L, spec[:len(spec)-1]+"d", lua.LNumber(checkNumber(L, arg, "format"))))
			default:
				// A number conversion takes a string holding a number,
				// as Lua's does.
				b.WriteString(one(L, spec, lua.LNumber(checkNumber(L, arg, "format"))))
			}
			arg++
		}
		L.Push(lua.LString(b.String()))
		return 1
	}))
}

// maxRepBytes caps what string.rep builds: a script asking for more
// fails with Lua's out-of-memory error instead of taking the node's
// memory (Go cannot recover from a failed allocation as Lua does).
const maxRepBytes = 512 << 20

// openRep makes string.rep take its count as Lua 5.1's C int (a count
// past 2^31 wraps to a negative one, giving "") and refuse results over
// maxRepBytes.
func (s *State) openRep(str *lua.LTable) {
	str.RawSetString("rep", s.L.NewFunction(func(L *lua.LState) int {
		v := checkString(L, 1, "rep")
		f := checkNumber(L, 2, "rep")
		n := int64(math.MinInt32)
		if f > math.MinInt32-1 && f < math.MaxInt32+1 {
			n = int64(f)
		}
		if n <= 0 || v == "" {
			L.Push(lua.LString(""))
			return 1
		}
		if int64(len(v))*n > maxRepBytes {
			L.RaiseError("not enough memory")
		}
		L.Push(lua.LString(strings.Repeat(v, int(n))))
		return 1
	}))
}

func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString("\\\n")
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
