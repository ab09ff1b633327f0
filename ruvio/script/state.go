package script

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"

	lua "github.com/yuin/gopher-lua"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// Bridge runs the commands a script calls. Call gets the command's
// arguments and the protocol the script asked for (redis.setresp) and
// returns the command's reply, RESP-encoded in that protocol; a command
// the script may not run answers an error reply like any other.
type Bridge interface {
	Call(argv [][]byte, proto int) []byte
}

// ACLChecker is what a Bridge also implements to answer
// redis.acl_check_cmd: whether the script's user may run argv, and
// whether the command exists at all.
type ACLChecker interface {
	CheckACL(argv [][]byte) (allowed, known bool)
}

// State is one sandboxed Lua state with the redis API and Redis's
// libraries loaded. A state runs one script at a time; Pool keeps them
// for reuse.
type State struct {
	L *lua.LState
	// genv holds the real globals; env is the read-only view of it that
	// scripts run in (and see as _G).
	genv, env *lua.LTable
	rand      lrand48
	handler   *lua.LFunction
	protected map[*lua.LTable]bool
	// real maps each read-only view to the table it shows, so that
	// pairs and next see the contents.
	real map[*lua.LTable]*lua.LTable

	// Per run.
	run     *runState
	version string
	log     *slog.Logger
}

// runState is what the redis API needs while one script runs.
type runState struct {
	bridge Bridge
	proto  int // the protocol redis.call replies come in (redis.setresp)
	killed func() bool
}

// Options configure new states.
type Options struct {
	// Version is the Redis version scripts see in redis.REDIS_VERSION.
	Version string
	// Log receives redis.log lines.
	Log *slog.Logger
}

// libraries are the Lua libraries Redis ships beyond Lua's own, by global
// name; each file that implements one registers it.
var libraries = map[string]func(*lua.LState) *lua.LTable{}

// NewState makes a sandboxed state: Lua's base, table, string and math
// libraries without file access or printing, the redis API, cjson,
// cmsgpack, bit and struct, and globals that scripts can read but not
// create or change.
func NewState(o Options) *State {
	// Lua 5.1 allows recursion some thousands deep and large unpacks;
	// gopher-lua's defaults (256 frames, a fixed data stack) are much
	// smaller, so both grow on demand up to limits of that order.
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 4000, MinimizeStackMemory: true,
		RegistrySize: 1024 * 8, RegistryMaxSize: 1024 * 256, RegistryGrowStep: 1024 * 8})
	s := &State{L: L, version: o.Version, log: o.Log, protected: map[*lua.LTable]bool{}, real: map[*lua.LTable]*lua.LTable{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	// What Redis removes, and what gopher-lua adds that Lua 5.1 lacks.
	for _, name := range []string{"dofile", "loadfile", "print", "_printregs", "module", "require", "newproxy",
		"getfenv", "setfenv", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, lua.LNil)
	}
	s.openCompat(g)
	s.openMath(g)
	s.openBasics(g)
	s.rand.seed(int32(rand.Uint32()))
	s.openToString(g)
	s.openCoercion(g)
	g.RawSetString("redis", s.redisLib())
	for name, open := range libraries {
		g.RawSetString(name, open(L))
	}
	g.RawSetString("rawset", L.NewFunction(s.rawset))
	g.RawSetString("next", L.NewFunction(s.next))
	g.RawSetString("rawget", L.NewFunction(s.rawget))
	origSetmt := g.RawGetString("setmetatable").(*lua.LFunction)
	g.RawSetString("setmetatable", L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok && s.protected[t] {
			L.Error(lua.LString("Attempt to modify a readonly table"), 0)
		}
		L.Push(origSetmt)
		L.Push(L.Get(1))
		L.Push(L.Get(2))
		L.Call(2, 1)
		return 1
	}))
	g.RawSetString("pairs", L.NewFunction(s.pairs))
	s.genv = g
	s.handler = L.NewFunction(s.errorHandler)
	s.protect()
	return s
}

