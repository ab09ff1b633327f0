package server

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// lib is FUNCTION LOAD of a library named name whose body follows the
// shebang.
func lib(name, body string) []any {
	return []any{"FUNCTION", "LOAD", "#!lua name=" + name + "\n" + body}
}

// functionCases load, call, list and drop libraries. FUNCTION LIST of
// several libraries is compared sorted (Redis lists them in hash order),
// so a library listed beside others registers one function.
var functionCases = [][]any{
	{"FUNCTION", "FLUSH"},
	// Metadata and names.
	{"FUNCTION", "LOAD", "redis.register_function('f', function() return 1 end)"},
	{"FUNCTION", "LOAD", "#!lua name=x foo=bar\nreturn 1"}, {"FUNCTION", "LOAD", "#!lua name=x"},
	{"FUNCTION", "LOAD", "#!lua name=x name=y\nreturn 1"}, {"FUNCTION", "LOAD", "#!lua\nreturn 1"},
	{"FUNCTION", "LOAD", "#!lua name=a-b\nreturn 1"}, {"FUNCTION", "LOAD", "#!lua name=\nreturn 1"},
	{"FUNCTION", "LOAD", "#!foo name=x\nreturn 1"}, {"FUNCTION", "LOAD", "#!lua name=x\nreturn 1"},
	{"FUNCTION", "LOAD", "#!lua name=x\nreturn 1 +"}, {"FUNCTION", "LOAD", "#!lua name=x\nlocal t = {"},
	{"FUNCTION", "LOAD", "foo", "#!lua name=x\nreturn 1"}, {"FUNCTION", "LOAD"},
	// The load API kept in a local works only while the library loads.
	lib("kept", "local lib = redis\nlib.register_function('kf1', function() return {ok='OK'} end)\n"+
		"lib.register_function('kf2', function() lib.register_function('kf3', function() return 1 end) end)"),
	{"FCALL", "kf2", 0}, {"FCALL", "kf3", 0}, {"FCALL", "kf1", 0}, {"FUNCTION", "DELETE", "kept"},
	// What the load run may do.
	lib("x", "redis.register_function('f2', function() return 1 end)\nredis.register_function('f2', function() return 1 end)"),
	lib("x", "redis.call('ping')"), lib("x", "x = 1"), lib("x", "local x = string.format('a')"),
	lib("x", "redis.setresp(3)"), lib("x", "redis.register_function('a', function() end) return redis.sha1hex('x')"),
	lib("x", "redis.register_function('f-2', function() return 1 end)"), lib("x", "redis.register_function(1, 2)"),
	lib("x", "redis.register_function('a')"), lib("x", "redis.register_function({function_name='a'})"),
	lib("x", "redis.register_function({callback=function() end})"),
	lib("x", "redis.register_function({function_name='a', callback=function() end, flags={'bad'}})"),
	lib("x", "redis.register_function({function_name='a', callback=function() end, flags='x'})"),
	lib("x", "redis.register_function({function_name='a', callback=function() end, foo=1})"),
	lib("x", "redis.register_function({function_name='a', callback=1})"),
	lib("x", "redis.register_function({function_name={}, callback=function() end})"),
	lib("x", "redis.register_function({function_name='a', callback=function() end, description={}})"),
	lib("x", "redis.register_function()"), lib("x", "redis.register_function(1,2,3)"),
	lib("x", "redis.register_function('a', function() end) error('boom')"),
	lib("x", "redis.register_function({[1]='a'})"),
	lib("x", "while true do end"),
	// Libraries that load.
	lib("lib1", "redis.register_function('f1', function(keys, args) return redis.call('set', keys[1], args[1]) end)"),
	lib("lib1", "redis.register_function('other', function() return 1 end)"),
	{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return redis.call('set', keys[1], args[1]) end)"},
	lib("lib2", "redis.register_function('f1', function() return 1 end)"),
	lib("lib2", "redis.register_function{function_name='ro2', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}, description='reads'}"),
	{"FUNCTION", "LOAD", "#!LUA NAME=lib3\nredis.register_function{function_name='flags3', callback=function() return 3 end, flags={'ALLOW-OOM', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}"},
	lib("lib4", "local function helper(x) return x .. '!' end\n"+
		"redis.register_function('t4', function(k, a) return {1, 'two', {3}, redis.status_reply('OK'), helper(a[1] or 'none')} end)\n"+
		"redis.register_function('err4', function(k, a) return redis.call('nosuch') end)\n"+
		"redis.register_function('glob4', function(k, a) return nosuchglobal end)\n"+
		"redis.register_function('boom4', function(k, a) error('boom') end)\n"+
		"redis.register_function('set4', function(k, a) x = 1 end)\n"+
		"redis.register_function('keys4', function(k, a) return {#k, #a, KEYS} end)\n"+
		"redis.register_function('resp4', function(k, a) redis.setresp(3) return redis.call('hgetall', k[1]) end)\n"+
		"redis.register_function('pcall4', function(k, a) return redis.pcall('incr', k[1]) end)\n"+
		"redis.register_function('log4', function(k, a) redis.log(redis.LOG_NOTICE, 'from a function') return redis.REDIS_VERSION ~= nil end)\n"+
		"redis.register_function('fcall4', function(k, a) return redis.call('fcall', 'f1', 0) end)"),
	// FCALL and FCALL_RO.
	{"FCALL", "f1", 1, "{k}a", "v"}, {"FCALL", "ro2", 1, "{k}a"}, {"FCALL_RO", "ro2", 1, "{k}a"},
	{"FCALL_RO", "f1", 1, "{k}a", "w"}, {"GET", "{k}a"}, {"FCALL", "flags3", 0}, {"FCALL_RO", "flags3", 0},
	{"FCALL", "t4", 0}, {"FCALL", "t4", 0, "arg"}, {"FCALL", "err4", 0}, {"FCALL", "glob4", 0}, {"FCALL", "boom4", 0},
	{"FCALL", "set4", 0}, {"FCALL", "keys4", 2, "{k}a", "{k}b", "c"}, {"HSET", "{k}h", "f", "v"}, {"FCALL", "resp4", 1, "{k}h"},
	{"FCALL", "pcall4", 1, "{k}a"}, {"FCALL", "log4", 0}, {"FCALL", "fcall4", 0},
	{"FCALL", "nosuch", 0}, {"FCALL_RO", "nosuch", 0}, {"FCALL", "ro2", "x"}, {"FCALL", "ro2", 5, "a"},
	{"FCALL", "ro2", -1}, {"FCALL", "ro2"}, {"FCALL", "F1", 1, "{k}a", "v"},
	// LIST, DELETE, FLUSH, STATS, KILL, HELP.
	// Names: functions match without regard to case, libraries do not.
	lib("LIB4", "redis.register_function('T4', function() return 1 end)"), lib("Lib5", "redis.register_function('f5', function() return 5 end)"),
	{"FCALL", "F5", 0}, {"FUNCTION", "DELETE", "lib5"},
	// LIST, DELETE, FLUSH, STATS, KILL, HELP.
	{"FUNCTION", "STATS"}, {"FUNCTION", "KILL"}, {"FUNCTION", "HELP"}, {"FUNCTION", "DELETE", "nosuch"},
	{"FUNCTION", "DELETE"}, {"FUNCTION", "DELETE", "lib4"}, {"FCALL", "t4", 0}, {"FUNCTION", "STATS"},
	{"FUNCTION", "LIST"}, {"FUNCTION", "LIST", "WITHCODE"}, {"FUNCTION", "LIST", "LIBRARYNAME", "lib2"},
	{"FUNCTION", "LIST", "libraryname", "LIB*", "withcode"}, {"FUNCTION", "LIST", "LIBRARYNAME", "lib[13]"},
	{"FUNCTION", "LIST", "LIBRARYNAME", ""}, {"FUNCTION", "LIST", "LIBRARYNAME"}, {"FUNCTION", "LIST", "foo"},
	{"FUNCTION", "LIST", "WITHCODE", "WITHCODE"}, {"FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b"},
	{"FUNCTION", "FLUSH", "foo"}, {"FUNCTION", "FLUSH", "ASYNC"}, {"FUNCTION", "LIST"}, {"FCALL", "f1", 0},
	{"FUNCTION", "FLUSH", "sync"}, {"FUNCTION", "STATS"}, {"FUNCTION", "nosuch"}, {"FUNCTION"},
	{"FUNCTION", "RESTORE", "foo"}, {"FUNCTION", "RESTORE", "foo", "bar"}, {"FUNCTION", "DUMP"},
	{"FUNCTION", "RESTORE", "a", "b", "c"}, {"FUNCTION", "FLUSH", "sync", "extra"}, {"FUNCTION", "FLUSH", "a", "b"},
}

