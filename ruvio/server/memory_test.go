package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// MEMORY USAGE's refusals and missing keys, and the other MEMORY
// subcommands' fixed replies, match redis-server 7.0's. The sizes
// themselves are ruvio's own layout's (memcmd), not Redis's.
func TestMemoryRepliesMatchRedis(t *testing.T) {
	cmds := [][]any{
		{"SET", "k", "v"},
		{"MEMORY", "USAGE", "nokey"},
		{"MEMORY", "USAGE", "nokey", "SAMPLES", "0"},
		{"MEMORY", "USAGE", "k", "SAMPLES", "x"},
		{"MEMORY", "USAGE", "k", "SAMPLES", "-1"},
		{"MEMORY", "USAGE", "k", "FOO"},
		{"MEMORY", "USAGE"},
		{"MEMORY", "FOO"},
		{"MEMORY", "PURGE"},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}

// MEMORY USAGE grows with the value, aggregates of every type included,
// its default sample of a big collection is near the full walk of
// SAMPLES 0, and MEMORY STATS counts the keys with Redis's field names.
func TestMemoryUsageAndStats(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	grow := map[string]func(i int) []any{
		"l":  func(i int) []any { return []any{"RPUSH", "l", strings.Repeat("x", 100)} },
		"s":  func(i int) []any { return []any{"SADD", "s", fmt.Sprint("m", i)} },
		"z":  func(i int) []any { return []any{"ZADD", "z", i, fmt.Sprint("m", i)} },
		"h":  func(i int) []any { return []any{"HSET", "h", fmt.Sprint("f", i), "v"} },
		"st": func(i int) []any { return []any{"XADD", "st", "*", "f", "v"} },
	}
	for key, write := range grow {
		var sizes []int64
		for i := 0; i < 600; i++ {
			if err := c.Do(ctx, write(i)...).Err(); err != nil {
				t.Fatal(err)
			}
			if i == 0 || i == 599 {
				sizes = append(sizes, c.MemoryUsage(ctx, key, 0).Val())
			}
		}
		if sizes[0] <= 0 || sizes[1] <= sizes[0] {
			t.Errorf("MEMORY USAGE %s went from %d to %d over 600 writes", key, sizes[0], sizes[1])
		}
		full, err := c.Do(ctx, "MEMORY", "USAGE", key, "SAMPLES", "0").Int64()
		if err != nil {
			t.Fatal(err)
		}
		if d := float64(sizes[1]-full) / float64(full); d < -0.1 || d > 0.1 {
			t.Errorf("MEMORY USAGE %s: %d with the default samples, %d walking all", key, sizes[1], full)
		}
	}
	c.Set(ctx, "small", "v", 0)
	c.Set(ctx, "big", strings.Repeat("b", 10000), 0)
	c.Set(ctx, "ttl", "v", time.Hour)
	small, big, ttl := c.MemoryUsage(ctx, "small").Val(), c.MemoryUsage(ctx, "big").Val(), c.MemoryUsage(ctx, "ttl").Val()
	if big < small+10000 || ttl <= small {
		t.Errorf("MEMORY USAGE: small %d, 10000-byte %d, with a TTL %d", small, big, ttl)
	}
	stats, err := c.Do(ctx, "MEMORY", "STATS").Slice()
	if err != nil {
		t.Fatal(err)
	}
	got := map[any]any{}
	for i := 0; i+1 < len(stats); i += 2 {
		got[stats[i]] = stats[i+1]
	}
	if got["keys.count"] != int64(len(grow)+3) {
		t.Errorf("MEMORY STATS keys.count = %v, want %d", got["keys.count"], len(grow)+3)
	}
	for _, f := range []string{"peak.allocated", "total.allocated", "dataset.bytes", "db.0", "fragmentation"} {
		if _, ok := got[f]; !ok {
			t.Errorf("MEMORY STATS lacks %s", f)
		}
	}
	// Which of its two texts DOCTOR answers depends on the heap of the
	// whole test process, so only its shape is checked.
	doc := c.Do(ctx, "MEMORY", "DOCTOR").Val()
	if s, ok := doc.(string); !ok || !strings.HasPrefix(s, "Hi Sam, ") || !strings.HasSuffix(s, "\n") {
		t.Errorf("MEMORY DOCTOR = %q", doc)
	}
}
