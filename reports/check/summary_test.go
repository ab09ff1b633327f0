package check

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// summaryKeys is the contract with the report renderer, `chaos gate` and
// the figure scripts.
var summaryKeys = []string{
	"scenario", "backend", "seed", "runs", "valid", "ops", "acknowledged", "failed", "indeterminate",
	"lost", "lost_keys", "stale", "linearizable", "failover_ms", "unavailable_ms", "two_writer_ms",
	"refusal_ms", "catch_up_max_ms", "catch_ups", "converged", "faults", "violations", "tolerated",
	"refusal_after_failover_ms", "unacknowledged_writes", "failovers", "epoch_rise", "primary_held_ms",
	"unforced_failovers",
}

func TestSummaryJSONGolden(t *testing.T) {
	s := Summary{
		Scenario: "crash", Backend: "local", Seed: 1<<62 + 1, Runs: 1, Valid: ValidFalse,
		Ops: 10, Acknowledged: 6, Failed: 2, Indeterminate: 2,
		Lost: 1, LostKeys: []string{"k1=7"}, Stale: 0, Linearizable: boolPtr(true),
		UnavailableMs: i64(1234), CatchUpMaxMs: i64(87), CatchUps: 3, Converged: boolPtr(true),
		UnacknowledgedWrites: 2, Failovers: i64(1), EpochRise: i64(1), PrimaryHeldMs: i64(30500), UnforcedFailovers: i64(1),
		Faults:     []history.Fault{{Kind: "kill", Target: "n1", StartMs: 2000, EndMs: 3000, Note: "SIGKILL"}},
		Violations: []string{"lost 1 acknowledged writes: k1=7"},
		Tolerated:  []string{"register history is not linearizable (keys x)"},
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "summary.golden.json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("summary.json changed; got\n%s\nwant\n%s", got, want)
	}
	// Independently of the golden bytes, the key set itself.
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	wantKeys := append([]string(nil), summaryKeys...)
	sort.Strings(wantKeys)
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("keys %v, want exactly %v", keys, wantKeys)
	}
	// It reads back as it was.
	var back Summary
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("round trip: got %+v, want %+v", back, s)
	}
}