// FUNCTION and FCALL answer the same on ruvio as on redis-server 7, in
// RESP2 and RESP3: every load error, the load run's sandbox, the table
// form and flags, FCALL's conversions and errors, FCALL_RO's refusals
// and the shapes of LIST and STATS.
func TestFunctionRepliesMatchRedis(t *testing.T) {
	compareInBothProtocols(t, functionCases, true, func(cmd []any) bool {
		return strings.EqualFold(fmt.Sprint(cmd[0]), "function") && len(cmd) > 1 && strings.EqualFold(fmt.Sprint(cmd[1]), "list")
	})
}

// A FUNCTION DUMP of redis-server restores on ruvio and one of ruvio on
// redis-server, under each policy, and both then list the same
// libraries and answer FCALL alike.
func TestFunctionDumpRestoreAcrossServers(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	long := strings.Repeat("-- a comment long enough that redis-server compresses the library\n", 20)
	load := func(c *redis.Client, name, fn string, ret int) {
		t.Helper()
		code := fmt.Sprintf("#!lua name=%s\n%sredis.register_function('%s', function() return %d end)", name, long, fn, ret)
		if err := c.FunctionLoadReplace(ctx, code).Err(); err != nil {
			t.Fatal(err)
		}
	}
	same := func(cmd ...any) {
		t.Helper()
		wv, we := r.Do(ctx, cmd...).Result()
		gv, ge := ru.Do(ctx, cmd...).Result()
		if want, got := render(wv, we, true), render(gv, ge, true); got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
		}
	}
	load(r, "fromredis", "fr", 1)
	load(ru, "fromruvio", "fu", 2)
	rdump, err := r.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	udump, err := ru.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		c       *redis.Client
		payload string
		policy  string
	}{{ru, rdump, "APPEND"}, {r, udump, "APPEND"}} {
		if err := step.c.Do(ctx, "FUNCTION", "RESTORE", step.payload, step.policy).Err(); err != nil {
			t.Fatalf("RESTORE %s: %v", step.policy, err)
		}
	}
	same("FUNCTION", "LIST", "WITHCODE")
	same("FCALL", "fr", 0)
	same("FCALL", "fu", 0)
	// Collisions, then the other policies, with the same payloads on both.
	same("FUNCTION", "RESTORE", rdump)
	same("FUNCTION", "RESTORE", rdump, "REPLACE")
	load(r, "clash", "other", 3)
	load(ru, "clash", "other", 3)
	same("FUNCTION", "DELETE", "fromredis")
	same("FUNCTION", "LOAD", "#!lua name=clash2\nredis.register_function('fr', function() return 9 end)")
	same("FUNCTION", "RESTORE", rdump, "REPLACE")
	same("FUNCTION", "RESTORE", rdump, "FLUSH")
	same("FUNCTION", "LIST")
	same("FUNCTION", "RESTORE", rdump[:len(rdump)-1]+"x")
	same("FUNCTION", "RESTORE", "\x00\x03abc\x0a\x00"+rdump[len(rdump)-8:])
	same("FUNCTION", "FLUSH")
	edump, _ := r.FunctionDump(ctx).Result()
	same("FUNCTION", "RESTORE", edump)
	same("FUNCTION", "LIST")
}

