package script

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// Replies checked against redis-server 7.0.15 (redis-cli, raw).
func TestSandboxAndErrorsInRedisWords(t *testing.T) {
	b := &echoBridge{replies: map[string]string{"get": "$1\r\nv\r\n", "incr": "-ERR value is not an integer or out of range\r\n"}}
	cases := []struct{ body, want string }{
		{"return foo", "-ERR user_script:1: Script attempted to access nonexistent global variable 'foo' script: 47e30a5d10d5694f99208f9adc4fe3bf2450edbd, on @user_script:1.\r\n"},
		{"foo=1", "-ERR user_script:1: Attempt to modify a readonly table script: 5bddd8336e5f711bfa499383fc73c17560c6250b, on @user_script:1.\r\n"},
		{"error('x')", "-ERR user_script:1: x script: 9851144f39f03a0d597a980c5aa79c80cb696891, on @user_script:1.\r\n"},
		{"error({err='x'})", "-x script: 0e48b9b90bf7d59e383ba68c5e1e495ef87146a8, on @user_script:1.\r\n"},
		{"return {err='boo'}", "-boo\r\n"},
		{"return redis.error_reply('My err')", "-My err\r\n"},
		{"return redis.error_reply('hello')", "-ERR hello\r\n"},
		{"return redis.error_reply(1)", "-ERR wrong number or type of arguments\r\n"},
		{"return redis.status_reply('FINE')", "+FINE\r\n"},
		{"return redis.call()", "-ERR Please specify at least one argument for this redis lib call script: 0a907e1429221a4d85516cab7fd219a82a9439d8, on @user_script:1.\r\n"},
		{"return redis.pcall()", "-ERR Please specify at least one argument for this redis lib call\r\n"},
		{"return redis.call('set','n',{})", "-ERR Lua redis lib command arguments must be strings or integers script: 7d09dc30be5b230e0c3e98caa6ad8561a6a7703f, on @user_script:1.\r\n"},
		{"return redis.pcall('incr', 's')", "-ERR value is not an integer or out of range\r\n"},
		{"return redis.setresp(4)", "-ERR RESP version must be 2 or 3. script: 921c0a48021d97dfd5884aeea41875972c7804d9, on @user_script:1.\r\n"},
		{"return redis.log(1)", "-ERR redis.log() requires two arguments or more. script: f5438245431406aa19fc387d93c6d03a0d5bcb0f, on @user_script:1.\r\n"},
		{"return redis.log(99, 'x')", "-ERR Invalid debug level. script: d1ccc394357733a87e4372af693b49d6582b5c58, on @user_script:1.\r\n"},
		{"return redis.sha1hex('')", "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"},
		{"return redis.set_repl(9)", "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: f43d522179aeb2c4dadb59b026d11ed249ca02e0, on @user_script:1.\r\n"},
		{"return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM, redis.replicate_commands(), redis.breakpoint(), redis.set_repl(redis.REPL_ALL)}", "*4\r\n$6\r\n7.0.15\r\n:458767\r\n:1\r\n$-1\r\n"},
		{"math.randomseed(0) return {tostring(math.random()), tostring(math.random()), math.random(100), math.random(5,10), tostring(math.random(1))}", "*5\r\n$16\r\n0.17082803611217\r\n$16\r\n0.74990198051087\r\n:10\r\n:10\r\n$1\r\n1\r\n"},
		{"math.randomseed(7) return tostring(math.random())", "$16\r\n0.26644419658298\r\n"},
		{"return 1 +", "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"},
		{"return redis.call('get', 'k')", "$1\r\nv\r\n"},
		{"return redis.call('incr', 'k')", "-ERR value is not an integer or out of range script: 6f2b230e8168d6623331d135dfd8a3a262da17ee, on @user_script:1.\r\n"},
		{"return {1,2,3,'x',nil,4}", "*4\r\n:1\r\n:2\r\n:3\r\n$1\r\nx\r\n"},
		{"return 3.99", ":3\r\n"},
		{"return true", ":1\r\n"},
		{"return false", "$-1\r\n"},
		{"string.x = 1", "-ERR user_script:1: Attempt to modify a readonly table script: c3eb0a2a15b3d4790b323c4104029c1ae425a769, on @user_script:1.\r\n"},
		{"return type(os)", "-ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: 88bfcb2247db0b6fa4925f3cddc3fd0651459f99, on @user_script:1.\r\n"},
		{"return loadfile", "-ERR user_script:1: Script attempted to access nonexistent global variable 'loadfile' script: a08fbe72c95f67027cc9b6349f5d335b598397b7, on @user_script:1.\r\n"},
		{"rawset(_G, 'x', 1)", "-ERR Attempt to modify a readonly table script: e2c706419da183d6229a1230c3be09cc32cdeee0, on @user_script:1.\r\n"},
		{"local t = getmetatable('') return type(t)", "$5\r\ntable\r\n"},
		{"return tostring(1e15) .. ' ' .. tostring(0.1)", "$9\r\n1e+15 0.1\r\n"},
	}
	for _, c := range cases {
		got := eval(t, c.body, 2, b, nil, nil)
		if c.want == "" {
			t.Logf("%s => %q", c.body, got)
			continue
		}
		if got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}

// The globals and library functions scripts see are Redis 7.0's
// (redis-server's own lists, from pairs), and pairs works on the
// read-only tables.
func TestGlobalsAreRedisOnes(t *testing.T) {
	list := func(tbl string) string {
		return "local t = {} for k,v in pairs(" + tbl + ") do table.insert(t, k) end table.sort(t) return table.concat(t, ' ')"
	}
	cases := []struct{ body, want string }{
		{list("_G"), "ARGV KEYS _G _VERSION assert bit cjson cmsgpack collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next pairs pcall rawequal rawget rawset redis select setmetatable string struct table tonumber tostring type unpack xpcall"},
		{list("string"), "byte char dump find format gfind gmatch gsub len lower match rep reverse sub upper"},
		{list("table"), "concat foreach foreachi getn insert maxn remove setn sort"},
		{list("math"), "abs acos asin atan atan2 ceil cos cosh deg exp floor fmod frexp huge ldexp log log10 max min mod modf pi pow rad random randomseed sin sinh sqrt tan tanh"},
		{"return ('x'):rep(3) .. string.upper('a')", "xxxA"},
		{"local n = 0 table.foreach({a=1, b=2}, function(k, v) n = n + v end) return tostring(n)", "3"},
		{"return _VERSION", "Lua 5.1"},
	}
	for _, c := range cases {
		got := eval(t, c.body, 2, nil, nil, nil)
		want := "$" + itoa(len(c.want)) + "\r\n" + c.want + "\r\n"
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, want)
		}
	}
}

