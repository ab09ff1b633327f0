package server

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"
)

// COMMAND GETKEYS answers as redis-server 7 does: the keys of commands of
// every family, including those whose key count is an argument, and the
// errors for an unknown command, one without keys and a bad arity.
func TestCommandGetKeysMatchRedis(t *testing.T) {
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"COMMAND", "GETKEYS", "SET", "k", "v"},
		{"COMMAND", "GETKEYS", "GET", "k"},
		{"COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2", "c", "3"},
		{"COMMAND", "GETKEYS", "MGET", "a", "b", "c"},
		{"COMMAND", "GETKEYS", "DEL", "a", "b"},
		{"COMMAND", "GETKEYS", "RENAME", "a", "b"},
		{"COMMAND", "GETKEYS", "LMOVE", "src", "dst", "LEFT", "RIGHT"},
		{"COMMAND", "GETKEYS", "SINTERCARD", "2", "s1", "s2", "LIMIT", "3"},
		{"COMMAND", "GETKEYS", "ZUNIONSTORE", "dst", "2", "z1", "z2", "WEIGHTS", "1", "2"},
		{"COMMAND", "GETKEYS", "LMPOP", "2", "l1", "l2", "LEFT"},
		{"COMMAND", "GETKEYS", "XREAD", "COUNT", "2", "STREAMS", "s1", "s2", "0", "0"},
		{"COMMAND", "GETKEYS", "HSET", "h", "f", "v"},
		{"COMMAND", "GETKEYS", "PING"},
		{"COMMAND", "GETKEYS", "NOSUCHCOMMAND", "k"},
		{"COMMAND", "GETKEYS", "GET"},
		{"COMMAND", "GETKEYS", "SET", "k"},
		{"COMMAND", "GETKEYS", "GET", "a", "b"},
		{"COMMAND", "GETKEYS", "PING", "hello"},
		{"COMMAND", "GETKEYS", "ECHO", "hello"},
	} {
		noteExercised(cmd)
		wv, we := r.Do(ctx, cmd...).Result()
		gv, ge := ru.Do(ctx, cmd...).Result()
		if want, got := render(wv, we, false), render(gv, ge, false); got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
		}
	}
}

