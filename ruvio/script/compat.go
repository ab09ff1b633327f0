package script

import (
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
	}
}