// Runaway recursion and huge stacks fail the script, never the process,
// and the state stays usable or is reported as not.
func TestVMLimitsFailTheScriptOnly(t *testing.T) {
	for _, body := range []string{
		"local function f() return f() + 1 end return f()",
		"local t = {} for i = 1, 300000 do t[i] = i end return select('#', unpack(t))",
		"return string.format('%d', 1) .. string.format('%q', 'x')",
	} {
		got := eval(t, body, 2, nil, nil, nil)
		t.Logf("%s => %.120q", body, got)
		if got == "" {
			t.Errorf("%s: no reply", body)
		}
	}
	if got := eval(t, "local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end return f(3000)", 2, nil, nil, nil); got != ":3000\r\n" {
		t.Errorf("recursion 3000 deep: %q", got)
	}
}

// Runtime errors keep Lua 5.1's wording where it can be told from
// gopher-lua's (checked against redis-server).
func TestRuntimeErrorWording(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return 'a' + 1", "ERR user_script:1: attempt to perform arithmetic on a string value"},
		{"return {} .. 'x'", "ERR user_script:1: attempt to concatenate a table value"},
		{"return math.floor('a')", "ERR user_script:1: bad argument #1 to 'floor' (number expected, got string)"},
		{"local a return a < 1", "ERR user_script:1: attempt to compare nil with number"},
		{"local t = {} t[nil] = 1", "ERR user_script:1: table index is nil"},
		{"return tostring()", "ERR user_script:1: bad argument #1 to 'tostring' (value expected)"},
	}
	for _, c := range cases {
		got := eval(t, c.body, 2, nil, nil, nil)
		if want := "-" + c.want + " script: " + SHA1Hex(c.body) + ", on @user_script:1.\r\n"; got != want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, want)
		}
	}
}

