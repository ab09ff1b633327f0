package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndToEndReplicationRedisVsRedis runs the replication part with
// redis-server in both roles: primaries with 0 and 1 replicas, then the lag
// with 1. Numbers are tiny and not checked, only that every cell was
// measured and everything was torn down.
func TestEndToEndReplicationRedisVsRedis(t *testing.T) {
	server, bench := redisTools(t)
	tmp := scratchTMPDIR(t)
	cfg := e2eConfig(t, server, server, bench, config{
		Requests:       5000,
		Clients:        10,
		Pipelines:      []int{1, 16},
		Tests:          []string{"set"},
		Shards:         []int{1},
		Durability:     []string{durabilityMemory},
		Replicas:       []int{0, 1},
		ReplDurability: []string{durabilityMemory},
		ReplRequests:   5000,
		ReplKeys:       1000,
		LagPipeline:    16,
		LagDuration:    time.Second,
		LagMarkers:     t.TempDir(),
		BasePort:       27600,
		Timeout:        60 * time.Second,
	})
	a, b := twoRedises(server)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	rep, stdout, logs := runE2E(t, ctx, cfg, a, b)

	// 2 replica counts x SET,GET x 2 depths.
	if len(rep.ReplRows) != 8 {
		t.Fatalf("%d replication rows, want 8", len(rep.ReplRows))
	}
	for _, r := range rep.ReplRows {
		if r.Ratio == nil || r.RuvioVs0 == nil || r.RedisVs0 == nil {
			t.Errorf("incomplete replication row %+v", r)
		}
	}
	for _, r := range rep.ReplRuns {
		if args := strings.Join(r.ServerArgs, " "); !strings.Contains(args, "--repl-diskless-sync-delay 0") || !strings.Contains(args, "--appendonly no") {
			t.Errorf("primary args %q lack the primary's settings or the profile's persistence", args)
		}
		if args := strings.Join(r.Args, " "); !strings.Contains(args, "-r 1000") {
			t.Errorf("benchmark args %q lack the random keys", args)
		}
	}
	if len(rep.Lag) != 2*lagPasses {
		t.Fatalf("%d lag results, want %d", len(rep.Lag), 2*lagPasses)
	}
	for i, l := range rep.Lag {
		if l.Error != "" || l.Position.N == 0 || l.Visible.N == 0 || l.BytesPerRecord <= 0 || l.Load == nil {
			t.Errorf("incomplete lag result %+v", l)
		}
		if l.Pass != 1+i/2 || l.BacklogSize <= 0 || l.BacklogUsed <= 0 {
			t.Errorf("lag result %d: pass %d, backlog %d/%d bytes", i, l.Pass, l.BacklogUsed, l.BacklogSize)
		}
		if args := strings.Join(l.Args, " "); !strings.Contains(args, "-r 1000") {
			t.Errorf("lag load args %q lack the random keys", args)
		}
		// --lag-markers: a header and a line per marker seen.
		path := filepath.Join(cfg.LagMarkers, fmt.Sprintf("%s-%s-pass%d.tsv", l.Role, l.Durability, l.Pass))
		if b, err := os.ReadFile(path); err != nil || strings.Count(string(b), "\n") != l.Visible.N+1 {
			t.Errorf("%s: %v, %d lines for %d markers", path, err, strings.Count(string(b), "\n"), l.Visible.N)
		}
	}
	// The shard group started two servers, the replication groups two
	// primaries each and one of them a replica per side.
	starts := strings.Count(logs, `msg="starting server"`)
	if want := 2 + 2 + 4; starts != want {
		t.Errorf("%d server starts, want %d", starts, want)
	}
	if linked := strings.Count(logs, `msg="replicas linked"`); linked != 2 {
		t.Errorf("%d groups waited for their replicas, want 2", linked)
	}
	for _, want := range []string{"replication: a primary with 0,1 replicas", "visible on replica (ms)", "position (bytes)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("tables lack %q", want)
		}
	}

	md, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Replication lag") {
		t.Errorf("markdown lacks the lag section:\n%s", md)
	}
	raw, err := os.ReadFile(cfg.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.ReplRows) != 8 || len(back.Lag) != 2*lagPasses || len(back.ReplRuns) != len(rep.ReplRuns) {
		t.Errorf("JSON round trip lost replication data: %d rows, %d lag, %d runs", len(back.ReplRows), len(back.Lag), len(back.ReplRuns))
	}

	assertCleanedUp(t, rep, tmp)
	for _, r := range rep.ReplRuns {
		if !portFree(r.Port) {
			t.Errorf("primary port %d still in use after the run", r.Port)
		}
	}
}
