package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func ev(body string, keysAndArgs ...any) []any {
	nk := 0
	for _, a := range keysAndArgs {
		if s, ok := a.(string); ok && strings.HasPrefix(s, "{k}") {
			nk++
		}
	}
	return append([]any{"EVAL", body, nk}, keysAndArgs...)
}

// scriptCases exercise the conversions, errors and libraries; keys are
// named "{k}..." so that ev can count them.
var scriptCases = [][]any{
	// Lua to RESP.
	ev("return 1"), ev("return 3.99"), ev("return -3.99"), ev("return 'x'"), ev("return true"), ev("return false"),
	ev("return nil"), ev("return {1,2,3,'x',nil,4}"), ev("return {1,{2,{3}},'a'}"), ev("return {}"),
	ev("return {ok='FINE'}"), ev("return {err='boo'}"), ev("return {err='WRONGTYPE x'}"),
	ev("return redis.status_reply('FINE')"), ev("return redis.error_reply('My err')"), ev("return redis.error_reply('hello')"),
	ev("return redis.error_reply('-NOPE')"), ev("return redis.error_reply(1)"), ev("return redis.status_reply()"),
	ev("return {double=3.5}"), ev("return {double=0.1}"), ev("return {big_number='123456789012345678901234567890'}"),
	ev("return {map={a=1}}"), ev("return {set={a=true}}"), ev("return {1, {map={x='y'}}}"),
	ev("redis.setresp(3) return true"), ev("redis.setresp(3) return false"), ev("redis.setresp(3) return {double=2.5}"),
	ev("return KEYS[1] .. ARGV[1]", "{k}a", "b"), ev("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}", "{k}a", "{k}b", "c", "d"),
	ev("return #ARGV", "1", "2", "3"),
	// RESP to Lua.
	ev("redis.call('set', KEYS[1], 'v') return redis.call('get', KEYS[1])", "{k}1"),
	ev("return redis.call('get', KEYS[1])", "{k}nothing"), ev("return type(redis.call('get', KEYS[1]))", "{k}nothing"),
	ev("return redis.call('incr', KEYS[1])", "{k}n"), ev("return type(redis.call('incr', KEYS[1]))", "{k}n2"),
	ev("return redis.call('set', KEYS[1], 'v')", "{k}s"), ev("return redis.call('set', KEYS[1], 'v').ok", "{k}s"),
	ev("redis.call('rpush', KEYS[1], 'a', 'b') return redis.call('lrange', KEYS[1], 0, -1)", "{k}l"),
	ev("redis.call('hset', KEYS[1], 'f', 'v') return redis.call('hgetall', KEYS[1])", "{k}h"),
	ev("redis.setresp(3) redis.call('hset', KEYS[1], 'f', 'v') local r = redis.call('hgetall', KEYS[1]) return type(r.map)", "{k}h3"),
	ev("redis.setresp(3) return redis.call('hgetall', KEYS[1])", "{k}h3b"),
	ev("redis.setresp(3) return type(redis.call('get', KEYS[1]))", "{k}none3"),
	ev("redis.setresp(3) redis.call('zadd', KEYS[1], 1.5, 'm') return redis.call('zscore', KEYS[1], 'm')", "{k}z3"),
	ev("redis.setresp(3) redis.call('zadd', KEYS[1], 1.5, 'm') return redis.call('zscore', KEYS[1], 'm').double", "{k}z3b"),
	ev("redis.setresp(3) redis.call('sadd', KEYS[1], 'm') return redis.call('smembers', KEYS[1])", "{k}s3"),
	ev("redis.setresp(3) return redis.call('exists', KEYS[1])", "{k}e3"),
	ev("return redis.call('set', KEYS[1], 0.1)", "{k}f"), ev("redis.call('set', KEYS[1], 0.1) return redis.call('get', KEYS[1])", "{k}f"),
	ev("redis.call('set', KEYS[1], 3) return redis.call('get', KEYS[1])", "{k}f3"),
	// Errors.
	ev("return redis.call('get')"), ev("return redis.pcall('get')"), ev("return redis.call('nosuch')"),
	ev("return redis.pcall('nosuch')"), ev("return foo"), ev("foo = 1"), ev("error('x')"), ev("error({err='x'})"),
	ev("return redis.call('set', 'a')"), ev("return redis.call()"), ev("return redis.pcall()"),
	ev("return redis.call('set', KEYS[1], {})", "{k}t"),
	ev("redis.call('set', KEYS[1], 'x') return redis.call('incr', KEYS[1])", "{k}x"),
	ev("redis.call('set', KEYS[1], 'x') return redis.pcall('incr', KEYS[1])", "{k}x"),
	ev("redis.call('set', KEYS[1], 'x') local t = redis.pcall('incr', KEYS[1]) return t.err", "{k}x"),
	ev("redis.call('set', KEYS[1], 'x') return redis.call('lpush', KEYS[1], 'a')", "{k}x"),
	ev("return redis.call('monitor')"), ev("return redis.call('multi')"), ev("return redis.call('exec')"),
	ev("return redis.call('watch', 'k')"), ev("return redis.call('blpop', 'q', 0)"), ev("return redis.call('eval', 'return 1', 0)"),
	ev("return redis.call('script', 'load', 'return 1')"),
	ev("return redis.setresp(4)"), ev("return redis.log(1)"), ev("return redis.log(99, 'x')"),
	ev("return redis.log(redis.LOG_WARNING, 'from a test')"), ev("return redis.sha1hex('')"), ev("return redis.sha1hex()"),
	ev("return redis.set_repl(9)"), ev("redis.set_repl(redis.REPL_ALL) return redis.replicate_commands()"),
	ev("return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM, redis.breakpoint()}"),
	ev("return 1 +"), ev("string.x = 1"), ev("return os"), ev("return loadfile"), ev("return dofile"),
	ev("rawset(_G, 'x', 1)"), ev("local t = {} t.x = 1 return t.x"), ev("return _G.KEYS == KEYS"),
	ev("math.randomseed(7) return tostring(math.random())"), ev("math.randomseed(1) return math.random(1, 100)"),
	ev("return math.random(0)"),
	{"EVAL", "return 1", -1}, {"EVAL", "return 1", 2, "a"}, {"EVAL", "return 1", "x"}, {"EVAL", "return 1"},
	{"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", 0}, {"EVALSHA", "fff", 0},
	{"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 0},
	{"EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", 0},
	// Shebang flags and the read-only forms.
	ev("#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'b')", "{k}ro"),
	ev("#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "{k}ro"),
	ev("#!lua\nreturn 1"), ev("#!lua flags=allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 2"),
	ev("#!lua flags="), ev("#!lua flags=\nreturn 3"), ev("#!lua name=x\nreturn 1"), ev("#!lux\nreturn 1"), ev("#!lua"),
	ev("#!lua flags=bogus\nreturn 1"), ev("#!lua\nreturn foo"),
	{"EVAL_RO", "return redis.call('set', KEYS[1], 'b')", 1, "{k}ro"},
	{"EVAL_RO", "return redis.call('get', KEYS[1])", 1, "{k}ro"},
	{"EVAL_RO", "#!lua\nreturn 1", 0}, {"EVAL_RO", "#!lua flags=no-writes\nreturn 1", 0},
	{"EVAL_RO", "return redis.call('publish', 'ch', 'x')", 0},
	{"EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 0},
	// SCRIPT.
	{"SCRIPT", "LOAD", "return 1"}, {"SCRIPT", "LOAD", "return 1 +"}, {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "ffff"},
	{"SCRIPT", "EXISTS", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB"}, {"SCRIPT", "FLUSH", "foo"}, {"SCRIPT", "KILL"},
	{"SCRIPT"}, {"SCRIPT", "nosuch"}, {"SCRIPT", "LOAD"}, {"SCRIPT", "EXISTS"}, {"SCRIPT", "HELP"},
	{"SCRIPT", "FLUSH"}, {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
	{"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 0}, {"SCRIPT", "FLUSH", "ASYNC"}, {"SCRIPT", "FLUSH", "sync"},
	// The libraries Redis ships.
	ev("return cjson.encode({a={1,2,'x',true}})"), ev("return cjson.encode({})"), ev("return cjson.encode(1/3)"),
	ev("return cjson.decode('{\"a\":[1,2.5,null]}').a"), ev("return cjson.decode('[1,')"), ev("return cjson.encode(function() end)"),
	ev("return cjson.encode({[1]=1,[30]=2})"), ev("return cjson.decode('null') == cjson.null"),
	ev("return cmsgpack.pack({1, 'a', true, 0.5, -200, {x=1}})"), ev("return {cmsgpack.unpack(cmsgpack.pack(1, 'b', {2, 3}))}"),
	ev("return cmsgpack.unpack('\\193')"), ev("return {cmsgpack.unpack_one(cmsgpack.pack(7, 8))}"),
	ev("return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(3, 1), bit.lshift(1, 31), bit.tohex(-1), bit.bswap(0x01020304), bit.tobit(2^32 + 1)}"),
	ev("return struct.pack('>I2i4', 258, -1)"), ev("return {struct.unpack('>I2i4', struct.pack('>I2i4', 258, -1))}"),
	ev("return struct.size('!4 b i d')"), ev("return struct.pack('q', 1)"),
	// Globals and library contents, redis.acl_check_cmd, SCRIPT DEBUG.
	ev("local t = {} for k in pairs(_G) do if k ~= '__redis__err__handler' then table.insert(t, k) end end table.sort(t) return t"),
	ev("local t = {} for k in pairs(string) do table.insert(t, k) end table.sort(t) return t"),
	ev("local t = {} for k in pairs(table) do table.insert(t, k) end table.sort(t) return t"),
	ev("local t = {} for k in pairs(redis) do table.insert(t, k) end table.sort(t) return t"),
	ev("return {redis.acl_check_cmd('get', 'x'), redis.acl_check_cmd('set', 'x', 'y')}"),
	ev("return redis.acl_check_cmd('nosuch')"), ev("return redis.acl_check_cmd()"),
	{"SCRIPT", "DEBUG", "NO"}, {"SCRIPT", "DEBUG", "foo"}, {"SCRIPT", "DEBUG"},
	// The sandbox and everyday Lua.
	ev("setmetatable(_G, {})"), ev("return type(getmetatable(_G))"), ev("return rawget(_G, 'redis') == nil"),
	ev("redis.call = nil"), ev("KEYS[1] = 'x' return KEYS[1]"), ev("local s = string s.x = 1"), ev("cjson.x = 1"),
	ev("return type(getfenv)"), ev("return coroutine.wrap(function() coroutine.yield(5) end)()"),
	ev("return loadstring('return 7')()"), ev("return select('#', 1, 2, 3)"),
	ev("return string.format('%d %s %5.2f', 3, 'x', 1.5)"), ev("return tostring(nil) .. tostring(true)"), ev("return #KEYS"),
	ev("return tonumber('0x10')"), ev("local t = setmetatable({}, {__index=function(t,k) return k..'!' end}) return t.a"),
	ev("return string.gsub('hello', 'l', 'L')"), ev("return unpack({1,2,3})"), ev("return math.huge"),
	ev("return math.floor(-0.5)"), ev("return 7 % 3"), ev("return 2^10"), ev("return 10 / 4"),
	ev("return table.concat({1,2,3}, '-')"), ev("return string.byte('A')"), ev("return ('%q'):format('a\\nb')"),
	ev("return string.format('%d|%s|%5.1f|%u|%q', 3.7, 1/3, 3.14159, 3, 'a\\nb')"), ev("return string.format('%s', true)"),
	ev("return string.format('%d')"), ev("return string.format('%')"),
	ev("getmetatable('').x = 1"), ev("getmetatable(_G).x = 1"), ev("KEYS.x = 1 return KEYS.x", "{k}a"),
	// Commands the server implements, from a script.
	ev("return redis.call('ping')"), ev("return redis.call('echo', 'hi')"), ev("return redis.call('select', 0)"),
	ev("return redis.call('publish', 'ch', 'x')"), ev("return #redis.call('time')"),
	ev("return redis.call('xread', 'block', 0, 'streams', KEYS[1], '$')", "{k}st"),
	ev("return redis.call('blmpop', 0, 1, KEYS[1], 'left')", "{k}bl"),
	ev("return redis.call('pubsub', 'numpat')"), ev("return redis.call('pubsub', 'channels')"),
	ev("return redis.call('dbsize')"),
	// Where gopher-lua's base functions differ from Lua 5.1's: pcall
	// catches redis.call's error as its string, error's positions,
	// tonumber through strtod, math.huge, a NaN's sign.
	ev("local ok, e = pcall(redis.call, 'nosuch') return e"), ev("local ok, e = pcall(redis.call, 'set') return type(e)"),
	ev("local ok, e = pcall(redis.call, 'nosuch') return {ok, e}"), ev("local ok, e = pcall(redis.call, 'nosuch') error(e)"),
	ev("local t = redis.pcall('nosuch') error(t)"), ev("local ok, e = pcall(error, {err='x'}) return e"),
	ev("local ok, e = pcall(error, 'plain') return e"), ev("return {pcall(function() return 1, 2 end)}"),
	ev("error(123)"), ev("error('x', 2)"), ev("error('x', 0)"), ev("error('x')"), ev("error({err='custom'})"),
	ev("local function f() error('deep', 2) end f()"),
	ev("return tostring(tonumber('12345678901234567890'))"), ev("return tostring(tonumber('inf'))"),
	ev("return tostring(tonumber('1e500'))"), ev("return tostring(tonumber('-0x1p4'))"), ev("return tostring(tonumber(' 5 '))"),
	ev("return tostring(tonumber('5x'))"), ev("return tostring(tonumber('ff', 16))"), ev("return tostring(tonumber('9223372036854775808'))"),
	ev("return tostring(math.huge)"), ev("return tostring(-math.huge)"), ev("return tostring(0/0)"),
	ev("return bit.band('12345678901234567890', 7)"),
	// lua-cjson decodes a number with a leading '+' (an "invalid number"
	// Redis's build accepts).
	ev("return cjson.encode(cjson.decode('[+5, +.5, -5, 0x10]'))"), ev("return cjson.decode('+')"),
	ev("return cjson.decode('+x')"), ev("return cjson.decode('.5')"),
	// A string holding a number passes where a library function takes an
	// integer or a number, as ARGV's strings do; one that holds none is
	// refused in Lua's words.
	ev("return string.sub('abcdef', ARGV[1])", "2"), ev("return string.format('%5.1f', '3.14159')"),
	ev("return string.format('%d|%x|%c|%5.2e|%u', '42', ' 255 ', '65', '1e3', '7')"), ev("return string.format('%d', 'x')"),
	ev("return string.byte('abc', '2')"), ev("return string.char('72', '105')"), ev("return string.find('hello', 'l', '4')"),
	ev("return string.match('hello', 'l+', '4')"), ev("return (string.gsub('aaa', 'a', 'b', '2'))"),
	ev("return string.sub('abcdef', '0x2')"), ev("return string.sub('abc', 'x')"), ev("return {unpack({1,2,3}, '2')}"),
	ev("return select('2', 'a', 'b', 'c')"), ev("return select('#', 'a', 'b')"), ev("return table.concat({1,2,3}, ',', '2', '3')"),
	ev("local t={1,2} table.insert(t, '1', 'x') return t"), ev("local t={1,2} table.insert(t, '5') return t"),
	ev("local t={1,2,3} return table.remove(t, '1')"), ev("return math.ldexp(1, '3')"), ev("return tonumber('ff', '16')"),
	ev("math.randomseed('7') local a = math.random('1000') math.randomseed(7) return {a, math.random(1000)}"),
	// Server commands Redis runs from scripts (not flagged noscript).
	ev("return type(redis.call('info', 'server'))"), ev("return string.sub(redis.call('info', 'server'), 1, 9)"),
	ev("return redis.call('command', 'count') > 100"), ev("return redis.call('command', 'getkeys', 'set', 'a', 'b')"),
	ev("return redis.call('command', 'info', 'get')[1][1]"), ev("return redis.call('slowlog', 'reset')"),
	ev("return redis.call('slowlog', 'len')"), ev("return redis.call('memory', 'purge')"),
	ev("return redis.call('memory', 'malloc-stats') ~= nil"), ev("return redis.call('pubsub', 'help')[1]"),
	ev("return redis.call('config', 'get', 'maxmemory')"), ev("return redis.call('client', 'id')"),
}

// Scripts answer the same on ruvio as on redis-server 7, in RESP2 and
// RESP3: conversions both ways, every error text, flags, the _RO forms,
// NOSCRIPT and the SCRIPT subcommands.
func TestScriptRepliesMatchRedis(t *testing.T) {
	compareInBothProtocols(t, scriptCases, true, nil)
}

// compareInBothProtocols sends cmds to redis-server and to ruvio, in
// RESP2 and in RESP3 (subtests resp2 and resp3, each on fresh servers),
// and reports every reply that differs. noted counts the commands as
// exercised by the differential tests; sorted, when not nil, says which
// commands' replies are compared as sorted lists (an order Redis does
// not specify).
func compareInBothProtocols(t *testing.T, cmds [][]any, noted bool, sorted func(cmd []any) bool) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			r := startRedis(t, proto)
			s := startServer(t, nil)
			ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = proto })
			ctx := context.Background()
			for _, cmd := range cmds {
				wv, we := r.Do(ctx, cmd...).Result()
				gv, ge := ru.Do(ctx, cmd...).Result()
				if noted {
					noteExercised(cmd)
				}
				sortIt := sorted != nil && sorted(cmd)
				if want, got := render(wv, we, sortIt), render(gv, ge, sortIt); got != want {
					t.Errorf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
				}
			}
		})
	}
}

