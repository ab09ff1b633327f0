package server

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

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
