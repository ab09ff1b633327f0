package script

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Script is a compiled script body, shared by every state.
type Script struct {
	// SHA is the lower-case hex SHA-1 of Body, its name in the cache.
	SHA   string
	Body  string
	Flags Flags
	proto *lua.FunctionProto
}

// Compile checks a script's shebang and compiles its body. errMsg is
// Redis's reply when it cannot.
func Compile(body string) (sc *Script, errMsg string) {
	flags, skip, msg := ParseShebang(body)
	if msg != "" {
		return nil, msg
	}
	chunk, err := parse.Parse(strings.NewReader(body[skip:]), chunkName)
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + compileError(err, body)
	}
	proto, err := lua.Compile(chunk, chunkName)
	if err != nil {
		return nil, "ERR Error compiling script (new function): " + compileError(err, body)
	}
	return &Script{SHA: SHA1Hex(body), Body: body, Flags: flags, proto: proto}, ""
}

// compileError words gopher-lua's parse errors the way Lua prints them,
// "user_script:LINE: message near 'token'". gopher-lua says "syntax
// error" where Lua names the problem; the common case, Lua's "unexpected
// symbol", is used for it.
func compileError(err error, body string) string {
	pe, ok := err.(*parse.Error)
	if !ok {
		return strings.TrimSpace(err.Error())
	}
	line, tok := pe.Pos.Line, pe.Token
	if line <= 0 {
		line, tok = strings.Count(body, "\n")+1, "<eof>"
	}
	msg := strings.TrimSpace(pe.Message)
	if msg == "syntax error" {
		msg = "unexpected symbol"
	}
	return chunkName + ":" + itoa(line) + ": " + msg + " near '" + tok + "'"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// Cache holds compiled scripts by SHA-1, as SCRIPT LOAD and EVAL leave
// them. Like Redis 7 it lives in memory only: a restart empties it.
type Cache struct {
	mu sync.RWMutex
	m  map[string]*Script
}

// Get returns the script named sha (lower case), or nil.
func (c *Cache) Get(sha string) *Script {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[sha]
}

// Load returns the cached script for body, compiling and caching it the
// first time.
func (c *Cache) Load(body string) (*Script, string) {
	sha := SHA1Hex(body)
	if sc := c.Get(sha); sc != nil {
		return sc, ""
	}
	sc, msg := Compile(body)
	if msg != "" {
		return nil, msg
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*Script{}
	}
	if old := c.m[sha]; old != nil {
		return old, ""
	}
	c.m[sha] = sc
	return sc, ""
}

// Flush empties the cache.
func (c *Cache) Flush() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

// Len is the number of cached scripts.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// Pool keeps sandboxed states for reuse: making one loads every library,
// so each script run borrows one instead.
type Pool struct {
	opts Options
	mu   sync.Mutex
	free []*State
}

// NewPool returns a pool whose states are made with o.
func NewPool(o Options) *Pool { return &Pool{opts: o} }

// Get borrows a state.
func (p *Pool) Get() *State {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return s
	}
	p.mu.Unlock()
	return NewState(p.opts)
}

// Put returns a state; a few are kept, the rest closed.
func (p *Pool) Put(s *State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < 16 {
		p.free = append(p.free, s)
		return
	}
	s.Close()
}
