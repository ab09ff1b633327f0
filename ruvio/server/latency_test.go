package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
)

// LATENCY answers as redis-server 7.0 while nothing was recorded, with
// monitoring off and on, and latency-monitor-threshold is set and checked
// as Redis does.
func TestLatencyRepliesMatchRedis(t *testing.T) {
	cmds := [][]any{
		{"LATENCY", "LATEST"},
		{"LATENCY", "HISTORY", "command"},
		{"LATENCY", "RESET"},
		{"LATENCY", "RESET", "command", "nosuch"},
		{"LATENCY", "DOCTOR"},
		{"CONFIG", "GET", "latency-monitor-threshold"},
		{"CONFIG", "SET", "latency-monitor-threshold", "-1"},
		{"CONFIG", "SET", "latency-monitor-threshold", "x"},
		{"CONFIG", "SET", "latency-monitor-threshold", "100000"},
		{"LATENCY", "DOCTOR"},
		{"CONFIG", "GET", "latency-monitor-threshold"},
		{"LATENCY", "HISTORY"},
		{"LATENCY", "FOO"},
		{"CONFIG", "SET", "latency-monitor-threshold", "0"},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}

// A command slower than the threshold is recorded under "command" (a fast
// one under "fast-command"): LATEST, HISTORY and DOCTOR show it, RESET
// forgets it, and nothing is recorded with the threshold at 0.
func TestLatencyRecordsSlowCommands(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	c := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	do := func(args ...any) any {
		t.Helper()
		v, err := c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	do("DEBUG", "SLEEP", "0.06")
	if v := do("LATENCY", "LATEST").([]any); len(v) != 0 {
		t.Fatalf("LATEST with the threshold at 0 = %v", v)
	}
	do("CONFIG", "SET", "latency-monitor-threshold", "50")
	do("PING")
	do("DEBUG", "SLEEP", "0.06")
	latest := do("LATENCY", "LATEST").([]any)
	if len(latest) != 1 {
		t.Fatalf("LATEST = %v, want the command event alone", latest)
	}
	ev := latest[0].([]any)
	if ev[0] != "command" || ev[2].(int64) < 50 || ev[3].(int64) < ev[2].(int64) || ev[1].(int64) <= 0 {
		t.Fatalf("LATEST event %v", ev)
	}
	hist := do("LATENCY", "HISTORY", "command").([]any)
	if len(hist) != 1 || hist[0].([]any)[1].(int64) < 50 {
		t.Fatalf("HISTORY command = %v", hist)
	}
	if doc := do("LATENCY", "DOCTOR").(string); !strings.Contains(doc, "1. command: 1 latency spikes") {
		t.Fatalf("DOCTOR = %q", doc)
	}
	if n := do("LATENCY", "RESET", "fast-command", "command"); n != int64(1) {
		t.Fatalf("RESET = %v, want 1", n)
	}
	if v := do("LATENCY", "LATEST").([]any); len(v) != 0 {
		t.Fatalf("LATEST after RESET = %v", v)
	}
}

// An event keeps the worst latency of each second, the last 160 seconds,
// and its worst of all time.
func TestLatencySeries(t *testing.T) {
	var ts latencySeries
	ts.add(100, 5)
	ts.add(100, 9)
	ts.add(100, 7)
	ts.add(101, 3)
	if h := ts.history(); len(h) != 2 || h[0] != (latencySample{100, 9}) || h[1] != (latencySample{101, 3}) || ts.max != 9 {
		t.Fatalf("history %v max %d", h, ts.max)
	}
	for s := int64(102); s < 102+latencySamples; s++ {
		ts.add(s, 1)
	}
	h := ts.history()
	if len(h) != latencySamples || h[0].time != 102 || h[len(h)-1].time != 101+latencySamples || ts.max != 9 {
		t.Fatalf("after wrapping: %d samples from %d to %d, max %d", len(h), h[0].time, h[len(h)-1].time, ts.max)
	}
}
