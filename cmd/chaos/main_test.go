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
	dir := t.TempDir()
	sc, _ := scenarios.Get("crash")
	meta := runner.Meta{Scenario: "crash", Backend: "local", Seed: 1, Runs: 1, Expect: sc.Expect}
	lin := true
	sum := check.Summary{Scenario: "crash", Backend: "local", Seed: 1, Runs: 1, Valid: valid, Ops: 100,
		Acknowledged: 90, Lost: lost, Linearizable: &lin}
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
