package server

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
)

// The histogram's buckets are HdrHistogram's with two significant
// digits: the values below come from redis-server's own replies
// (LATENCY HISTOGRAM rows 1, 2, 4, ... 66; INFO latencystats p0 53.760
// and p50 54.015 for one call of 54 µs; p50 0.001 for calls under 1 µs).
func TestHistogramBucketsAsRedis(t *testing.T) {
	var h cmdHistogram
	for _, ns := range []int64{0, 500, 1000, 1500, 3000, 9000, 20000, 40000, 60000} {
		h.record(ns)
	}
	total, counts := h.snapshot()
	got := fmt.Sprint(cumulative(counts))
	if want := "[{1 3} {2 4} {4 5} {16 6} {33 7} {66 9}]"; got != want {
		t.Errorf("cumulative = %s, want %s", got, want)
	}
	if total != 9 {
		t.Errorf("total = %d", total)
	}
	var one cmdHistogram
	one.record(54000)
	total, counts = one.snapshot()
	if p0, p50 := percentile(total, counts, 0), percentile(total, counts, 50); p0 != 53760 || p50 != 54015 {
		t.Errorf("p0, p50 of 54000 ns = %d, %d, want 53760, 54015", p0, p50)
	}
	var fast cmdHistogram
	fast.record(0)
	total, counts = fast.snapshot()
	if p := percentile(total, counts, 50); p != 1 {
		t.Errorf("p50 of 0 ns = %d, want 1", p)
	}
	for _, v := range []int64{1, 255, 256, 257, 1023, 1024, 54000, 1 << 20, histMaxNs} {
		i := histIndex(v)
		if lo := histValue(i); lo != histLowest(v) || histHighest(v) < v || lo > v {
			t.Errorf("value %d: index %d, lowest %d/%d, highest %d", v, i, lo, histLowest(v), histHighest(v))
		}
	}
}

// LATENCY HISTOGRAM and INFO latencystats have redis-server's shapes:
// the commands named, in that order (a container for its subcommands),
// unknown and unused ones left out, each with its calls and a cumulative
// distribution ending at them; latency-tracking and its percentiles are
// set and refused as Redis does.
func TestLatencyHistogramMatchesRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	both := func(args ...any) (any, any) {
		wv, we := r.Do(ctx, args...).Result()
		gv, ge := ru.Do(ctx, args...).Result()
		noteExercised(args)
		if fmt.Sprint(we) != fmt.Sprint(ge) {
			t.Fatalf("%v: redis error %v, ruvio %v", args, we, ge)
		}
		return wv, gv
	}
	for i := range 20 {
		both("SET", "k"+strconv.Itoa(i), "v")
	}
	both("GET", "k1")
	both("CONFIG", "GET", "maxmemory")
	both("CONFIG", "GET", "hz")
	wv, gv := both("LATENCY", "HISTOGRAM", "set", "nosuch", "config", "get", "config|get")
	if w, g := histogramShape(t, wv), histogramShape(t, gv); w != g {
		t.Errorf("LATENCY HISTOGRAM\n  redis: %s\n  ruvio: %s", w, g)
	}
	for _, cmd := range [][]any{
		{"LATENCY", "GRAPH", "nosuch"},
		{"LATENCY", "HELP"},
		{"CONFIG", "GET", "latency-tracking"},
		{"CONFIG", "GET", "latency-tracking-info-percentiles"},
		{"CONFIG", "SET", "latency-tracking", "maybe"},
		{"CONFIG", "SET", "latency-tracking-info-percentiles", "50 101"},
		{"CONFIG", "SET", "latency-tracking-info-percentiles", "abc"},
		{"CONFIG", "SET", "latency-tracking-info-percentiles", "99.90 50.0 0"},
		{"CONFIG", "GET", "latency-tracking-info-percentiles"},
		{"CONFIG", "SET", "latency-tracking", "no"},
		{"SET", "after", "v"},
		{"LATENCY", "HISTOGRAM", "set"},
		{"CONFIG", "SET", "latency-tracking", "yes"},
		// The connection's cached histogram must not outlive a reset.
		{"CONFIG", "RESETSTAT"},
		{"SET", "a1", "v"},
		{"SET", "a2", "v"},
		{"LATENCY", "HISTOGRAM", "set"},
	} {
		wv, gv := both(cmd...)
		if cmd[0] == "LATENCY" && cmd[1] == "HISTOGRAM" {
			wv, gv = histogramShape(t, wv), histogramShape(t, gv)
		}
		if fmt.Sprint(wv) != fmt.Sprint(gv) {
			t.Errorf("%v\n  redis: %v\n  ruvio: %v", cmd, wv, gv)
		}
	}
	wi, gi := both("INFO", "latencystats")
	if w, g := statsShape(wi.(string)), statsShape(gi.(string)); w != g {
		t.Errorf("INFO latencystats\n  redis: %s\n  ruvio: %s", w, g)
	}
	if info := ru.Info(ctx).Val(); strings.Contains(info, "atencystats") {
		t.Error("INFO without arguments has latencystats")
	}
}

