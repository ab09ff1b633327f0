package server

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/internal/poll"
)

// startRedis runs Debian's redis-server for a differential test, with
// extra arguments if any, or skips when it is not installed (CI installs
// it).
func startRedis(t *testing.T, proto int, extra ...string) *redis.Client {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed in CI")
		}
		t.Skip("redis-server not installed: the differential test needs it")
	}
	port := freePorts(t, 1)
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}
	cmd := exec.Command(bin, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: proto})
	t.Cleanup(func() { c.Close() })
	poll.Until(t, 10*time.Second, "redis-server to answer", func() bool { return c.Ping(context.Background()).Err() == nil })
	return c
}

// unordered commands answer collections whose order is not specified:
// their replies are compared as sorted lists.
var unordered = map[string]bool{"smembers": true, "sinter": true, "sunion": true, "sdiff": true, "hkeys": true,
	"hvals": true, "hgetall": true, "keys": true}

// render turns a reply into comparable text.
func render(v any, err error, sortIt bool) string {
	if err != nil {
		if err == redis.Nil {
			return "(nil)"
		}
		return "ERR:" + err.Error()
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e, nil, false)
		}
		if sortIt {
			sort.Strings(parts)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case nil:
		return "(nil)"
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// diffCommand draws a deterministic command over a few keys of every type.
func diffCommand(t *rapid.T) []any {
	k := "k" + strconv.Itoa(rapid.IntRange(0, 4).Draw(t, "k"))
	k2 := "k" + strconv.Itoa(rapid.IntRange(0, 4).Draw(t, "k2"))
	v := rapid.SampledFrom([]string{"a", "b", "", "10", "-3", "1.5", "x y"}).Draw(t, "v")
	n := strconv.Itoa(rapid.IntRange(-3, 5).Draw(t, "n"))
	cmds := [][]any{
		{"SET", k, v}, {"SET", k, v, "NX"}, {"SET", k, v, "XX", "GET"}, {"GET", k}, {"GETSET", k, v}, {"GETDEL", k},
		{"APPEND", k, v}, {"STRLEN", k}, {"INCR", k}, {"INCRBY", k, n}, {"DECR", k}, {"INCRBYFLOAT", k, "0.5"},
		{"GETRANGE", k, n, "-1"}, {"SETRANGE", k, "1", v}, {"SETNX", k, v}, {"MSETNX", k, v},
		{"DEL", k}, {"EXISTS", k, k2}, {"TYPE", k}, {"RENAME", k, k2}, {"RENAMENX", k, k2}, {"PERSIST", k},
		{"HSET", k, v, n}, {"HGET", k, v}, {"HDEL", k, v}, {"HLEN", k}, {"HINCRBY", k, v, n}, {"HEXISTS", k, v},
		{"HGETALL", k}, {"HKEYS", k}, {"HSETNX", k, v, n}, {"HSTRLEN", k, v}, {"HMGET", k, v, "zz"},
		{"LPUSH", k, v}, {"RPUSH", k, v, v}, {"LPOP", k}, {"RPOP", k, "2"}, {"LRANGE", k, n, "-1"}, {"LLEN", k},
		{"LINDEX", k, n}, {"LSET", k, n, v}, {"LREM", k, n, v}, {"LTRIM", k, n, "3"}, {"LINSERT", k, "BEFORE", v, "z"},
		{"LPOS", k, v}, {"LMOVE", k, k2, "LEFT", "RIGHT"},
		{"SADD", k, v, "m"}, {"SREM", k, v}, {"SMEMBERS", k}, {"SISMEMBER", k, v}, {"SCARD", k}, {"SMISMEMBER", k, v, "m"},
		{"SINTER", k, k2}, {"SUNION", k, k2}, {"SDIFF", k, k2}, {"SMOVE", k, k2, v}, {"SINTERSTORE", k, k, k2},
		{"ZADD", k, n, v}, {"ZADD", k, "XX", "CH", n, v}, {"ZINCRBY", k, "2", v}, {"ZSCORE", k, v}, {"ZCARD", k},
		{"ZRANGE", k, "0", "-1", "WITHSCORES"}, {"ZRANGE", k, "(0", "+inf", "BYSCORE"}, {"ZRANK", k, v},
		{"ZREVRANGE", k, "0", n}, {"ZCOUNT", k, "-inf", n}, {"ZREM", k, v}, {"ZPOPMIN", k}, {"ZREMRANGEBYRANK", k, "0", n},
		{"ZRANGEBYLEX", k, "-", "+"}, {"ZMSCORE", k, v, "m"},
		// PEXPIRE GT asks for less than the 100 s every other TTL here
		// sets: with an equal time the answer would depend on whether
		// both servers saw the same millisecond.
		{"EXPIRE", k, "100"}, {"TTL", k}, {"EXPIRE", k, "100", "NX"}, {"PEXPIRE", k, "50000", "GT"},
		{"NOSUCHCOMMAND", k}, {"GET"}, {"SET", k}, {"HSET", k, v}, {"LPOP", k, "-1"}, {"INCRBY", k, "x"},
		{"LPUSHX", k, v}, {"RPUSHX", k, v}, {"HINCRBYFLOAT", k, v, "1.25"}, {"ZADD", k, "GT", "CH", n, v},
		{"ZADD", k, "LT", "INCR", n, v}, {"ZADD", k, "NX", "XX", n, v}, {"ZRANGESTORE", k2, k, "0", "-1"},
		{"GETEX", k, "PERSIST"}, {"MGET", k, k2, "zz"}, {"MSET", k, v, k2, v}, {"SETEX", k, "100", v},
		{"ZREVRANK", k, v}, {"ZRANGEBYSCORE", k, "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2"},
		{"ZREMRANGEBYSCORE", k, "(1", n}, {"ZLEXCOUNT", k, "[a", "+"}, {"ZPOPMAX", k, "2"}, {"SINTERCARD", "2", k, k2},
		{"SUNIONSTORE", k2, k, k2}, {"SDIFFSTORE", k, k2, k}, {"BLPOP", k, "0.01"}, {"LRANGE", k, "0", "-1"},
		{"BLMOVE", k, k2, "LEFT", "RIGHT", "0.01"}, {"BRPOPLPUSH", k, k2, "0.01"},
		{"ECHO", v}, {"PING", v}, {"EXISTS", k}, {"UNLINK", k, k2}, {"TOUCH", k}, {"DBSIZE"},
		// Scripts over the same keys: conversions of every reply kind,
		// errors raised and caught, the cache shared by EVAL and EVALSHA.
		{"EVAL", "return redis.call('get', KEYS[1])", 1, k},
		{"EVAL", "redis.call('set', KEYS[1], ARGV[1]) return redis.call('strlen', KEYS[1])", 1, k, v},
		{"EVAL", "return redis.pcall('incr', KEYS[1])", 1, k}, {"EVAL", "return redis.call('incrby', KEYS[1], ARGV[1])", 1, k, n},
		{"EVAL", "return redis.call('type', KEYS[1]).ok", 1, k}, {"EVAL", "return redis.call('lrange', KEYS[1], 0, -1)", 1, k},
		{"EVAL", "return redis.call('rpush', KEYS[1], ARGV[1], ARGV[2])", 2, k, k2, v, n},
		{"EVAL", "return redis.call('exists', KEYS[1], KEYS[2])", 2, k, k2},
		{"EVALSHA", "91e7c8a32d12549229b6e1a2824fdcfbd25e8c98", 2, k, k2},
		{"EVAL_RO", "return redis.call('zrange', KEYS[1], 0, -1, 'WITHSCORES')", 1, k},
		{"EVAL_RO", "return redis.call('del', KEYS[1])", 1, k},
		{"EVAL", "local r = redis.call('hget', KEYS[1], ARGV[1]) if r then return r end return {err='none'}", 1, k, v},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// Real Redis clients must not notice: the same random command sequences
// sent to redis-server 7 and to ruvio get the same replies, in RESP2 and
// RESP3.
func TestRepliesMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareWithRedis(t, proto) })
	}
}

func compareWithRedis(t *testing.T, proto int) {
	compareSequences(t, proto, diffCommand, 40, unordered)
}

// compareSequences sends the same random sequences of up to maxLen
// commands drawn by gen to redis-server and to ruvio, and fails on the
// first reply that differs; the replies of commands in unordered are
// compared as sets.
func compareSequences(t *testing.T, proto int, gen func(*rapid.T) []any, maxLen int, unordered map[string]bool) {
	r := startRedis(t, proto)
	s := startServer(t, nil)
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = proto })
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		r.FlushAll(ctx)
		ru.FlushAll(ctx)
		for i, n := 0, rapid.IntRange(1, maxLen).Draw(rt, "len"); i < n; i++ {
			cmd := gen(rt)
			name := strings.ToLower(fmt.Sprint(cmd[0]))
			wv, we := r.Do(ctx, cmd...).Result()
			gv, ge := ru.Do(ctx, cmd...).Result()
			wv, gv = normalizeReply(cmd, wv), normalizeReply(cmd, gv)
			noteExercised(cmd)
			want, got := render(wv, we, unordered[name]), render(gv, ge, unordered[name])
			if got != want {
				rt.Fatalf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
			}
		}
	})
}
