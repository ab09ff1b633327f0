package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// lrand48 is the 48-bit linear congruential generator of POSIX lrand48,
// which Redis uses for math.random: math.randomseed(n) gives Redis's
// sequence for n. Like redis-server 7.0 (which no longer reseeds it for
// each script, its effects being replicated rather than the script),
// the sequence goes on from one run to the next.
type lrand48 struct{ x uint64 }

const (
	lrandA    = 0x5DEECE66D
	lrandC    = 0xB
	lrandMask = 1<<48 - 1
	lrandMax  = math.MaxInt32
)

func (r *lrand48) seed(s int32) { r.x = (uint64(uint32(s))<<16 | 0x330E) & lrandMask }

func (r *lrand48) next() int32 {
	r.x = (lrandA*r.x + lrandC) & lrandMask
	return int32(r.x >> 17)
}

// openMath replaces math.random and math.randomseed with Redis's.
func (s *State) openMath(g *lua.LTable) {
	L := s.L
	m := g.RawGetString("math").(*lua.LTable)
	m.RawSetString("random", L.NewFunction(func(L *lua.LState) int {
		r := float64(s.rand.next()%lrandMax) / float64(lrandMax)
		switch L.GetTop() {
		case 0:
			L.Push(lua.LNumber(r))
		case 1:
			u := L.CheckInt(1)
			if u < 1 {
				L.RaiseError("bad argument #1 to 'random' (interval is empty)")
			}
			L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
		case 2:
			l, u := L.CheckInt(1), L.CheckInt(2)
			if l > u {
				L.RaiseError("bad argument #2 to 'random' (interval is empty)")
			}
			L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
		default:
			L.RaiseError("wrong number of arguments")
		}
		return 1
	}))
	m.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
		s.rand.seed(int32(L.CheckInt(1)))
		return 0
	}))
}

// openToString makes tostring print numbers as Lua 5.1 does ("%.14g");
// gopher-lua's own formatting prints every digit.
func (s *State) openToString(g *lua.LTable) {
	orig := g.RawGetString("tostring").(*lua.LFunction)
	g.RawSetString("tostring", s.L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok {
			L.Push(lua.LString(formatG(float64(n), 14)))
			return 1
		}
		v := L.CheckAny(1)
		L.Push(orig)
		L.Push(v)
		L.Call(1, 1)
		return 1
	}))
}