// histogramShape is a LATENCY HISTOGRAM reply (RESP2) with what depends
// on timing left out: the command names and calls, and whether each
// distribution uses Redis's row labels, grows and ends at the calls.
func histogramShape(t *testing.T, v any) string {
	t.Helper()
	labels := map[int64]bool{}
	for lvl := int64(histFirstLvl); lvl <= histHighest(histMaxNs); lvl *= 2 {
		labels[histHighest(lvl)/1000] = true
	}
	top := v.([]any)
	var b strings.Builder
	for i := 0; i+1 < len(top); i += 2 {
		m := top[i+1].([]any)
		calls := m[1].(int64)
		rows := m[3].([]any)
		ok := len(rows) > 0
		var prev int64
		for j := 0; j+1 < len(rows); j += 2 {
			at, cum := rows[j].(int64), rows[j+1].(int64)
			ok = ok && labels[at] && cum > prev
			prev = cum
		}
		ok = ok && prev == calls
		fmt.Fprintf(&b, "%v calls=%d %s=%v; ", top[i], calls, m[2], ok)
	}
	return b.String()
}

// statsShape is INFO latencystats with the values left out.
func statsShape(info string) string {
	var out []string
	for _, line := range strings.Split(info, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(k, "latency_percentiles_usec_set") {
			if strings.HasPrefix(line, "#") {
				out = append(out, line)
			}
			continue
		}
		var ps []string
		for _, kv := range strings.Split(v, ",") {
			p, val, _ := strings.Cut(kv, "=")
			_, err := strconv.ParseFloat(val, 64)
			ps = append(ps, fmt.Sprintf("%s:%v", p, err == nil && strings.Count(val, ".") == 1 && len(val)-strings.Index(val, ".") == 4))
		}
		out = append(out, k+"="+strings.Join(ps, ","))
	}
	return strings.Join(out, " ")
}

// LATENCY GRAPH draws what redis-server draws: a redis-server with DEBUG
// records three spikes in three seconds, and the graph it answers is the
// one latencyGraph renders from its LATENCY HISTORY and LATEST.
func TestLatencyGraphMatchesRedis(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	port := freePorts(t, 1)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--enable-debug-command", "yes", "--latency-monitor-threshold", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2})
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	poll.Until(t, 10*time.Second, "redis-server to answer", func() bool { return r.Ping(ctx).Err() == nil })
	if err := r.Do(ctx, "LATENCY", "GRAPH", "command").Err(); err == nil || err.Error() != "ERR No samples available for event 'command'" {
		t.Fatalf("GRAPH before any sample: %v", err)
	}
	for i, d := range []string{"0.005", "0.02", "0.012"} {
		if i > 0 {
			last := r.Time(ctx).Val().Unix()
			poll.Until(t, 5*time.Second, "the next second", func() bool { return r.Time(ctx).Val().Unix() > last })
		}
		if err := r.Do(ctx, "DEBUG", "SLEEP", d).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var hist []latencySample
	for _, e := range r.Do(ctx, "LATENCY", "HISTORY", "command").Val().([]any) {
		p := e.([]any)
		hist = append(hist, latencySample{time: p[0].(int64), latency: p[1].(int64)})
	}
	worst := r.Do(ctx, "LATENCY", "LATEST").Val().([]any)[0].([]any)[3].(int64)
	for range 5 {
		now := r.Time(ctx).Val().Unix()
		got := r.Do(ctx, "LATENCY", "GRAPH", "command").Val().(string)
		if r.Time(ctx).Val().Unix() != now {
			continue // the second changed under the graph's labels
		}
		if want := latencyGraph("command", hist, worst, now); got != want {
			t.Fatalf("redis-server drew\n%s\nlatencyGraph drew\n%s", got, want)
		}
		return
	}
	t.Fatal("could not read a graph within one second")
}

// ruvio's LATENCY GRAPH draws its own samples, and refuses unknown events
// with Redis's error.
func TestLatencyGraphOwnSamples(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	c := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	if err := c.Do(ctx, "LATENCY", "GRAPH", "command").Err(); err == nil || err.Error() != "ERR No samples available for event 'command'" {
		t.Fatalf("GRAPH before any sample: %v", err)
	}
	c.ConfigSet(ctx, "latency-monitor-threshold", "1")
	if err := c.Do(ctx, "DEBUG", "SLEEP", "0.01").Err(); err != nil {
		t.Fatal(err)
	}
	g, err := c.Do(ctx, "LATENCY", "GRAPH", "command").Text()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(g, "\n")
	if !strings.HasPrefix(lines[0], "command - high ") || lines[1] != strings.Repeat("-", 80) || len(lines) < 8 {
		t.Errorf("GRAPH = %q", g)
	}
}

// A connection's cached histogram serves its command's next calls, and
// none after CONFIG RESETSTAT: those go to the histogram made after it.
func TestHistCacheFollowsReset(t *testing.T) {
	var lt latencyTracking
	lt.on.Store(true)
	set, get := &command.Spec{Name: "set"}, &command.Spec{Name: "get"}
	var last histCache
	calls := func(name string) int64 {
		v, ok := lt.hists.Load(name)
		if !ok {
			return 0
		}
		n, _ := v.(*cmdHistogram).snapshot()
		return n
	}
	lt.recordCommand(set, time.Microsecond, false, &last)
	lt.recordCommand(set, time.Microsecond, false, &last)
	lt.recordCommand(get, time.Microsecond, false, &last)
	lt.recordCommand(set, time.Microsecond, false, &histCache{}) // another connection
	if calls("set") != 3 || calls("get") != 1 {
		t.Fatalf("set %d get %d, want 3 and 1", calls("set"), calls("get"))
	}
	lt.recordCommand(get, time.Microsecond, false, &last)
	lt.reset()
	lt.recordCommand(get, time.Microsecond, false, &last)
	lt.recordCommand(get, time.Microsecond, false, &last)
	if calls("get") != 2 || calls("set") != 0 {
		t.Fatalf("after the reset: get %d set %d, want 2 and 0", calls("get"), calls("set"))
	}
}
