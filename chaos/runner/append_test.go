package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/reports/elle"
)

// The transactional positive control: durability memory forgets the
// lists at every kill, and the transaction checker must see it, in the
// summary, in report.md, and again when the saved history is re-analysed.
func TestAppendCrashMemoryFindsAnomalies(t *testing.T) {
	dir, s := runScenario(t, "append-crash-memory", localBackend(), 4*time.Second)
	tr := s.Transactions
	if s.Valid != check.ValidFalse || tr == nil || tr.Total() == 0 || tr.Strongest == string(elle.StrictSerializable) {
		t.Fatalf("the transaction checker did not see durability memory forget the lists: valid %s, %+v", s.Valid, tr)
	}
	meta, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if misses := check.Gate(s, meta.Expect); len(misses) != 0 {
		t.Fatalf("the positive control failed its own gate: %v", misses)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Transactional anomalies", "checked for strict-serializable: **violated**", "### " + elle.Lost} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	again, err := Analyze(dir, 30*time.Second)
	if err != nil || len(again) != 1 || again[0].Transactions == nil || again[0].Transactions.Total() != tr.Total() {
		t.Fatalf("analyze: %+v %v", again, err)
	}
	if _, err := AnalyzeAs(dir, 30*time.Second, "linearizable"); err == nil {
		t.Error("analyze took a model the transactions checker does not know")
	}
	weak, err := AnalyzeAs(dir, 30*time.Second, string(elle.ReadCommitted))
	if err != nil || len(weak) != 1 || weak[0].Transactions == nil || weak[0].Transactions.Model != string(elle.ReadCommitted) {
		t.Fatalf("analyze as read-committed: %+v %v", weak, err)
	}
	t.Logf("%d transactions, anomalies %v, strongest model %s", tr.Transactions, tr.Anomalies, tr.Strongest)
}

// With durability always, kills lose only transactions in flight: the
// history stays strict serializable.
func TestAppendCrashIsStrictSerializable(t *testing.T) {
	dir, s := runScenario(t, "append-crash", localBackend(), 4*time.Second)
	tr := s.Transactions
	if s.Valid != check.ValidTrue || tr == nil || tr.Transactions == 0 || tr.Total() != 0 || tr.Strongest != string(elle.StrictSerializable) {
		t.Fatalf("append-crash: valid %s, %+v, violations %v", s.Valid, tr, s.Violations)
	}
	passesItsGate(t, dir, s)
}

// A partition table cell runs the append workload on Redis with
// Sentinel too, and the table reads its anomaly count.
func TestTableCellRunsTransactionsOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("a Redis group with Sentinels")
	}
	_, s := runScenarioAt(t, scenarios.CellName("redis", "kill", "none"), localBackend(), 6*time.Second, 20)
	if s.Transactions == nil || s.Transactions.Transactions == 0 {
		t.Fatalf("no transactions checked in a Redis cell: %+v", s.Transactions)
	}
	if v, ok := Measure(s, MAnomalies); !ok || v != float64(s.Transactions.Total()) {
		t.Errorf("anomalies measure %v %v, want %d", v, ok, s.Transactions.Total())
	}
	t.Logf("redis cell: %d transactions, anomalies %v", s.Transactions.Transactions, s.Transactions.Anomalies)
}

func TestTableHasAnAnomaliesTable(t *testing.T) {
	three := 3.0
	cell := CellResult{System: "ruvio", Shape: "kill", Protection: "none", Backend: "local",
		Values: map[string][]*float64{MAnomalies: {&three}}}
	md := RenderTable(map[string]CellResult{cell.key(): cell}, scenarios.DefaultTiming, 1, "local")
	i := strings.Index(md, "Transactional anomalies")
	if i < 0 {
		t.Fatalf("no anomalies table:\n%s", md)
	}
	if !strings.Contains(md[i:], "| kill | 3 |") {
		t.Errorf("the anomalies table lacks the kill cell's 3:\n%s", md[i:])
	}
	if _, ok := Measure(check.Summary{}, MAnomalies); ok {
		t.Error("a run without transactions has an anomaly count")
	}
}