// COMMAND INFO and COMMAND GETKEYS of FCALL, FCALL_RO and FUNCTION's
// subcommands are Redis 7.0's: arity, flags, ACL categories, tips and key
// specs (keys by numkeys). FUNCTION itself is left out: Redis lists its
// subcommands in hash order, and ruvio gives a container the union of
// its subcommands' categories (see commandTable).
func TestFunctionCommandInfoMatchesRedis(t *testing.T) {
	cmds := [][]any{{"COMMAND", "INFO", "fcall", "fcall_ro"},
		{"COMMAND", "GETKEYS", "FCALL", "f", 2, "a", "b", "c"}, {"COMMAND", "GETKEYS", "FCALL_RO", "f", 0, "a"},
		{"COMMAND", "GETKEYSANDFLAGS", "FCALL", "f", 1, "a", "b"}, {"COMMAND", "GETKEYSANDFLAGS", "FCALL_RO", "f", 1, "a"}}
	for _, sub := range []string{"load", "delete", "list", "flush", "dump", "restore", "stats", "kill", "help"} {
		cmds = append(cmds, []any{"COMMAND", "INFO", "function|" + sub})
	}
	compareInBothProtocols(t, cmds, false, nil)
}

// FUNCTION LIST answers byte for byte as Redis, in RESP2 and RESP3: a
// function's flags are simple strings.
func TestFunctionListWireMatchesRedis(t *testing.T) {
	rc := startRedis(t, 2)
	s := startServer(t, nil)
	code := "#!lua name=lib1\nredis.register_function{function_name='f1', callback=function(k,a) return 1 end, flags={'no-writes','allow-stale'}}"
	bulk := func(p string) string { return "$" + strconv.Itoa(len(p)) + "\r\n" + p + "\r\n" }
	load := "*3\r\n" + bulk("FUNCTION") + bulk("LOAD") + bulk(code)
	for _, hello := range []string{"", "HELLO 3\r\n"} {
		req := hello + "FUNCTION FLUSH\r\n" + load + "FUNCTION LIST\r\nFUNCTION LIST WITHCODE\r\nFUNCTION FLUSH\r\n"
		want, _, err := rawExchange(rc.Options().Addr, req, 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := rawExchange(s.Addr(0), req, 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if hello != "" {
			// HELLO's reply names each server; compare from the flush on.
			want, got = want[bytes.Index(want, []byte("+OK")):], got[bytes.Index(got, []byte("+OK")):]
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%q\n  redis: %q\n  ruvio: %q", req, want, got)
		}
	}
}
