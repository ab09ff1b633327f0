package script

import (
	"context"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// Redis 7 functions: a library is Lua code whose run registers functions
// (redis.register_function); FCALL then calls one of them with its keys
// and arguments. The library's code runs once per state that serves
// FCALL, with only the load API in reach (register_function, log, the
// version): its functions, called later, see the whole redis API through
// the same globals, as in Redis, where the globals' fallback is swapped
// after the load.

// Function chunk names: positions read "user_function:LINE:", sources
// "@user_function".
const (
	functionChunk  = "user_function"
	functionSource = "@user_function"
)

// loadTimeout bounds a library's load run, as Redis bounds it (500 ms).
const loadTimeout = 500 * time.Millisecond

// Function is one function a library registered.
type Function struct {
	Name string
	// Description is nil when the library gave none.
	Description *string
	Flags       Flags
}

// Library is a loaded function library.
type Library struct {
	// Name is the library's name from its shebang; Code the whole code
	// as loaded, shebang included (what LIST WITHCODE and DUMP show).
	Name string
	Code string
	// Functions are the library's functions, sorted by name.
	Functions []Function
	proto     *lua.FunctionProto
}

// libraryNameOK is Redis's rule for library and function names: letters,
// digits and underscores, at least one.
func libraryNameOK(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

const errLibraryName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// libraryMeta reads a library's "#!<engine> name=<lib>" line. It returns
// the engine, the name and where the code after the shebang starts (at
// its newline, so line numbers stay the user's), or Redis's error.
func libraryMeta(code string) (engine, name string, skip int, errMsg string) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", 0, "ERR Missing library metadata"
	}
	end := strings.IndexByte(code, '\n')
	if end < 0 {
		return "", "", 0, "ERR Invalid library metadata"
	}
	parts, err := resp.SplitArgs([]byte(code[:end]))
	if err != nil || len(parts) == 0 {
		return "", "", 0, "ERR Invalid library metadata"
	}
	engine = string(parts[0][2:])
	named := false
	for _, p := range parts[1:] {
		opt := string(p)
		if len(opt) >= 5 && strings.EqualFold(opt[:5], "name=") {
			if named {
				return "", "", 0, "ERR Invalid metadata value, name argument was given multiple times"
			}
			name, named = opt[5:], true
			continue
		}
		return "", "", 0, "ERR Invalid metadata value given: " + opt
	}
	if !named {
		return "", "", 0, "ERR Library name was not given"
	}
	return engine, name, end, ""
}

// ParseLibrary checks and compiles a library's code and runs its load in
// a fresh state (made with o) to learn the functions it registers. errMsg
// is Redis's reply when it cannot be loaded. Collisions with other
// libraries are the caller's to check (see Libraries.With).
func ParseLibrary(code string, o Options) (lib *Library, errMsg string) {
	engine, name, skip, msg := libraryMeta(code)
	if msg != "" {
		return nil, msg
	}
	if !libraryNameOK(name) {
		return nil, "ERR " + errLibraryName
	}
	if !strings.EqualFold(engine, "lua") {
		return nil, "ERR Engine '" + engine + "' not found"
	}
	body := code[skip:]
	chunk, err := parse.Parse(strings.NewReader(body), functionChunk)
	if err == nil {
		var proto *lua.FunctionProto
		if proto, err = lua.Compile(chunk, functionChunk); err == nil {
			lib = &Library{Name: name, Code: code, proto: proto}
		}
	}
	if err != nil {
		text := compileError(err, body)
		if rest, ok := strings.CutPrefix(text, chunkName+":"); ok {
			text = functionChunk + ":" + rest
		}
		return nil, "ERR Error compiling function: " + text
	}
	s := NewState(o)
	defer s.Close()
	fns, msg := s.loadLibrary(lib)
	if msg != "" {
		return nil, msg
	}
	if len(fns) == 0 {
		return nil, "ERR No functions registered"
	}
	for _, f := range fns {
		lib.Functions = append(lib.Functions, f.info)
	}
	sort.Slice(lib.Functions, func(i, j int) bool { return lib.Functions[i].Name < lib.Functions[j].Name })
	return lib, ""
}

// registered is a function as one state's load run registered it.
type registered struct {
	info Function
	fn   *lua.LFunction
}

