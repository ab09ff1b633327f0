package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
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
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the servers' data dirs land here
	out := t.TempDir()
	cfg := config{
		RuvioPath:          server,
		RedisServerPath:    server,
		RedisBenchmarkPath: bench,
		Requests:           2000,
		Clients:            10,
		Pipelines:          []int{1, 16},
		Tests:              []string{"set", "get", "incr", "lpush", "hset"},
		Shards:             []int{1, 2},
		// Away from the default so that a concurrent `make bench` and
		// this test do not race for the same ports.
		BasePort: 27300,
		Out:      filepath.Join(out, "bench.md"),
		JSON:     filepath.Join(out, "bench.json"),
		Timeout:  60 * time.Second,
	}
	a, b := twoRedises(server)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var stdout bytes.Buffer
	rep, err := run(ctx, cfg, a, b, &stdout, slog.New(slog.NewTextHandler(testLogWriter{t}, nil)))
	t.Logf("table:\n%s", stdout.String())
	if err != nil {
		t.Fatal(err)
	}

	if want := 2 * 5 * 2; len(rep.Rows) != want {
		t.Fatalf("%d rows, want %d", len(rep.Rows), want)
	}
	for _, r := range rep.Rows {
		if r.Ruvio == nil || r.Redis == nil || r.Ratio == nil || *r.Ruvio <= 0 || *r.Redis <= 0 {
			t.Errorf("incomplete row %+v", r)
		}
	}
	// The sides alternate and swap order at every other pipeline depth.
	var roles []string
	for _, r := range rep.Runs {
		roles = append(roles, r.Role)
	}
	if got, want := strings.Join(roles, ","), "ruvio,redis,redis,ruvio,ruvio,redis,redis,ruvio"; got != want {
		t.Errorf("run order %s, want %s", got, want)
	}
	if !strings.Contains(stdout.String(), "redis-a ops/s") || !strings.HasPrefix(rep.Ruvio.Version, "redis-server ") {
		t.Errorf("table lacks headers or versions:\n%s", stdout.String())
	}

	md, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := markdownHeader(string(md)), "shards,test,pipeline,redis-a ops/s,redis-b ops/s,ratio"; got != want {
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
	if len(back.Rows) != len(rep.Rows) || len(back.Runs) != 8 || back.Runs[0].Results[0].Latency == nil {
		t.Errorf("JSON round trip lost data: %d rows, %d runs", len(back.Rows), len(back.Runs))
	}

	assertCleanedUp(t, rep, tmp)
}

// TestEndToEndInterrupt cancels the run in the middle of a benchmark, as
// Ctrl-C does, and checks that everything is torn down promptly.
func TestEndToEndInterrupt(t *testing.T) {
	server, bench := redisTools(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfg := config{
		RuvioPath:          server,
		RedisServerPath:    server,
		RedisBenchmarkPath: bench,
		Requests:           1 << 30, // never finishes on its own
		Clients:            2,
		Pipelines:          []int{1},
		Tests:              []string{"set"},
		Shards:             []int{1},
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
		Args:  func(int, int, string) []string { return []string{"-c", "echo cannot bind >&2; exit 3"} },
		Width: func(int) int { return 1 },
	}
	alloc := &portAllocator{next: 27500, free: func(int) bool { return true }}
	_, err = launch(context.Background(), kind, 1, t.TempDir(), alloc, slog.New(slog.NewTextHandler(testLogWriter{t}, nil)))
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
