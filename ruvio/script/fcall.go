package script

import (
	"context"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// FunctionState is a state with a set of libraries loaded: the functions
// FCALL calls are the closures their load registered in it.
type FunctionState struct {
	*State
	set   *Libraries
	funcs map[string]*lua.LFunction
}

// FunctionPool keeps function states for reuse. A state is loaded with
// the set current when it was made; one of an older set is closed when
// met, so a library change costs each state one reload.
type FunctionPool struct {
	opts Options
	mu   sync.Mutex
	free []*FunctionState
}

// NewFunctionPool returns a pool whose states are made with o.
func NewFunctionPool(o Options) *FunctionPool { return &FunctionPool{opts: o} }

// Get borrows a state with set loaded.
func (p *FunctionPool) Get(set *Libraries) *FunctionState {
	p.mu.Lock()
	for len(p.free) > 0 {
		fs := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		if fs.set == set {
			p.mu.Unlock()
			return fs
		}
		fs.Close()
	}
	p.mu.Unlock()
	fs := &FunctionState{State: NewState(p.opts), set: set, funcs: map[string]*lua.LFunction{}}
	for _, lib := range set.libs {
		fns, msg := fs.loadLibrary(lib)
		if msg != "" {
			// The library loaded when it was added; a later failure (its
			// load timed out on a busy machine) leaves its functions out.
			fs.log.Warn("library failed to load into a new state", "library", lib.Name, "err", msg)
			continue
		}
		for _, f := range fns {
			fs.funcs[strings.ToLower(f.info.Name)] = f.fn
		}
	}
	return fs
}

// Put returns a state; a few are kept, the rest closed.
func (p *FunctionPool) Put(fs *FunctionState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < 16 {
		p.free = append(p.free, fs)
		return
	}
	fs.Close()
}

// Call runs the function name with its keys and arguments, writing its
// reply in out's protocol, as Exec runs a script: ctx stops it, killed
// tells whether FUNCTION KILL did. reusable is false when the VM itself
// failed and the state must be closed.
func (fs *FunctionState) Call(ctx context.Context, name string, keys, args [][]byte, b Bridge, killed func() bool, out *resp.Writer) (reusable bool) {
	s, L := fs.State, fs.L
	fn := fs.funcs[strings.ToLower(name)]
	if fn == nil {
		out.Error("ERR Function not found")
		return true
	}
	n := out.Buffered()
	defer func() {
		if r := recover(); r != nil {
			out.Truncate(n)
			out.Error("ERR Error running script (call to " + name + "): " + clip(firstLine(fmt.Sprint(r)), 200))
			reusable = false
		}
	}()
	s.run = &runState{bridge: b, proto: 2, killed: killed}
	defer func() { s.run = nil }()
	L.SetTop(0)
	L.Push(fn)
	L.Push(luaArray(L, keys))
	L.Push(luaArray(L, args))
	if ctx != nil {
		L.SetContext(ctx)
		defer L.RemoveContext()
	}
	if err := L.PCall(2, 1, s.handler); err != nil {
		var ev lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			ev = ae.Object
		}
		L.SetTop(0)
		if t, ok := ev.(*lua.LTable); ok && t.RawGetString("source") != lua.LNil {
			t.RawSetString("source", lua.LString(functionSource))
		}
		msg, wasCounted := errorReply(ev, name)
		writeError(out, msg, wasCounted)
		return true
	}
	v := L.Get(-1)
	L.SetTop(0)
	s.reply(out, v, s.run.proto, 0)
	return true
}
