package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// durableOnlyConfig is a run of the durable-writes part alone, short:
// one profile, primaries with n replicas, 2 connections at depths 1 and 4.
func durableOnlyConfig(ruvioPath, server, bench string, n, basePort int, out string) config {
	return config{
		RuvioPath:          ruvioPath,
		RedisServerPath:    server,
		RedisBenchmarkPath: bench,
		Requests:           1000,
		Clients:            2,
		Pipelines:          []int{1},
		BasePort:           basePort,
		Timeout:            time.Minute,
		Durable:            []string{durabilityMemory},
		DurableReplicas:    []int{n},
		DurableClients:     []int{2},
		DurablePipelines:   []int{1, 4},
		DurableDuration:    200 * time.Millisecond,
		Out:                filepath.Join(out, "bench.md"),
		JSON:               filepath.Join(out, "bench.json"),
	}
}

// checkDurableRun checks that every cell has both sides' numbers with
// every write acknowledged durable, that the tables and files carry them,
// and that every server and directory is gone.
func checkDurableRun(t *testing.T, rep report, cfg config, stdout, tmp string, wantRows int) {
	t.Helper()
	if len(rep.DurableRows) != wantRows {
		t.Fatalf("%d durable-writes rows, want %d", len(rep.DurableRows), wantRows)
	}
	for _, r := range rep.DurableRows {
		if r.Ratio == nil || r.P50Ratio == nil || r.P99Ratio == nil || r.RuvioFailed == nil || r.RedisFailed == nil {
			t.Errorf("incomplete row %+v", r)
			continue
		}
		if *r.RuvioFailed != 0 || *r.RedisFailed != 0 {
			t.Errorf("k=%d pipeline=%d: %d/%d writes not durable with every replica up", r.K, r.Pipeline, *r.RuvioFailed, *r.RedisFailed)
		}
	}
	for _, r := range rep.DurableRuns {
		if r.Acked == 0 || r.Latency.N == 0 || r.Acked != int64(r.Latency.N*r.Pipeline) {
			t.Errorf("%s k=%d pipeline=%d: %d acked over %d round trips", r.Server, r.K, r.Pipeline, r.Acked, r.Latency.N)
		}
		if !portFree(r.Port) {
			t.Errorf("primary port %d still in use after the run", r.Port)
		}
	}
	if !strings.Contains(stdout, "durable writes: a one-shard primary") {
		t.Errorf("tables lack the durable-writes table:\n%s", stdout)
	}
	md, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Durable writes") {
		t.Errorf("markdown lacks the durable-writes section:\n%s", md)
	}
	raw, err := os.ReadFile(cfg.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.DurableRows) != wantRows || len(back.DurableRuns) != len(rep.DurableRuns) || back.DurableRuns[0].K == 0 {
		t.Errorf("JSON round trip lost durable-writes data: %d rows, %d runs", len(back.DurableRows), len(back.DurableRuns))
	}
	assertCleanedUp(t, rep, tmp)
}

// TestEndToEndDurableWritesRedisVsRedis runs the durable-writes part
// alone with redis-server in both roles, both using SET + WAIT: primaries
// with 2 replicas, k 1 and 2.
func TestEndToEndDurableWritesRedisVsRedis(t *testing.T) {
	server, bench := redisTools(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfg := durableOnlyConfig(server, server, bench, 2, 27700, t.TempDir())
	a, b := twoRedises(server)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var stdout, logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(io.MultiWriter(testLogWriter{t}, &logs), nil))
	rep, err := run(ctx, cfg, a, b, &stdout, log)
	t.Logf("tables:\n%s", stdout.String())
	if err != nil {
		t.Fatal(err)
	}
	// k 1 and 2 x depths 1 and 4.
	checkDurableRun(t, rep, cfg, stdout.String(), tmp, 4)
	for _, r := range rep.DurableRuns {
		if want := durableWait.describe(r.K, r.Pipeline); r.Method != want {
			t.Errorf("method %q, want %q", r.Method, want)
		}
	}
	// No single-server group, one replication group per side.
	if starts := strings.Count(logs.String(), `msg="starting server"`); starts != 6 {
		t.Errorf("%d server starts, want 6", starts)
	}
	if strings.Contains(stdout.String(), "│ durability │ shards") {
		t.Errorf("--durability none printed the single-server table:\n%s", stdout.String())
	}
}

// TestEndToEndDurableWritesRuvioVsRedis builds ruvio and measures its
// CLIENT DURABILITY REPLICAS 1 against Redis's WAIT 1 0 with one replica
// each: every write must come back acknowledged.
func TestEndToEndDurableWritesRuvioVsRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ruvio")
	}
	server, bench := redisTools(t)
	bin := filepath.Join(t.TempDir(), "ruvio")
	build := exec.Command("go", "build", "-o", bin, "github.com/ruvio/ruvio/cmd/ruvio")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building ruvio: %v\n%s", err, out)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfg := durableOnlyConfig(bin, server, bench, 1, 27800, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var stdout bytes.Buffer
	rep, err := run(ctx, cfg, ruvioKind(bin), redisKind(server), &stdout, slog.New(slog.NewTextHandler(testLogWriter{t}, nil)))
	t.Logf("tables:\n%s", stdout.String())
	if err != nil {
		t.Fatal(err)
	}
	checkDurableRun(t, rep, cfg, stdout.String(), tmp, 2)
	for _, r := range rep.DurableRuns {
		want := durableWait.describe(r.K, r.Pipeline)
		if r.Role == roleRuvio {
			want = durableClient.describe(r.K, r.Pipeline)
		}
		if r.Method != want {
			t.Errorf("%s method %q, want %q", r.Role, r.Method, want)
		}
	}
}
