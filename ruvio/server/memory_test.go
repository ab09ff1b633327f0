package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// MEMORY USAGE answers as redis-server 7.0 does for strings of every
// encoding and small hashes, and its refusals and the other MEMORY
// subcommands' fixed replies match too.
func TestMemoryRepliesMatchRedis(t *testing.T) {
	cmds := [][]any{
		{"SET", "k", "v"},
		{"SET", "n", "12345"},
		{"SET", "emb", strings.Repeat("e", 44)},
		{"SET", "raw", strings.Repeat("r", 1000)},
		{"SET", "{t}" + strings.Repeat("long-key", 40), "v"},
		{"HSET", "h", "a", "b", "field", "value"},
		{"MEMORY", "USAGE", "k"},
		{"MEMORY", "USAGE", "n"},
		{"MEMORY", "USAGE", "emb"},
		{"MEMORY", "USAGE", "raw"},
		{"MEMORY", "USAGE", "{t}" + strings.Repeat("long-key", 40)},
		{"MEMORY", "USAGE", "h"},
		{"MEMORY", "USAGE", "h", "SAMPLES", "0"},
		{"MEMORY", "USAGE", "nokey"},
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
// and MEMORY STATS counts the keys with Redis's field names.
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
	}
	stats, err := c.Do(ctx, "MEMORY", "STATS").Slice()
	if err != nil {
		t.Fatal(err)
	}
	got := map[any]any{}
	for i := 0; i+1 < len(stats); i += 2 {
		got[stats[i]] = stats[i+1]
	}
	if got["keys.count"] != int64(len(grow)) {
		t.Errorf("MEMORY STATS keys.count = %v, want %d", got["keys.count"], len(grow))
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