// getKeysAndFlagsLines are command lines of every family, with keys found
// at fixed positions, through a key count or a keyword, with flags that
// depend on the arguments, and lines Redis refuses.
var getKeysAndFlagsLines = [][]any{
	{"SET", "k", "v"},
	{"SET", "k", "v", "EX", "10", "GET"},
	{"SET", "k", "v", "NX"},
	{"GET", "k"},
	{"GETEX", "k", "PERSIST"},
	{"GETDEL", "k"},
	{"APPEND", "k", "v"},
	{"INCRBYFLOAT", "k", "1.5"},
	{"MSET", "a", "1", "b", "2"},
	{"MSETNX", "a", "1", "b", "2"},
	{"MGET", "a", "b"},
	{"LCS", "a", "b", "LEN"},
	{"DEL", "a", "b"},
	{"UNLINK", "a", "b"},
	{"EXISTS", "a", "b"},
	{"TOUCH", "a"},
	{"TYPE", "a"},
	{"EXPIRE", "a", "10"},
	{"PEXPIRETIME", "a"},
	{"RENAME", "a", "b"},
	{"RENAMENX", "a", "b"},
	{"COPY", "a", "b", "REPLACE"},
	{"DUMP", "a"},
	{"RESTORE", "a", "0", "x"},
	{"OBJECT", "ENCODING", "a"},
	{"MEMORY", "USAGE", "a"},
	{"SORT", "k"},
	{"SORT", "k", "BY", "w_*", "GET", "#", "STORE", "dst"},
	{"SORT_RO", "k", "GET", "o_*"},
	{"HSET", "h", "f", "v"},
	{"HSETNX", "h", "f", "v"},
	{"HGETALL", "h"},
	{"HDEL", "h", "f"},
	{"HLEN", "h"},
	{"LPUSH", "l", "a"},
	{"LPOP", "l"},
	{"LSET", "l", "0", "v"},
	{"LMOVE", "src", "dst", "LEFT", "RIGHT"},
	{"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"},
	{"RPOPLPUSH", "src", "dst"},
	{"BLPOP", "l1", "l2", "0"},
	{"LMPOP", "2", "l1", "l2", "LEFT"},
	{"BLMPOP", "0", "2", "l1", "l2", "LEFT", "COUNT", "2"},
	{"SADD", "s", "m"},
	{"SREM", "s", "m"},
	{"SMOVE", "s1", "s2", "m"},
	{"SINTER", "s1", "s2"},
	{"SINTERSTORE", "dst", "s1", "s2"},
	{"SUNIONSTORE", "dst", "s1", "s2"},
	{"SINTERCARD", "2", "s1", "s2", "LIMIT", "3"},
	{"SPOP", "s"},
	{"ZADD", "z", "1", "m"},
	{"ZINCRBY", "z", "1", "m"},
	{"ZRANGESTORE", "dst", "z", "0", "-1"},
	{"ZUNIONSTORE", "dst", "2", "z1", "z2", "WEIGHTS", "1", "2"},
	{"ZDIFF", "2", "z1", "z2"},
	{"ZINTERCARD", "2", "z1", "z2"},
	{"ZMPOP", "2", "z1", "z2", "MIN"},
	{"BZMPOP", "0", "2", "z1", "z2", "MAX"},
	{"BZPOPMIN", "z1", "z2", "0"},
	{"ZREMRANGEBYSCORE", "z", "0", "1"},
	{"SETBIT", "b", "0", "1"},
	{"BITCOUNT", "b"},
	{"BITOP", "AND", "dst", "b1", "b2"},
	{"BITFIELD", "b", "GET", "u8", "0"},
	{"BITFIELD", "b", "SET", "u8", "0", "1"},
	{"BITFIELD", "b", "OVERFLOW", "WRAP", "GET", "u8", "0"},
	{"BITFIELD_RO", "b", "GET", "u8", "0"},
	{"PFADD", "h", "a"},
	{"PFCOUNT", "h1", "h2"},
	{"PFMERGE", "dst", "h1", "h2"},
	{"GEOADD", "g", "1", "2", "m"},
	{"GEORADIUS", "g", "1", "2", "3", "km"},
	{"GEORADIUS", "g", "1", "2", "3", "km", "STORE", "dst"},
	{"GEORADIUSBYMEMBER", "g", "m", "3", "km", "STOREDIST", "dst"},
	{"GEOSEARCHSTORE", "dst", "g", "FROMMEMBER", "m", "BYRADIUS", "1", "km"},
	{"XADD", "s", "*", "f", "v"},
	{"XREAD", "COUNT", "2", "STREAMS", "s1", "s2", "0", "0"},
	{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", ">"},
	{"XREAD", "STREAMS", "s1", "s2", "0"},
	{"PFMERGE", "dst"},
	{"XGROUP", "CREATE", "s", "g", "$"},
	{"XINFO", "STREAM", "s"},
	{"XTRIM", "s", "MAXLEN", "0"},
	{"XAUTOCLAIM", "s", "g", "c", "0", "0"},
	{"WATCH", "a", "b"},
	{"SPUBLISH", "ch", "msg"},
	{"PING"},
	{"CONFIG", "GET", "maxmemory"},
	{"NOSUCHCOMMAND", "k"},
	{"GET"},
	{"GET", "a", "b"},
	{"ZUNIONSTORE", "dst", "x", "z1"},
	{"LMPOP", "3", "l1", "LEFT"},
}

// COMMAND GETKEYSANDFLAGS answers as redis-server 7 does, and names the
// same keys as ruvio's COMMAND GETKEYS.
func TestCommandGetKeysAndFlagsMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		r := startRedis(t, proto)
		ru := client(t, startServer(t, nil), 0, func(o *redis.Options) { o.Protocol = proto })
		ctx := context.Background()
		for _, line := range getKeysAndFlagsLines {
			cmd := append([]any{"COMMAND", "GETKEYSANDFLAGS"}, line...)
			noteExercised(cmd)
			wv, we := r.Do(ctx, cmd...).Result()
			gv, ge := ru.Do(ctx, cmd...).Result()
			if want, got := render(wv, we, false), render(gv, ge, false); got != want {
				t.Errorf("RESP%d %q\n  redis: %s\n  ruvio: %s", proto, cmd, want, got)
			}
			kv, ke := ru.Do(ctx, append([]any{"COMMAND", "GETKEYS"}, line...)...).Result()
			var keys []any
			if flagged, ok := gv.([]any); ok {
				for _, kf := range flagged {
					keys = append(keys, kf.([]any)[0])
				}
			}
			if ge == nil && render(kv, ke, false) != render(keys, nil, false) {
				t.Errorf("%q: GETKEYS %s, GETKEYSANDFLAGS's keys %s", line, render(kv, ke, false), render(keys, nil, false))
			}
		}
	}
}

// GETKEYS and GETKEYSANDFLAGS answer as redis-server 7 does for the
// commands the differential tests of every family draw, valid or not.
func TestGetKeysOfDrawnCommandsMatchRedis(t *testing.T) {
	r := startRedis(t, 3)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	gens := []func(*rapid.T) []any{diffCommand, bitmapCommand, algebraCommand, hllCommand, keysCommand,
		objectCommand, sortCommand, streamCommand, func(t *rapid.T) []any { return geoDraw(t, 3) }}
	rapid.Check(t, func(rt *rapid.T) {
		line := rapid.SampledFrom(gens).Draw(rt, "family")(rt)
		for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
			cmd := append([]any{"COMMAND", sub}, line...)
			wv, we := r.Do(ctx, cmd...).Result()
			gv, ge := ru.Do(ctx, cmd...).Result()
			if want, got := render(wv, we, false), render(gv, ge, false); got != want {
				rt.Fatalf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
			}
		}
	})
}
