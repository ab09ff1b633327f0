package runner

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos"
	"github.com/ruvio/ruvio/chaos/docker"
	"github.com/ruvio/ruvio/chaos/local"
	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/reports/check"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chaos-runner")
	if err != nil {
		panic(err)
	}
	if binary, err = BuildBinary(context.Background(), dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runScenario(t *testing.T, name string, backend chaos.Backend, d time.Duration) (string, check.Summary) {
	t.Helper()
	sc, ok := scenarios.Get(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	sc.Settle = time.Second
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir, sum, err := Run(context.Background(), Options{Scenario: sc, Backend: backend, Runs: 1, Seed: 7, Out: t.TempDir(),
		Duration: d, Binary: binary, Progress: io.Discard, Log: log, LinearizabilityLimit: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"history.jsonl", "summary.json", "report.md", "timeline.html", "latency.png", "meta.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("results lack %s", f)
		}
	}
	return dir, sum
}

// The crash scenario, briefly, on local processes: durability always
// loses no acknowledged write and the registers stay linearizable.
func TestCrashScenarioLocal(t *testing.T) {
	_, s := runScenario(t, "crash", local.New(slog.New(slog.NewTextHandler(io.Discard, nil))), 5*time.Second)
	if s.Valid != check.ValidTrue || s.Lost != 0 || s.Acknowledged == 0 || len(s.Faults) == 0 {
		t.Fatalf("crash: %+v", s)
	}
}

// The positive control: with durability memory the harness must see the
// loss, and the gate must accept exactly that.
func TestCrashMemoryIsCaught(t *testing.T) {
	dir, s := runScenario(t, "crash-memory", local.New(slog.New(slog.NewTextHandler(io.Discard, nil))), 5*time.Second)
	if s.Valid != check.ValidFalse || s.Lost == 0 {
		t.Fatalf("the harness did not see durability memory lose data: %+v", s)
	}
	meta, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if misses := check.Gate(s, meta.Expect); len(misses) != 0 {
		t.Fatalf("the positive control failed its own gate: %v", misses)
	}
	// Re-analysing the saved history gives the same verdict.
	again, err := Analyze(dir, 30*time.Second)
	if err != nil || len(again) != 1 || again[0].Lost != s.Lost || again[0].Valid != s.Valid {
		t.Fatalf("analyze: %+v %v", again, err)
	}
}

// One Docker-backend smoke run; skipped where no engine answers unless
// CHAOS_REQUIRE_DOCKER=1.
func TestCrashScenarioDocker(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := docker.Answers(context.Background(), log); err != nil {
		if os.Getenv("CHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CHAOS_REQUIRE_DOCKER=1 but %v", err)
		}
		t.Skipf("%v; set CHAOS_REQUIRE_DOCKER=1 to make this a failure", err)
	}
	docker.Sweep(context.Background())
	_, s := runScenario(t, "crash", docker.New(log), 5*time.Second)
	if s.Valid != check.ValidTrue || s.Lost != 0 || s.Acknowledged == 0 {
		t.Fatalf("crash on docker: %+v", s)
	}
}
