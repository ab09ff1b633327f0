package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testLogWriter sends slog output to t.Log so it only shows on failure or -v.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// redisTools returns the redis-server and redis-benchmark paths or skips.
func redisTools(t *testing.T) (server, bench string) {
	t.Helper()
	server, err1 := exec.LookPath("redis-server")
	bench, err2 := exec.LookPath("redis-benchmark")
	if err1 != nil || err2 != nil {
		t.Skip("skipping: redis-server and redis-benchmark must both be in PATH " +
			"(apt-get install redis-server redis-tools) to run benchcmp end to end")
	}
	return server, bench
}

// builtRuvio skips under -short or without redis-server and
// redis-benchmark, and otherwise builds ruvio into a temporary directory,
// returning the three paths a run against ruvio needs.
func builtRuvio(t *testing.T) (bin, server, bench string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds ruvio")
	}
	server, bench = redisTools(t)
	bin = filepath.Join(t.TempDir(), "ruvio")
	build := exec.Command("go", "build", "-o", bin, "github.com/ruvio/ruvio/cmd/ruvio")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building ruvio: %v\n%s", err, out)
	}
	return bin, server, bench
}

// scratchTMPDIR points TMPDIR, where the servers' data dirs land, at a
// fresh directory and returns it, so assertCleanedUp can check that the
// run left nothing there.
func scratchTMPDIR(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// e2eConfig completes cfg, a test's own sizes and parts, with the server
// and tool paths and with markdown and JSON reports in a fresh directory.
func e2eConfig(t *testing.T, ruvioPath, server, bench string, cfg config) config {
	t.Helper()
	out := t.TempDir()
	cfg.RuvioPath, cfg.RedisServerPath, cfg.RedisBenchmarkPath = ruvioPath, server, bench
	cfg.Out, cfg.JSON = filepath.Join(out, "bench.md"), filepath.Join(out, "bench.json")
	return cfg
}

// runE2E runs cfg with a and b as the two sides, logging to t and keeping
// the log for the caller to count events in, and fails the test if the run
// fails. It returns the report, the printed tables and the log.
func runE2E(t *testing.T, ctx context.Context, cfg config, a, b serverKind) (rep report, stdout, logs string) {
	t.Helper()
	var out, log bytes.Buffer
	rep, err := run(ctx, cfg, a, b, &out, slog.New(slog.NewTextHandler(io.MultiWriter(testLogWriter{t}, &log), nil)))
	t.Logf("tables:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	return rep, out.String(), log.String()
}

// twoRedises puts redis-server in both roles, which exercises everything
// but the ruvio binary itself.
func twoRedises(path string) (a, b serverKind) {
	a, b = redisKind(path), redisKind(path)
	a.Name, b.Name = "redis-a", "redis-b"
	return a, b
}

// assertCleanedUp checks that no server is left listening and no temporary
// directory is left behind.
func assertCleanedUp(t *testing.T, rep report, tmp string) {
	t.Helper()
	for _, r := range rep.Runs {
		if !portFree(r.Port) {
			t.Errorf("port %d (%s) still in use after the run", r.Port, r.Server)
		}
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("temporary file left behind: %s", e.Name())
	}
}

func TestEndToEndRedisVsRedis(t *testing.T) {
	server, bench := redisTools(t)
	tmp := scratchTMPDIR(t)
	cfg := e2eConfig(t, server, server, bench, config{
		// Small, because the always profile fsyncs its AOF before
		// every reply, but not so small that a pipelined test ends
		// within redis-benchmark's 1 ms clock (it reports inf then).
		Requests:  2000,
		Clients:   10,
		Pipelines: []int{1, 16},
		Tests:     []string{"set", "get", "incr", "lpush", "hset"},
		Shards:    []int{1, 2},
		// memory at both shard counts, then one persistent profile at
		// one shard count, as in the default plan.
		Durability:       []string{durabilityMemory, durabilityAlways},
		DurabilityShards: []int{1},
		// Away from the default so that a concurrent `make bench` and
		// this test do not race for the same ports.
		BasePort: 27300,
		Timeout:  60 * time.Second,
	})
	a, b := twoRedises(server)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	rep, stdout, logs := runE2E(t, ctx, cfg, a, b)

	// memory: 2 shard counts x 5 tests x 2 depths; always: 1 x 5 x 2.
	if want := 2*5*2 + 5*2; len(rep.Rows) != want {
		t.Fatalf("%d rows, want %d", len(rep.Rows), want)
	}
	for i, r := range rep.Rows {
		if r.Ruvio == nil || r.Redis == nil || r.Ratio == nil || *r.Ruvio <= 0 || *r.Redis <= 0 {
			t.Errorf("incomplete row %+v", r)
		}
		wantDur, wantShards := durabilityMemory, 1+i/10
		if i >= 20 {
			wantDur, wantShards = durabilityAlways, 1
		}
		if r.Durability != wantDur || r.Shards != wantShards {
			t.Errorf("row %d is %s/%d, want %s/%d", i, r.Durability, r.Shards, wantDur, wantShards)
		}
	}
	// The sides alternate and swap order at every other pipeline depth.
	var roles []string
	for _, r := range rep.Runs {
		roles = append(roles, r.Role)
	}
	if got, want := strings.Join(roles, ","), strings.TrimSuffix(strings.Repeat("ruvio,redis,redis,ruvio,", 3), ","); got != want {
		t.Errorf("run order %s, want %s", got, want)
	}
	// Both sides got the persistence of their profile.
	for _, r := range rep.Runs {
		args := strings.Join(r.ServerArgs, " ")
		want := "--appendonly no"
		if r.Durability == durabilityAlways {
			want = "--appendonly yes --appendfsync always"
		}
		if !strings.Contains(args, want) {
			t.Errorf("%s %s run: server args %q lack %q", r.Role, r.Durability, args, want)
		}
	}
	if !strings.Contains(stdout, "redis-a ops/s") || !strings.HasPrefix(rep.Ruvio.Version, "redis-server ") {
		t.Errorf("table lacks headers or versions:\n%s", stdout)
	}
	if want := "ran: memory at shards 1,2 (redis-b --appendonly no --save \"\"); always at shards 1 ("; !strings.Contains(stdout, want) {
		t.Errorf("table header does not say what ran (want %q):\n%s", want, stdout)
	}
	checkGroupsCleanedUp(t, logs)

	md, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := markdownHeader(string(md)), "durability,shards,test,pipeline,redis-a ops/s,redis-b ops/s,ratio,redis-a CPU s/1M,redis-b CPU s/1M,CPU ratio"; got != want {
		t.Errorf("markdown table header %q, want %q:\n%s", got, want, md)
	}
	raw, err := os.ReadFile(cfg.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(rep.Rows) || len(back.Runs) != 12 || back.Runs[0].Results[0].Latency == nil ||
		back.Rows[len(back.Rows)-1].Durability != durabilityAlways || len(back.Plan) != 2 {
		t.Errorf("JSON round trip lost data: %d rows, %d runs, plan %v", len(back.Rows), len(back.Runs), back.Plan)
	}

	assertCleanedUp(t, rep, tmp)
}

// checkGroupsCleanedUp reads the run's log and checks that every group
// removed its directory before the next group started its servers, and that
// the always group's directory held the AOF it wrote.
func checkGroupsCleanedUp(t *testing.T, logs string) {
	t.Helper()
	var events []string
	var alwaysBytes int64 = -1
	for _, line := range strings.Split(logs, "\n") {
		switch {
		case strings.Contains(line, `msg="starting server"`):
			events = append(events, "start")
		case strings.Contains(line, `msg="temporary directory removed"`):
			events = append(events, "removed")
			if strings.Contains(line, "durability=always") {
				_, n, _ := strings.Cut(line, " bytes=")
				v, err := strconv.ParseInt(strings.Fields(n)[0], 10, 64)
				if err != nil {
					t.Errorf("bad bytes in %q: %v", line, err)
				}
				alwaysBytes = v
			}
		}
	}
	if got, want := strings.Join(events, ","), strings.TrimSuffix(strings.Repeat("start,start,removed,", 3), ","); got != want {
		t.Errorf("server starts and directory removals %s, want %s", got, want)
	}
	if alwaysBytes <= 0 {
		t.Errorf("the always group freed %d bytes, want its AOF", alwaysBytes)
	}
}

// TestEndToEndInterrupt cancels the run in the middle of a benchmark, as
// Ctrl-C does, and checks that everything is torn down promptly.
func TestEndToEndInterrupt(t *testing.T) {
	server, bench := redisTools(t)
	tmp := scratchTMPDIR(t)
	cfg := config{
		RuvioPath:          server,
		RedisServerPath:    server,
		RedisBenchmarkPath: bench,
		Requests:           1 << 30, // never finishes on its own
		Clients:            2,
		Pipelines:          []int{1},
		Tests:              []string{"set"},
		Shards:             []int{1},
		Durability:         []string{durabilityMemory},
		BasePort:           27400,
		Timeout:            time.Minute,
	}
	a, b := twoRedises(server)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel)

	start := time.Now()
	var stdout bytes.Buffer
	rep, err := run(ctx, cfg, a, b, &stdout, slog.New(slog.NewTextHandler(testLogWriter{t}, nil)))
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want an interruption", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("interrupted run took %v to return", d)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Error == "" {
		t.Errorf("runs = %+v, want the one interrupted run", rep.Runs)
	}
	assertCleanedUp(t, rep, tmp)
}

// TestStartServerExitsEarly checks that a server dying at start-up is
// reported with its output and retried on fresh ports.
func TestStartServerExitsEarly(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh in PATH")
	}
	kind := serverKind{
		Name:  "broken",
		Path:  sh,
		Args:  func(int, int, string, string) []string { return []string{"-c", "echo cannot bind >&2; exit 3"} },
		Width: func(int) int { return 1 },
	}
	alloc := &portAllocator{next: 27500, free: func(int) bool { return true }}
	_, err = launch(context.Background(), kind, 1, durabilityMemory, t.TempDir(), alloc, slog.New(slog.NewTextHandler(testLogWriter{t}, nil)))
	if !errors.Is(err, errExitedEarly) || !strings.Contains(err.Error(), "cannot bind") {
		t.Errorf("err = %v, want errExitedEarly quoting the server output", err)
	}
	if alloc.next != 27500+startAttempts {
		t.Errorf("allocator at %d, want %d after %d attempts", alloc.next, 27500+startAttempts, startAttempts)
	}
}

// markdownHeader returns the cells of the first table line in md, joined
// with commas.
func markdownHeader(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		return strings.Join(cells, ",")
	}
	return ""
}
