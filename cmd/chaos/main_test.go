package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ruvio/ruvio/chaos/runner"
	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/reports/check"
)

// plant writes a results folder for the crash scenario whose summary
// carries the given numbers.
func plant(t *testing.T, lost int64, valid check.Validity) string {
	lin := true
	return plantSummary(t, "crash", check.Summary{Valid: valid, Ops: 100, Acknowledged: 90, Lost: lost, Linearizable: &lin})
}

// plantSummary writes a results folder of the named scenario holding sum.
func plantSummary(t *testing.T, scenario string, sum check.Summary) string {
	dir := t.TempDir()
	sc, _ := scenarios.Get(scenario)
	meta := runner.Meta{Scenario: scenario, Backend: "local", Seed: 1, Runs: 1, Expect: sc.Expect}
	sum.Scenario, sum.Backend, sum.Seed, sum.Runs = scenario, "local", 1, 1
	for name, v := range map[string]any{"meta.json": meta, "summary.json": sum} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "history.jsonl"), nil, 0o644)
	return dir
}

func TestGateFailsOnAPlantedViolation(t *testing.T) {
	good := plant(t, 0, check.ValidTrue)
	if code := run([]string{"gate", good}); code != 0 {
		t.Fatalf("gate on a clean crash result exited %d", code)
	}
	bad := plant(t, 3, check.ValidFalse)
	if code := run([]string{"gate", good, bad}); code != 1 {
		t.Fatalf("gate on a result that lost 3 acknowledged writes exited %d, want 1", code)
	}
}

// failover-manual's gate tolerates the loss asynchronous replication
// allows, and holds the run to convergence instead.
func TestGateOfAManualFailover(t *testing.T) {
	lin, yes, no := false, true, false
	lossy := check.Summary{Valid: check.ValidTrue, Ops: 100, Acknowledged: 90, Lost: 4, Linearizable: &lin,
		Converged: &yes, Tolerated: []string{"lost 4 acknowledged writes"}}
	if code := run([]string{"gate", plantSummary(t, "failover-manual", lossy)}); code != 0 {
		t.Fatalf("gate on a converged failover that lost 4 writes exited %d, want 0", code)
	}
	lossy.Converged = &no
	if code := run([]string{"gate", plantSummary(t, "failover-manual", lossy)}); code != 1 {
		t.Fatalf("gate on nodes that did not converge exited %d, want 1", code)
	}
}

func TestListAndUsage(t *testing.T) {
	if code := run([]string{"list"}); code != 0 {
		t.Fatalf("list exited %d", code)
	}
	if code := run([]string{"run", "no-such-scenario"}); code != 2 {
		t.Fatalf("unknown scenario exited %d", code)
	}
	if code := run([]string{"frobnicate"}); code != 2 {
		t.Fatalf("unknown command exited %d", code)
	}
}

// coord-partition's gate holds a run to exactly one failover.
func TestGateOfACoordinatorPartition(t *testing.T) {
	yes := true
	one, two := int64(1), int64(2)
	held := int64(31000)
	sum := check.Summary{Valid: check.ValidTrue, Ops: 100, Acknowledged: 90, Converged: &yes,
		Failovers: &one, EpochRise: &one, PrimaryHeldMs: &held, UnforcedFailovers: &one}
	if code := run([]string{"gate", plantSummary(t, "coord-partition", sum)}); code != 0 {
		t.Fatalf("gate on one failover exited %d, want 0", code)
	}
	sum.Failovers, sum.EpochRise = &two, &two
	if code := run([]string{"gate", plantSummary(t, "coord-partition", sum)}); code != 1 {
		t.Fatalf("gate on two failovers exited %d, want 1", code)
	}
}
