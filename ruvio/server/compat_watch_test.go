package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// WATCH fails a transaction exactly when redis-server's does: when the
// key was written meanwhile, or deleted by a flush, but not when a flush
// found it absent.
func TestWatchAnswersAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	cases := []struct {
		name         string
		setup, other [][]any
	}{
		{"absent key, FLUSHALL", nil, [][]any{{"FLUSHALL"}}},
		{"absent key, FLUSHDB", nil, [][]any{{"FLUSHDB"}}},
		{"present key, FLUSHALL", [][]any{{"SET", "k", "1"}}, [][]any{{"FLUSHALL"}}},
		{"present key, FLUSHDB", [][]any{{"SET", "k", "1"}}, [][]any{{"FLUSHDB"}}},
		{"absent key, SET", nil, [][]any{{"SET", "k", "1"}}},
		{"absent key, DEL of nothing", nil, [][]any{{"DEL", "k"}}},
		{"present key, read", [][]any{{"SET", "k", "1"}}, [][]any{{"GET", "k"}}},
		{"present key, EXPIRE", [][]any{{"SET", "k", "1"}}, [][]any{{"EXPIRE", "k", "100"}}},
		{"present key, RENAME away", [][]any{{"SET", "k", "1"}}, [][]any{{"RENAME", "k", "{k}2"}}},
		{"absent key, RENAME onto it", [][]any{{"SET", "{k}2", "1"}}, [][]any{{"RENAME", "{k}2", "k"}}},
		{"other key written", [][]any{{"SET", "k", "1"}}, [][]any{{"SET", "other", "1"}}},
		{"absent key, another key flushed", [][]any{{"SET", "other", "1"}}, [][]any{{"FLUSHALL"}}},
		// Writes that change nothing fail no WATCH in redis-server 7.0.
		{"SETBIT of the bit it has", [][]any{{"SET", "k", "v"}}, [][]any{{"SETBIT", "k", "1", "1"}, {"SETBIT", "k", "0", "0"}}},
		{"SETBIT that changes a bit", [][]any{{"SET", "k", "v"}}, [][]any{{"SETBIT", "k", "0", "1"}}},
		{"SETBIT that grows the string", [][]any{{"SET", "k", "v"}}, [][]any{{"SETBIT", "k", "8", "0"}}},
		{"BITFIELD writing the value there", [][]any{{"SET", "k", "v"}}, [][]any{{"BITFIELD", "k", "SET", "u8", "0", "118", "INCRBY", "u8", "0", "0"}}},
		{"BITFIELD that changes a field", [][]any{{"SET", "k", "v"}}, [][]any{{"BITFIELD", "k", "SET", "u8", "0", "1"}}},
		{"BITFIELD that grows the string", [][]any{{"SET", "k", "v"}}, [][]any{{"BITFIELD", "k", "SET", "u8", "8", "0"}}},
		{"BITFIELD whose write fails", [][]any{{"SET", "k", "v"}}, [][]any{{"BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "255"}}},
		{"XSETID", [][]any{{"XADD", "k", "5-1", "f", "v"}}, [][]any{{"XSETID", "k", "6-1"}}},
		{"empty SINTERSTORE over no key", [][]any{{"SADD", "{k}x", "a"}, {"SADD", "{k}y", "b"}}, [][]any{{"SINTERSTORE", "k", "{k}x", "{k}y"}, {"SINTERSTORE", "k", "{k}none"}}},
		{"empty SUNIONSTORE and SDIFFSTORE over no key", [][]any{{"SADD", "{k}x", "a"}}, [][]any{{"SUNIONSTORE", "k", "{k}none"}, {"SDIFFSTORE", "k", "{k}x", "{k}x"}}},
		{"empty SINTERSTORE over the key", [][]any{{"SADD", "k", "a"}}, [][]any{{"SINTERSTORE", "k", "{k}none"}}},
	}
	run := func(c *redis.Client, setup, other [][]any) string {
		w := c.Conn()
		defer w.Close()
		c.FlushAll(ctx)
		for _, cmd := range setup {
			c.Do(ctx, cmd...)
		}
		out := []string{sweepRender(w.Do(ctx, "WATCH", "k").Result())}
		for _, cmd := range other {
			out = append(out, sweepRender(c.Do(ctx, cmd...).Result()))
		}
		for _, cmd := range [][]any{{"MULTI"}, {"SET", "k", "mine"}, {"EXEC"}, {"GET", "k"}} {
			out = append(out, sweepRender(w.Do(ctx, cmd...).Result()))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range cases {
		if want, got := run(r, tc.setup, tc.other), run(ru, tc.setup, tc.other); got != want {
			t.Errorf("%s\n  redis: %s\n  ruvio: %s", tc.name, want, got)
		}
	}
}

// busyScript writes KEYS[1], spins ARGV[1] ms (calling TIME, so it runs
// commands throughout), then writes KEYS[2].
const busyScript = `redis.call('SET', KEYS[1], 'before')
local function ms() local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000) end
local start = ms()
while ms() - start < tonumber(ARGV[1]) do end
redis.call('SET', KEYS[2], 'after')
return 'done'`

// WATCH and UNWATCH sent while a script is busy are answered at once, as
// redis-server answers them, and the watch starts then: the script's
// write after it fails the transaction, its write before does not, and
// a key unwatched meanwhile fails nothing.
func TestWatchWhileAScriptIsBusyAnswersAsRedis(t *testing.T) {
	r := startRedis(t, 2, "--busy-reply-threshold", "50")
	s := startServer(t, func(c *config.Config) { c.BusyReplyThreshold = 50 })
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	before, after := "{w}before", "{w}after"
	run := func(c *redis.Client) string {
		c.FlushAll(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Eval(ctx, busyScript, []string{before, after}, 2000).Err() }()
		probe := c.Conn()
		defer probe.Close()
		poll.Until(t, 10*time.Second, "the script to be busy", func() bool {
			return isBusy(probe.Ping(ctx).Err())
		})
		watchers := map[string]*redis.Conn{"before": c.Conn(), "after": c.Conn(), "unwatched": c.Conn()}
		var out []string
		for _, name := range []string{"before", "after", "unwatched"} {
			defer watchers[name].Close()
			key := map[string]string{"before": before, "after": after, "unwatched": after}[name]
			out = append(out, name+" WATCH "+sweepRender(watchers[name].Do(ctx, "WATCH", key).Result()))
		}
		out = append(out, "UNWATCH "+sweepRender(watchers["unwatched"].Do(ctx, "UNWATCH").Result()))
		select {
		case err := <-done:
			t.Fatalf("WATCH and UNWATCH were answered only after the script (%v) ended: they waited for it", err)
		default:
		}
		if err := <-done; err != nil {
			t.Fatalf("the script: %v", err)
		}
		for _, name := range []string{"before", "after", "unwatched"} {
			w := watchers[name]
			for _, cmd := range [][]any{{"MULTI"}, {"SET", "{w}mine", name}, {"EXEC"}} {
				out = append(out, name+" "+sweepRender(w.Do(ctx, cmd...).Result()))
			}
		}
		return strings.Join(out, "\n")
	}
	if want, got := run(r), run(ru); got != want {
		t.Errorf("redis:\n%s\nruvio:\n%s", want, got)
	}
}

// SMOVE of a member the destination holds already leaves the destination
// unchanged, so a WATCH on it holds, as in Redis 7.0.
func TestSmoveOntoAMemberKeepsTheDestinationsWatch(t *testing.T) {
	sameOnOneConnection(t, 2, []aclStep{
		on(1, "SADD", "{w}src", "a", "b"), on(1, "SADD", "{w}dst", "a"),
		on(0, "WATCH", "{w}dst"), on(0, "MULTI"), on(0, "SADD", "{w}dst", "c"),
		on(1, "SMOVE", "{w}src", "{w}dst", "a"),
		on(0, "EXEC"), on(0, "SCARD", "{w}dst"),
		on(0, "WATCH", "{w}dst"), on(0, "MULTI"), on(0, "SADD", "{w}dst", "d"),
		on(1, "SMOVE", "{w}src", "{w}dst", "b"),
		on(0, "EXEC"), on(0, "SCARD", "{w}dst"),
	})
}
