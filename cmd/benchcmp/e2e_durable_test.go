package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// durableOnlyConfig is a run of the durable-writes part alone, short:
// one profile, primaries with n replicas, 2 connections at depths 1 and 4.
func durableOnlyConfig(t *testing.T, ruvioPath, server, bench string, n, basePort int) config {
	return e2eConfig(t, ruvioPath, server, bench, config{
		Requests:         1000,
		Clients:          2,
		Pipelines:        []int{1},
		BasePort:         basePort,
		Timeout:          time.Minute,
		Durable:          []string{durabilityMemory},
		DurableReplicas:  []int{n},
		DurableClients:   []int{2},
		DurablePipelines: []int{1, 4},
		DurableDuration:  200 * time.Millisecond,
	})
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
	tmp := scratchTMPDIR(t)
	cfg := durableOnlyConfig(t, server, server, bench, 2, 27700)
	a, b := twoRedises(server)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	rep, stdout, logs := runE2E(t, ctx, cfg, a, b)
	// k 1 and 2 x depths 1 and 4.
	checkDurableRun(t, rep, cfg, stdout, tmp, 4)
	for _, r := range rep.DurableRuns {
		if want := durableWait.describe(r.K, r.Pipeline); r.Method != want {
			t.Errorf("method %q, want %q", r.Method, want)
		}
	}
	// No single-server group, one replication group per side.
	if starts := strings.Count(logs, `msg="starting server"`); starts != 6 {
		t.Errorf("%d server starts, want 6", starts)
	}
	if strings.Contains(stdout, "│ durability │ shards") {
		t.Errorf("--durability none printed the single-server table:\n%s", stdout)
	}
}

// TestEndToEndDurableWritesRuvioVsRedis builds ruvio and measures its
// CLIENT DURABILITY REPLICAS 1 against Redis's WAIT 1 0 with one replica
// each: every write must come back acknowledged.
func TestEndToEndDurableWritesRuvioVsRedis(t *testing.T) {
	bin, server, bench := builtRuvio(t)
	tmp := scratchTMPDIR(t)
	cfg := durableOnlyConfig(t, bin, server, bench, 1, 27800)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	rep, stdout, _ := runE2E(t, ctx, cfg, ruvioKind(bin), redisKind(server))
	checkDurableRun(t, rep, cfg, stdout, tmp, 2)
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