// Over maxmemory a script or function with flags runs when they say
// no-writes or allow-oom and is refused up front otherwise; a script
// without flags runs and its writes are refused, as in Redis.
func TestScriptsOverMaxmemoryMatchRedis(t *testing.T) {
	lib := "#!lua name=oomlib\n" +
		"redis.register_function{function_name='ro', callback=function() return redis.call('get', 'x') end, flags={'no-writes'}}\n" +
		"redis.register_function('rw', function() return redis.call('set', 'x', '1') end)"
	cmds := [][]any{
		{"FUNCTION", "LOAD", "REPLACE", lib},
		{"CONFIG", "SET", "maxmemory", "1"},
		ev("#!lua flags=no-writes\nreturn 1"), ev("#!lua flags=no-writes\nreturn redis.call('get', 'x')"),
		ev("#!lua\nreturn 1"), ev("#!lua flags=allow-oom\nreturn redis.call('set', 'x', '1')"),
		ev("return 1"), ev("return redis.call('set', 'y', '1')"),
		{"FCALL", "ro", 0}, {"FCALL_RO", "ro", 0}, {"FCALL", "rw", 0},
		{"CONFIG", "SET", "maxmemory", "0"},
		{"FCALL", "rw", 0},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}

// cjson's configuration functions answer and act as lua-cjson's do in
// Redis: each script sets what it needs and restores the defaults, as
// Redis's own JSON smoke test does.
func TestCJSONConfigLikeRedis(t *testing.T) {
	restore := " cjson.decode_max_depth(1000) cjson.encode_max_depth(1000) cjson.encode_invalid_numbers(false)" +
		" cjson.decode_invalid_numbers(true) cjson.encode_number_precision(14) cjson.encode_sparse_array(false, 2, 10)" +
		" cjson.encode_keep_buffer(true) "
	scripts := []string{
		"return {cjson.encode_keep_buffer(), cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}",
		"return {tostring(cjson.encode_invalid_numbers()), tostring(cjson.decode_invalid_numbers()), cjson.encode_sparse_array()}",
		"local r = {tostring(cjson.encode_keep_buffer(false)), cjson.encode({1, 2})}" + restore + "return r",
		"cjson.encode_max_depth(1) local ok, e = pcall(cjson.encode, {a = {1}})" + restore + "return {tostring(ok), e}",
		"cjson.decode_max_depth(1) local ok, e = pcall(cjson.decode, '{\"obj\": {\"array\": [1,2,3,4]}}')" + restore + "return {tostring(ok), e}",
		"local ok, e = pcall(cjson.encode, {num1 = 0/0}) return {tostring(ok), e}",
		"cjson.encode_invalid_numbers(true) local a = cjson.encode({0/0, 1/0, -1/0})" + restore + "return a",
		"cjson.encode_invalid_numbers('null') local a = cjson.encode({0/0, 1/0})" + restore + "return a",
		"local r = tostring(cjson.encode_invalid_numbers('null'))" + restore + "return r",
		"cjson.encode_number_precision(3) local a = cjson.encode({3.14159, 1/3})" + restore + "return a",
		"local ok, e = pcall(cjson.encode_number_precision, 15) return e",
		"local ok, e = pcall(cjson.encode_max_depth, 0) return e",
		"local ok, e = pcall(cjson.encode_keep_buffer, 'maybe') return e",
		"local ok, e = pcall(cjson.encode_keep_buffer, true, 1) return e",
		"cjson.decode_invalid_numbers(false) local ok, e = pcall(cjson.decode, '[0x10]') local ok2, e2 = pcall(cjson.decode, '[01]')" +
			" local ok3, e3 = pcall(cjson.decode, '[nan]') local ok4, v4 = pcall(cjson.decode, '[-1.5e3]')" + restore + "return {e, e2, e3, v4[1]}",
		"local ok, e = pcall(cjson.encode, {[1] = 1, [20] = 2}) return e",
		"cjson.encode_sparse_array(true) local a = cjson.encode({[1] = 1, [20] = 2})" + restore + "return a",
		"cjson.encode_sparse_array(false, 0) local a = cjson.encode({[1] = 1, [20] = 2})" + restore + "return a",
		"cjson.encode_sparse_array('on', 3, 30) local a = cjson.encode({[1] = 1, [40] = 2})" + restore + "return a",
	}
	var steps []step
	for _, sc := range scripts {
		steps = append(steps, do("EVAL", sc, "0"))
	}
	compareSteps(t, 2, steps)
}

// An error a library function (cjson, cmsgpack, bit, struct) raises
// carries the position of the script line that called it, and none when
// pcall called it, as Lua 5.1's luaL_error gives it in Redis; a bad
// argument names the function as its caller did, '?' from pcall.
func TestLibraryErrorPositionsLikeRedis(t *testing.T) {
	var steps []step
	for _, call := range [][2]string{{"cjson.encode", "{0/0}"}, {"cjson.decode", "'['"}, {"bit.tohex", ""},
		{"cmsgpack.unpack", ""}, {"struct.pack", "'i99'"}, {"cjson.encode_max_depth", "0"},
		{"cjson.encode_keep_buffer", "'maybe'"}} {
		fn, args := call[0], call[1]
		direct := fn
		if args != "" {
			direct += ", " + args
		}
		steps = append(steps,
			do("EVAL", "local ok, e = pcall("+direct+") return e", "0"),
			do("EVAL", "local ok, e = pcall(function() return "+fn+"("+args+") end) return e", "0"),
		)
	}
	steps = append(steps, do("EVAL", "return cjson.encode({0/0})", "0"), do("EVAL", "return bit.tohex()", "0"))
	compareSteps(t, 2, steps)
}

// A script calling a subcommand Redis flags noscript, which ruvio does
// not serve (CLUSTER RESET), gets Redis's "not allowed" error; an unknown
// subcommand is an unknown command, as in Redis.
func TestScriptsCallingNoscriptSubcommandsLikeRedis(t *testing.T) {
	compareSteps(t, 2, []step{
		do("EVAL", "return redis.pcall('cluster', 'reset')", "0"),
		do("EVAL", "return redis.pcall('cluster', 'reset', 'hard')", "0"),
		do("EVAL", "return redis.pcall('cluster', 'nosuchsub')", "0"),
		do("EVAL", "return redis.call('cluster', 'reset')", "0"),
	})
}