func TestZeroSummaryJSON(t *testing.T) {
	got, err := json.Marshal(Summary{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"valid":"unknown"`, `"linearizable":null`, `"failover_ms":null`, `"unavailable_ms":null`,
		`"two_writer_ms":null`, `"refusal_ms":null`, `"lost_keys":[]`, `"faults":[]`, `"violations":[]`,
		`"catch_up_max_ms":null`, `"converged":null`, `"tolerated":[]`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
}

func TestValidityJSON(t *testing.T) {
	for _, tc := range []struct {
		v    Validity
		json string
	}{{ValidTrue, "true"}, {ValidFalse, "false"}, {ValidUnknown, `"unknown"`}} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.json {
			t.Errorf("%v marshals to %s (%v), want %s", tc.v, b, err, tc.json)
		}
		var back Validity = 42
		if err := json.Unmarshal(b, &back); err != nil || back != tc.v {
			t.Errorf("%s unmarshals to %v (%v), want %v", b, back, err, tc.v)
		}
	}
	var v Validity
	if err := json.Unmarshal([]byte(`"yes"`), &v); err == nil {
		t.Error(`"yes" was accepted as a verdict`)
	}
}

func TestZeroAcknowledgedIsInvalid(t *testing.T) {
	h := &history.History{Ops: []history.Op{
		addOp(1, "k", "a", history.Info, 0, 1),
		addOp(2, "k", "b", history.Fail, 0, 1),
		func() history.Op { op := finalRead("k", 10, 11); op.Type = history.Fail; return op }(),
	}}
	s := Analyze(h, Options{})
	if s.Valid != ValidFalse || s.Acknowledged != 0 || s.Ops != 3 || s.Failed != 2 || s.Indeterminate != 1 {
		t.Fatalf("valid %s ops %d ack %d failed %d info %d", s.Valid, s.Ops, s.Acknowledged, s.Failed, s.Indeterminate)
	}
	if len(s.Violations) != 1 || s.Violations[0] != "no acknowledged operations: the run proves nothing" {
		t.Errorf("violations %q", s.Violations)
	}
	if miss := Gate(s, Expectations{ExpectInvalid: true}); len(miss) != 1 || !strings.Contains(miss[0], "acknowledged = 0") {
		t.Errorf("a positive control with nothing acknowledged must not pass the gate: %q", miss)
	}
}

func TestGate(t *testing.T) {
	good := Summary{Valid: ValidTrue, Acknowledged: 100, Linearizable: boolPtr(true),
		UnavailableMs: i64(900), TwoWriterMs: i64(0), FailoverMs: i64(1500)}
	control := Summary{Valid: ValidFalse, Acknowledged: 100, Lost: 3}
	strict := Expectations{MaxLost: i64(0), RequireLinearizable: true, MaxUnavailableMs: i64(1000),
		MaxTwoWriterMs: i64(0), MaxFailoverMs: i64(2000), MinAcknowledged: 10}
	with := func(s Summary, f func(*Summary)) Summary { f(&s); return s }
	tests := []struct {
		name string
		s    Summary
		e    Expectations
		miss string // "" = pass
	}{
		{"met", good, strict, ""},
		{"met with defaults", good, Expectations{}, ""},
		{"positive control met", control, Expectations{MinLost: i64(1), ExpectInvalid: true}, ""},
		{"invalid", with(good, func(s *Summary) { s.Valid = ValidFalse }), strict, "valid = false, want true"},
		{"unknown is no pass", with(good, func(s *Summary) { s.Valid = ValidUnknown }), strict, "valid = unknown, want true"},
		{"lost", with(good, func(s *Summary) { s.Lost = 1 }), strict, "lost = 1, want <= 0"},
		{"positive control saw no loss", with(control, func(s *Summary) { s.Lost = 0 }),
			Expectations{MinLost: i64(1), ExpectInvalid: true}, "lost = 0, want >= 1"},
		{"positive control not invalid", with(control, func(s *Summary) { s.Valid = ValidUnknown }),
			Expectations{MinLost: i64(1), ExpectInvalid: true}, "valid = unknown, want false"},
		{"not linearizable", with(good, func(s *Summary) { s.Linearizable = boolPtr(false) }), strict, "linearizable = false"},
		{"linearizability unchecked", with(good, func(s *Summary) { s.Linearizable = nil }), strict, "linearizable = null"},
		{"unavailable too long", with(good, func(s *Summary) { s.UnavailableMs = i64(1001) }), strict, "unavailable_ms = 1001, want <= 1000"},
		{"unavailable not measured", with(good, func(s *Summary) { s.UnavailableMs = nil }), strict, "unavailable_ms = null"},
		{"two writers", with(good, func(s *Summary) { s.TwoWriterMs = i64(5) }), strict, "two_writer_ms = 5, want <= 0"},
		{"failover too slow", with(good, func(s *Summary) { s.FailoverMs = i64(2500) }), strict, "failover_ms = 2500, want <= 2000"},
		{"no failover seen", with(good, func(s *Summary) { s.FailoverMs = nil }), strict, "failover_ms = null"},
		{"too few acknowledged", with(good, func(s *Summary) { s.Acknowledged = 9 }), strict, "acknowledged = 9, want >= 10"},
		{"nothing acknowledged", with(good, func(s *Summary) { s.Acknowledged = 0 }), Expectations{}, "acknowledged = 0, want >= 1"},
		{"converged", with(good, func(s *Summary) { s.Converged = boolPtr(true) }), Expectations{RequireConverged: true}, ""},
		{"not converged", with(good, func(s *Summary) { s.Converged = boolPtr(false) }), Expectations{RequireConverged: true}, "converged = false"},
		{"convergence unchecked", good, Expectations{RequireConverged: true}, "converged = null"},
		{"one failover as required", with(good, func(s *Summary) { s.Failovers, s.EpochRise = i64(1), i64(1) }),
			Expectations{Failovers: i64(1), EpochRise: i64(1)}, ""},
		{"a second failover", with(good, func(s *Summary) { s.Failovers, s.EpochRise = i64(2), i64(1) }),
			Expectations{Failovers: i64(1), EpochRise: i64(1)}, "failovers = 2, want exactly 1"},
		{"no failover where one was due", with(good, func(s *Summary) { s.Failovers, s.EpochRise = i64(0), i64(0) }),
			Expectations{Failovers: i64(0), EpochRise: i64(1)}, "epoch_rise = 0, want exactly 1"},
		{"coordinators not watched", good, Expectations{Failovers: i64(0)}, "failovers = null"},
		{"a failover before FORCE", with(good, func(s *Summary) { s.UnforcedFailovers = i64(1) }),
			Expectations{MaxUnforcedFailovers: i64(0)}, "unforced_failovers = 1, want <= 0"},
		{"a write not taken", with(good, func(s *Summary) { s.UnacknowledgedWrites = 3 }),
			Expectations{MaxUnacknowledgedWrites: i64(0)}, "unacknowledged_writes = 3, want <= 0"},
		{"tolerated loss passes a gate without MaxLost", with(good, func(s *Summary) {
			s.Lost, s.Linearizable, s.Converged = 7, boolPtr(false), boolPtr(true)
			s.Tolerated = []string{"lost 7 acknowledged writes"}
		}), Expectations{RequireConverged: true}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			miss := Gate(tc.s, tc.e)
			switch {
			case tc.miss == "" && len(miss) > 0:
				t.Errorf("want a pass, got %q", miss)
			case tc.miss != "" && (len(miss) != 1 || !strings.Contains(miss[0], tc.miss)):
				t.Errorf("want exactly the miss %q, got %q", tc.miss, miss)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	a := Summary{Scenario: "crash", Runs: 1, Valid: ValidTrue, Ops: 10, Acknowledged: 8, Linearizable: boolPtr(true),
		UnavailableMs: i64(100), Faults: []history.Fault{{Kind: "kill", Target: "n1", Note: "SIGKILL"}}}
	b := Summary{Scenario: "crash", Runs: 1, Valid: ValidUnknown, Ops: 5, Acknowledged: 4, Lost: 1, LostKeys: []string{"k=1"},
		UnavailableMs: i64(300), Violations: []string{"x"}}
	m := Merge([]Summary{a, b})
	if m.Runs != 2 || m.Ops != 15 || m.Acknowledged != 12 || m.Lost != 1 || *m.UnavailableMs != 300 || m.FailoverMs != nil {
		t.Errorf("merged %+v", m)
	}
	if m.Valid != ValidUnknown || m.Linearizable != nil {
		t.Errorf("valid %s linearizable %v: an undecided run leaves the lot undecided", m.Valid, m.Linearizable)
	}
	if !reflect.DeepEqual(m.Violations, []string{"run 2: x"}) || m.Faults[0].Note != "run 1: SIGKILL" {
		t.Errorf("violations %q faults %+v", m.Violations, m.Faults)
	}
	b.Valid, b.Linearizable = ValidFalse, boolPtr(false)
	if m := Merge([]Summary{a, b}); m.Valid != ValidFalse || m.Linearizable == nil || *m.Linearizable {
		t.Errorf("one refuted run must refute the lot: valid %s linearizable %v", m.Valid, m.Linearizable)
	}
	a.CatchUpMaxMs, a.CatchUps, a.Converged = i64(40), 2, boolPtr(true)
	b.CatchUpMaxMs, b.CatchUps, b.Tolerated = i64(90), 3, []string{"lost 1"}
	if m := Merge([]Summary{a, b}); *m.CatchUpMaxMs != 90 || m.CatchUps != 5 || m.Converged == nil || !*m.Converged ||
		!reflect.DeepEqual(m.Tolerated, []string{"run 2: lost 1"}) {
		t.Errorf("catch-up %v over %d, converged %v, tolerated %q", m.CatchUpMaxMs, m.CatchUps, m.Converged, m.Tolerated)
	}
	b.Converged = boolPtr(false)
	if m := Merge([]Summary{a, b}); m.Converged == nil || *m.Converged {
		t.Errorf("one run that did not converge must show: %v", m.Converged)
	}
	if m := Merge(nil); m.Valid != ValidUnknown {
		t.Errorf("merging nothing gives %s", m.Valid)
	}
}