// Nothing a script stores survives into the next script run on the same
// state: KEYS and ARGV are new each run, and the tables getmetatable
// shows are read-only.
func TestNoStateLeaksBetweenRuns(t *testing.T) {
	st := NewState(Options{})
	defer st.Close()
	run := func(body string, keys ...string) string {
		sc, msg := Compile(body)
		if msg != "" {
			t.Fatal(msg)
		}
		var buf bytes.Buffer
		w := resp.NewWriter(&buf)
		var k [][]byte
		for _, s := range keys {
			k = append(k, []byte(s))
		}
		st.Exec(context.Background(), sc, k, nil, nil, nil, w)
		w.Flush()
		return buf.String()
	}
	run("KEYS.x = 'left' KEYS[5] = 'five'", "a", "b")
	if got := run("return {tostring(KEYS.x), tostring(KEYS[5]), #KEYS}", "c"); got != "*3\r\n$3\r\nnil\r\n$3\r\nnil\r\n:1\r\n" {
		t.Fatalf("KEYS kept values: %q", got)
	}
	for _, body := range []string{"getmetatable(_G).x = 1", "getmetatable('').x = 1", "getmetatable(string).x = 1"} {
		if got := run(body); !strings.Contains(got, "Attempt to modify a readonly table") {
			t.Errorf("%s: %q", body, got)
		}
	}
	if got := run("return ('x'):upper()"); got != "$1\r\nX\r\n" {
		t.Fatalf("string methods: %q", got)
	}
}

// string.format as Lua 5.1's (vectors from redis-server).
func TestStringFormatAsLua51(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return string.format('%d', 3.7)", "3"},
		{"return string.format('%s', 1/3)", "0.33333333333333"},
		{"return string.format('%5.1f|%-5s|%05d', 3.14159, 'ab', 42)", "  3.1|ab   |00042"},
		{"return string.format('%x %c %i %e', 255, 65, 5, 12345.678)", "ff A 5 1.234568e+04"},
		{"return string.format('%u', 3)", "3"},
		{"return string.format('%q', 'a\\nb\"')", "\"a\\\nb\\\"\""},
		{"return string.format('100%%')", "100%"},
		{"return string.format('%5s|', 12)", "   12|"},
	}
	for _, c := range cases {
		got := eval(t, c.body, 2, nil, nil, nil)
		if want := "$" + itoa(len(c.want)) + "\r\n" + c.want + "\r\n"; got != want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, want)
		}
	}
	got := eval(t, "return string.format('%s %s', true, nil)", 2, nil, nil, nil)
	if want := "-ERR user_script:1: bad argument #2 to 'format' (string expected, got boolean) script: "; !strings.HasPrefix(got, want) {
		t.Errorf("%%s of a boolean: %q", got)
	}
}

// A cancelled script stops with Redis's SCRIPT KILL error even when it
// loops inside pcall or inside a coroutine.
func TestKilledScriptStopsEverywhere(t *testing.T) {
	for _, body := range []string{
		"while true do end",
		"while true do pcall(function() while true do end end) end",
		"local co = coroutine.wrap(function() while true do end end) co()",
		"while true do pcall(coroutine.wrap(function() while true do end end)) end",
	} {
		sc, msg := Compile(body)
		if msg != "" {
			t.Fatal(msg)
		}
		st := NewState(Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var buf bytes.Buffer
		w := resp.NewWriter(&buf)
		st.Exec(ctx, sc, nil, nil, nil, func() bool { return true }, w)
		w.Flush()
		st.Close()
		if want := "-" + KilledError + " script: " + sc.SHA + ", on @user_script:1.\r\n"; buf.String() != want {
			t.Errorf("%s: %q", body, buf.String())
		}
	}
}

// string.rep wraps its count as Lua 5.1's C int and refuses to build a
// string that would take the node's memory.
func TestStringRepLimits(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return #string.rep('x', 2^31)", ":0\r\n"},
		{"return ('ab'):rep(3)", "$6\r\nababab\r\n"},
		{"return string.rep('x', -1)", "$0\r\n\r\n"},
	}
	for _, c := range cases {
		if got := eval(t, c.body, 2, nil, nil, nil); got != c.want {
			t.Errorf("%s: %q, want %q", c.body, got, c.want)
		}
	}
	if got := eval(t, "return #string.rep('x', 2^31 - 1)", 2, nil, nil, nil); !strings.Contains(got, "not enough memory") {
		t.Errorf("a 2 GB string.rep: %q", got)
	}
}
