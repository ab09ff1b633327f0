package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEndToEndExtraTables builds ruvio and runs the pinned row, the TLS
// row, the keyspace row, the memory table and the recovery table alone,
// each in its quickest form, against redis-server: every table must have
// its rows with both sides' numbers above 0.
func TestEndToEndExtraTables(t *testing.T) {
	bin, server, bench := builtRuvio(t)
	tmp := scratchTMPDIR(t)
	cfg := e2eConfig(t, bin, server, bench, config{
		// Enough that a pipelined test does not end within
		// redis-benchmark's 1 ms clock.
		Requests:           2000,
		Clients:            10,
		Pipelines:          []int{1, 16},
		BasePort:           27900,
		Timeout:            time.Minute,
		Pinned:             []string{"set", "get"},
		TLS:                []string{"set", "get"},
		Keyspace:           []string{"set", "get"},
		KeyspaceKeys:       500,
		Memory:             memoryKinds,
		MemoryKeys:         5000,
		Recovery:           []int{2000},
		RecoveryDurability: durabilityAlways,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, stdout, _ := runE2E(t, ctx, cfg, ruvioKind(bin), redisKind(server))

	// The pinned and TLS rows: SET and GET at both depths, unless this
	// machine cannot run them, which the table must then say.
	for _, part := range []struct {
		name, skipped, title string
		rows                 []row
		runs                 []runResult
	}{
		{"pinned", rep.PinnedSkipped, "pinned: memory profile", rep.PinnedRows, rep.PinnedRuns},
		{"tls", rep.TLSSkipped, "tls: memory profile", rep.TLSRows, rep.TLSRuns},
	} {
		if part.skipped != "" {
			t.Logf("%s row skipped here: %s", part.name, part.skipped)
			if !strings.Contains(stdout, part.skipped) {
				t.Errorf("%s: the output does not say why it was skipped", part.name)
			}
			continue
		}
		checkBenchRows(t, part.name, part.rows, 4)
		if !strings.Contains(stdout, part.title) {
			t.Errorf("%s: no table", part.name)
		}
		for _, r := range part.runs {
			if part.name == "pinned" && !r.Pinned || part.name == "tls" && !r.TLS {
				t.Errorf("%s run %+v not marked as such", part.name, r)
			}
		}
	}

	// The keyspace row: SET and GET at both depths, redis-benchmark told
	// to pick random keys.
	checkBenchRows(t, "keyspace", rep.KeyspaceRows, 4)
	if !strings.Contains(stdout, "keyspace: memory profile, 1 shard, redis-benchmark -r 500") {
		t.Error("keyspace: no table")
	}
	for _, r := range rep.KeyspaceRuns {
		if !slices.Contains(r.Args, "-r") {
			t.Errorf("keyspace run %+v: redis-benchmark was not given -r", r)
		}
	}

	if len(rep.MemoryRows) != 3 {
		t.Fatalf("%d memory rows, want 3", len(rep.MemoryRows))
	}
	for _, r := range rep.MemoryRows {
		for _, v := range []*float64{r.RuvioUsed, r.RedisUsed, r.UsedRatio, r.RuvioRSS, r.RedisRSS, r.RSSRatio} {
			if v == nil || *v <= 0 {
				t.Errorf("memory row %s lacks a number above 0: %s", r.Shape, strings.Join(memoryTableData([]memoryRow{r})[0], " | "))
				break
			}
		}
	}
	if len(rep.RecoveryRows) != 3 {
		t.Fatalf("%d recovery rows, want 3 (log, snapshot, full copy)", len(rep.RecoveryRows))
	}
	for _, r := range rep.RecoveryRows {
		if r.Ruvio == nil || r.Redis == nil || r.Ratio == nil || *r.Ruvio <= 0 || *r.Redis <= 0 {
			t.Errorf("incomplete recovery row %s", strings.Join(recoveryTableData([]recoveryRow{r}, "ruvio", "redis")[0], " | "))
		}
	}
	for _, r := range rep.RecoveryRuns {
		if r.Role == roleRuvio && r.LogRecords < 2000 {
			t.Errorf("ruvio's log-only restart replayed %d records, want 2000", r.LogRecords)
		}
	}

	md, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"## Memory", "## Recovery"} {
		if !strings.Contains(string(md), h) {
			t.Errorf("markdown lacks %q", h)
		}
	}
	raw, err := os.ReadFile(cfg.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.MemoryRows) != 3 || len(back.RecoveryRows) != 3 || len(back.PinnedRows) != len(rep.PinnedRows) || len(back.TLSRows) != len(rep.TLSRows) {
		t.Errorf("JSON round trip lost rows: %d memory, %d recovery, %d pinned, %d tls",
			len(back.MemoryRows), len(back.RecoveryRows), len(back.PinnedRows), len(back.TLSRows))
	}
	assertCleanedUp(t, rep, tmp)
}

// checkBenchRows checks that a redis-benchmark table has want rows, each
// with both sides' ops/s above 0 and their CPU times read, and that the
// servers spent some CPU over the table (a single test may take less than
// /proc's 10 ms tick).
func checkBenchRows(t *testing.T, name string, rows []row, want int) {
	t.Helper()
	if len(rows) != want {
		t.Errorf("%s: %d rows, want %d", name, len(rows), want)
		return
	}
	var cpu [2]float64
	for _, r := range rows {
		if r.Ruvio == nil || r.Redis == nil || r.Ratio == nil || *r.Ruvio <= 0 || *r.Redis <= 0 || r.RuvioCPU == nil || r.RedisCPU == nil {
			t.Errorf("%s: incomplete row %s", name, strings.Join(tableData([]row{r})[0], " | "))
			continue
		}
		cpu[0] += *r.RuvioCPU
		cpu[1] += *r.RedisCPU
	}
	if cpu[0] <= 0 || cpu[1] <= 0 {
		t.Errorf("%s: CPU per million summed over the rows %v, want both above 0", name, cpu)
	}
}

// TestTLSRowSkipped checks that a redis-server that will not start with
// --tls-port skips the TLS row with its words as the reason, without
// failing the run or starting the other side.
func TestTLSRowSkipped(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh in PATH")
	}
	t.Setenv("TMPDIR", t.TempDir())
	noTLS := serverKind{
		Name: "redis-without-tls",
		Path: sh,
		Args: func(int, int, string, string) []string {
			return []string{"-c", "echo 'TLS not supported in this build' >&2; exit 1"}
		},
		Width: func(int) int { return 1 },
	}
	never := noTLS
	never.Name = "never-started"
	alloc := &portAllocator{next: 27950, free: func(int) bool { return true }}
	cfg := config{TLS: []string{"set"}, Pipelines: []int{1}}
	runs, skipped, err := runTLS(context.Background(), cfg, never, noTLS, alloc, slog.New(slog.NewTextHandler(testLogWriter{t}, nil)))
	if err != nil || len(runs) != 0 {
		t.Fatalf("runs %v, err %v; want the row skipped", runs, err)
	}
	if !strings.Contains(skipped, "did not start with --tls-port") || !strings.Contains(skipped, "TLS not supported in this build") {
		t.Errorf("reason %q does not say why", skipped)
	}
	var buf bytes.Buffer
	if err := renderExtra(&buf, report{TLS: cfg.TLS, TLSSkipped: skipped}, false); err != nil || !strings.Contains(buf.String(), "TLS row skipped: ") {
		t.Errorf("rendered %q, %v", buf.String(), err)
	}
}