// loadLibrary runs lib's code in s with the load API as its globals'
// fallback, then points the fallback at the real globals so that the
// functions it registered see the full API when called. It returns what
// was registered, or Redis's error.
func (s *State) loadLibrary(lib *Library) (fns []registered, errMsg string) {
	L := s.L
	readonly := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	})
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.ToString(2))
		return 0
	}))
	missing.RawSetString("__newindex", readonly)
	loadAPI := L.NewTable()
	rt := L.NewTable()
	// The load API stays reachable from a function that kept a
	// reference to it (local lib = redis); it works only while the
	// library loads, as in Redis.
	loading := true
	defer func() { loading = false }()
	rt.RawSetString("register_function", L.NewFunction(func(L *lua.LState) int {
		if !loading {
			raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
		}
		f, msg := readRegisterArgs(L)
		if msg == "" {
			if !libraryNameOK(f.info.Name) {
				// Redis 7.0 words a bad function name as a bad library name.
				msg = errLibraryName
			}
			for _, have := range fns {
				if strings.EqualFold(have.info.Name, f.info.Name) {
					msg = "Function already exists in the library"
				}
			}
		}
		if msg != "" {
			raise(L, msg)
		}
		fns = append(fns, f)
		return 0
	}))
	rt.RawSetString("log", L.NewFunction(s.logLine))
	for name, v := range map[string]int{"LOG_DEBUG": logDebug, "LOG_VERBOSE": logVerbose, "LOG_NOTICE": logNotice, "LOG_WARNING": logWarning} {
		rt.RawSetString(name, lua.LNumber(v))
	}
	rt.RawSetString("REDIS_VERSION", lua.LString(s.version))
	rt.RawSetString("REDIS_VERSION_NUM", lua.LNumber(versionNum(s.version)))
	L.SetMetatable(rt, missing)
	loadAPI.RawSetString("redis", rt)
	L.SetMetatable(loadAPI, missing)

	// env is the library's globals: empty, reads fall back to the load
	// API now and to the read-only globals once loaded, writes fail.
	env := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", loadAPI)
	mt.RawSetString("__newindex", readonly)
	mt.RawSetString("__metatable", L.NewTable())
	L.SetMetatable(env, mt)
	s.protected[env] = true

	fn := L.NewFunctionFromProto(lib.proto)
	fn.Env = env
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	L.SetContext(ctx)
	defer L.RemoveContext()
	L.SetTop(0)
	L.Push(fn)
	err := L.PCall(0, 0, s.handler)
	mt.RawSetString("__index", s.env)
	if err != nil {
		L.SetTop(0)
		if ctx.Err() != nil {
			return nil, "ERR Error registering functions: ERR FUNCTION LOAD timeout"
		}
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			if t, ok := ae.Object.(*lua.LTable); ok {
				if e, ok := t.RawGetString("err").(lua.LString); ok {
					msg = string(e)
				}
			}
		}
		return nil, "ERR Error registering functions: " + firstLine(msg)
	}
	return fns, ""
}

// readRegisterArgs reads redis.register_function's arguments, positional
// (name, callback) or named ({function_name=, callback=, flags=,
// description=}), returning Redis's error message when they are wrong.
func readRegisterArgs(L *lua.LState) (f registered, errMsg string) {
	switch L.GetTop() {
	case 1:
	case 2:
		if !isString(L.Get(1)) {
			return f, "first argument to redis.register_function must be a string"
		}
		cb, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return f, "second argument to redis.register_function must be a function"
		}
		f.info.Name, f.fn = L.ToString(1), cb
		return f, ""
	default:
		return f, "wrong number of arguments to redis.register_function"
	}
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return f, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
	}
	named := false
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !isString(k) {
			return f, "named argument key given to redis.register_function is not a string"
		}
		switch strings.ToLower(lua.LVAsString(k)) {
		case "function_name":
			if !isString(v) {
				return f, "function_name argument given to redis.register_function must be a string"
			}
			f.info.Name, named = lua.LVAsString(v), true
		case "description":
			if !isString(v) {
				return f, "description argument given to redis.register_function must be a string"
			}
			d := lua.LVAsString(v)
			f.info.Description = &d
		case "callback":
			cb, ok := v.(*lua.LFunction)
			if !ok {
				return f, "callback argument given to redis.register_function must be a function"
			}
			f.fn = cb
		case "flags":
			ft, ok := v.(*lua.LTable)
			if !ok {
				return f, "flags argument to redis.register_function must be a table representing function flags"
			}
			flags, ok := readFunctionFlags(ft)
			if !ok {
				return f, "unknown flag given"
			}
			f.info.Flags = flags
		default:
			return f, "unknown argument given to redis.register_function"
		}
	}
	if !named {
		return f, "redis.register_function must get a function name argument"
	}
	if f.fn == nil {
		return f, "redis.register_function must get a callback argument"
	}
	return f, ""
}

// readFunctionFlags reads a flags array, names matched without regard to
// case as Redis does.
func readFunctionFlags(t *lua.LTable) (Flags, bool) {
	var f Flags
	for i := 1; ; i++ {
		v := t.RawGetInt(i)
		if v == lua.LNil {
			return f, true
		}
		if !isString(v) {
			return 0, false
		}
		found := false
		for _, fn := range flagNames {
			if strings.EqualFold(fn.name, lua.LVAsString(v)) {
				f |= fn.f
				found = true
			}
		}
		if !found {
			return 0, false
		}
	}
}

// isString is Lua's lua_isstring: a string or a number.
func isString(v lua.LValue) bool {
	t := v.Type()
	return t == lua.LTString || t == lua.LTNumber
}

// FlagNames lists the names of f's flags in Redis's order, as FUNCTION
// LIST shows them.
func FlagNames(f Flags) []string {
	var names []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			names = append(names, fn.name)
		}
	}
	return names
}