// protect turns the globals and the library tables read-only: each is
// replaced by an empty proxy whose reads go through to it and whose
// writes fail, as Redis 7 makes them read-only tables.
func (s *State) protect() {
	L := s.L
	readonly := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	})
	// shown is what getmetatable answers for a protected table: a table,
	// as in Redis, itself read-only so that nothing a script stores
	// survives into the next script.
	shown := L.NewTable()
	smt := L.NewTable()
	smt.RawSetString("__index", L.NewTable())
	smt.RawSetString("__newindex", readonly)
	smt.RawSetString("__metatable", shown)
	L.SetMetatable(shown, smt)
	s.protected[shown] = true
	proxy := func(real *lua.LTable) *lua.LTable {
		p := L.NewTable()
		mt := L.NewTable()
		mt.RawSetString("__index", real)
		mt.RawSetString("__newindex", readonly)
		mt.RawSetString("__metatable", shown)
		L.SetMetatable(p, mt)
		s.protected[p] = true
		s.protected[real] = true
		s.real[p] = real
		return p
	}
	var libs []string
	s.genv.ForEach(func(k, v lua.LValue) {
		if _, ok := v.(*lua.LTable); ok {
			libs = append(libs, k.String())
		}
	})
	for _, name := range libs {
		s.genv.RawSetString(name, proxy(s.genv.RawGetString(name).(*lua.LTable)))
	}
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.ToString(2))
		return 0
	}))
	L.SetMetatable(s.genv, missing)
	s.env = proxy(s.genv)
	s.genv.RawSetString("_G", s.env)
	// Strings get a metatable of their own reaching the string library
	// through its read-only view (gopher-lua uses the library table
	// itself, which would show an __index entry).
	strmt := L.NewTable()
	strmt.RawSetString("__index", s.genv.RawGetString("string"))
	strmt.RawSetString("__metatable", shown)
	L.SetMetatable(lua.LString(""), strmt)
}

// rawset is Lua's, refusing the protected tables.
func (s *State) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	if s.protected[t] {
		// Raised without a position, as Redis's C rawset does.
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	L.RawSet(t, L.CheckAny(2), L.CheckAny(3))
	L.Push(t)
	return 1
}

// rawget is Lua's, reading a read-only view's table.
func (s *State) rawget(L *lua.LState) int {
	t := L.CheckTable(1)
	if r := s.real[t]; r != nil {
		t = r
	}
	L.Push(L.RawGet(t, L.CheckAny(2)))
	return 1
}

// next is Lua's, reading a read-only view's table.
func (s *State) next(L *lua.LState) int {
	t := L.CheckTable(1)
	if r := s.real[t]; r != nil {
		t = r
	}
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

// pairs is Lua's, iterating a read-only view's table.
func (s *State) pairs(L *lua.LState) int {
	t := L.CheckTable(1)
	if r := s.real[t]; r != nil {
		t = r
	}
	L.Push(s.genv.RawGetString("next"))
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

// Close releases the state.
func (s *State) Close() { s.L.Close() }

// Exec runs a compiled script with KEYS and ARGV, writing its reply in
// the protocol proto (the caller's). ctx interrupts the script when it
// is done; killed then tells whether SCRIPT KILL did it, for the reply's
// wording. reusable is false when the VM itself failed (a limit its
// error handling could not recover from): the state must then be closed
// rather than reused.
func (s *State) Exec(ctx context.Context, sc *Script, keys, args [][]byte, b Bridge, killed func() bool, out *resp.Writer) (reusable bool) {
	L := s.L
	n := out.Buffered()
	defer func() {
		if r := recover(); r != nil {
			out.Truncate(n)
			out.Error("ERR Error running script (call to f_" + sc.SHA + "): " + clip(firstLine(fmt.Sprint(r)), 200))
			reusable = false
		}
	}()
	// Fresh tables each run: nothing one script leaves in them reaches
	// the next.
	s.genv.RawSetString("KEYS", luaArray(L, keys))
	s.genv.RawSetString("ARGV", luaArray(L, args))
	s.run = &runState{bridge: b, proto: 2, killed: killed}
	defer func() { s.run = nil }()
	fn := L.NewFunctionFromProto(sc.proto)
	fn.Env = s.env
	L.SetTop(0)
	L.Push(fn)
	if ctx != nil {
		L.SetContext(ctx)
		defer L.RemoveContext()
	}
	err := L.PCall(0, 1, s.handler)
	if err != nil {
		var ev lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			ev = ae.Object
		}
		L.SetTop(0)
		msg, wasCounted := errorReply(ev, sc.SHA)
		writeError(out, msg, wasCounted)
		return true
	}
	v := L.Get(-1)
	L.SetTop(0)
	s.reply(out, v, s.run.proto, 0)
	return true
}

// luaArray is a table of vals, 1-based.
func luaArray(L *lua.LState, vals [][]byte) *lua.LTable {
	t := L.CreateTable(len(vals), 0)
	for i, v := range vals {
		t.RawSetInt(i+1, lua.LString(v))
	}
	return t
}
