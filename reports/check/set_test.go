package check

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

func kvs(vs []SetValue) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Key+"="+v.Value)
	}
	return out
}

func TestCheckSet(t *testing.T) {
	ok, fail, info := history.OK, history.Fail, history.Info
	tests := []struct {
		name                    string
		ops                     []history.Op
		stable, lost, neverRead []string
		stale, unknown          []string
		failedPresent           []string
		unexpected, duplicated  []string
		duplicateAdds           int
	}{
		{
			name:   "all acknowledged values survive",
			ops:    []history.Op{addOp(1, "k", "a", ok, 0, 1), addOp(2, "k", "b", ok, 2, 3), finalRead("k", 10, 11, "a", "b")},
			stable: []string{"k=a", "k=b"},
		},
		{
			name:   "an acknowledged value missing from the final read is lost",
			ops:    []history.Op{addOp(1, "k", "a", ok, 0, 1), addOp(2, "k", "b", ok, 2, 3), finalRead("k", 10, 11, "a")},
			stable: []string{"k=a"}, lost: []string{"k=b"},
		},
		{
			name: "indeterminate and failed adds that are absent are never-read, not lost",
			ops: []history.Op{addOp(1, "k", "a", ok, 0, 1), addOp(2, "k", "b", info, 2, 3), addOp(3, "k", "c", fail, 2, 3),
				finalRead("k", 10, 11, "a")},
			stable: []string{"k=a"}, neverRead: []string{"k=b", "k=c"},
		},
		{
			name:   "an indeterminate add that happened is stable",
			ops:    []history.Op{addOp(1, "k", "a", info, 0, 1), finalRead("k", 10, 11, "a")},
			stable: []string{"k=a"},
		},
		{
			name: "a read after the ack that misses a value a later read has is stale",
			ops: []history.Op{addOp(1, "k", "a", ok, 0, 1), readOp("k", 2, 3, "a"), readOp("k", 4, 5),
				readOp("k", 6, 7, "a"), finalRead("k", 10, 11, "a")},
			stable: []string{"k=a"}, stale: []string{"k=a"},
		},
		{
			name: "a read concurrent with the add may miss it",
			ops: []history.Op{addOp(1, "k", "a", ok, 0, 5), readOp("k", 4, 6), readOp("k", 5, 6),
				finalRead("k", 10, 11, "a")},
			stable: []string{"k=a"},
		},
		{
			name:   "a value read then gone for good is lost, not stale",
			ops:    []history.Op{addOp(1, "k", "a", ok, 0, 1), readOp("k", 2, 3, "a"), readOp("k", 4, 5), finalRead("k", 10, 11)},
			lost:   []string{"k=a"},
			stable: nil,
		},
		{
			name:    "no final read of the key leaves acknowledged values unknown",
			ops:     []history.Op{addOp(1, "k", "a", ok, 0, 1), addOp(1, "k", "b", info, 2, 3), addOp(1, "j", "c", ok, 0, 1), finalRead("j", 10, 11, "c")},
			stable:  []string{"j=c"},
			unknown: []string{"k=a"}, neverRead: []string{"k=b"},
		},
		{
			name: "a final read that failed does not count",
			ops: []history.Op{addOp(1, "k", "a", ok, 0, 1),
				func() history.Op { op := finalRead("k", 10, 11); op.Type = info; return op }()},
			unknown: []string{"k=a"},
		},
		{
			name:   "every final read must hold the value",
			ops:    []history.Op{addOp(1, "k", "a", ok, 0, 1), finalRead("k", 10, 11, "a"), on("n2", finalRead("k", 10, 11))},
			lost:   []string{"k=a"},
			stable: nil,
		},
		{
			name:          "a failed add in the final read is reported",
			ops:           []history.Op{addOp(1, "k", "a", fail, 0, 1), finalRead("k", 10, 11, "a")},
			failedPresent: []string{"k=a"},
		},
		{
			name:       "values no add wrote, and values read twice, are reported",
			ops:        []history.Op{addOp(1, "k", "a", ok, 0, 1), finalRead("k", 10, 11, "a", "a", "z")},
			stable:     []string{"k=a"},
			unexpected: []string{"k=z"}, duplicated: []string{"k=a"},
		},
		{
			name:          "a value added twice is a workload error",
			ops:           []history.Op{addOp(1, "k", "a", info, 0, 1), addOp(2, "k", "a", ok, 2, 3), finalRead("k", 10, 11)},
			lost:          []string{"k=a"},
			duplicateAdds: 1,
		},
	}
	norm := func(s []string) []string {
		if len(s) == 0 {
			return []string{}
		}
		return s
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckSet(tc.ops)
			check := func(what string, got, want []string) {
				t.Helper()
				if !reflect.DeepEqual(norm(got), norm(want)) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("stable", kvs(r.Stable), tc.stable)
			check("lost", kvs(r.Lost), tc.lost)
			check("never-read", kvs(r.NeverRead), tc.neverRead)
			check("stale", kvs(r.Stale), tc.stale)
			check("unknown", kvs(r.Unknown), tc.unknown)
			check("failed-present", kvs(r.FailedPresent), tc.failedPresent)
			check("unexpected", r.Unexpected, tc.unexpected)
			check("duplicated", r.Duplicated, tc.duplicated)
			if r.DuplicateAdds != tc.duplicateAdds {
				t.Errorf("duplicate adds = %d, want %d", r.DuplicateAdds, tc.duplicateAdds)
			}
		})
	}
}

func TestSetLatencies(t *testing.T) {
	r := CheckSet([]history.Op{
		addOp(1, "k", "a", history.OK, 0, 10),
		addOp(2, "k", "b", history.OK, 0, 10),
		addOp(3, "k", "c", history.Info, 0, 10),
		readOp("k", 5, 8, "a"),        // concurrent with a's add: latency clamps to 0
		readOp("k", 20, 30, "a", "b"), // b first seen at 30: 20 ms after its ack
		finalRead("k", 50, 60, "a", "c"),
	})
	if got, want := r.StableLatencies(), []time.Duration{0}; !reflect.DeepEqual(got, want) {
		t.Errorf("stable latencies = %v, want %v (the indeterminate c has none)", got, want)
	}
	if got, want := r.LostLatencies(), []time.Duration{20 * time.Millisecond}; !reflect.DeepEqual(got, want) {
		t.Errorf("lost latencies = %v, want %v", got, want)
	}
	if r.Lost[0].FirstSeen != 30*ms {
		t.Errorf("b first seen at %d, want %d", r.Lost[0].FirstSeen, 30*ms)
	}
}

func TestAnalyzeSetVerdicts(t *testing.T) {
	tests := []struct {
		name      string
		ops       []history.Op
		valid     Validity
		lost      int64
		stale     int64
		violation string
	}{
		{
			name:  "survivors only",
			ops:   []history.Op{addOp(1, "k", "a", history.OK, 0, 1), finalRead("k", 10, 11, "a")},
			valid: ValidTrue,
		},
		{
			name:      "a lost write is invalid",
			ops:       []history.Op{addOp(1, "k", "a", history.OK, 0, 1), addOp(1, "k", "b", history.OK, 2, 3), finalRead("k", 10, 11, "a")},
			valid:     ValidFalse,
			lost:      1,
			violation: "lost 1 acknowledged writes: k=b",
		},
		{
			name: "a stale read is counted and invalid",
			ops: []history.Op{addOp(1, "k", "a", history.OK, 0, 1), readOp("k", 4, 5),
				finalRead("k", 10, 11, "a")},
			valid: ValidFalse, stale: 1, violation: "1 values read stale",
		},
		{
			name:  "indeterminate values never read are not lost",
			ops:   []history.Op{addOp(1, "k", "a", history.OK, 0, 1), addOp(2, "k", "b", history.Info, 0, 1), finalRead("k", 10, 11, "a")},
			valid: ValidTrue,
		},
		{
			name:  "a missing final read is unknown",
			ops:   []history.Op{addOp(1, "k", "a", history.OK, 0, 1)},
			valid: ValidUnknown,
		},
		{
			name:      "a loss outweighs a missing final read",
			ops:       []history.Op{addOp(1, "k", "a", history.OK, 0, 1), addOp(1, "j", "b", history.OK, 0, 1), finalRead("j", 10, 11)},
			valid:     ValidFalse,
			lost:      1,
			violation: "lost 1 acknowledged writes: j=b",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Analyze(&history.History{Ops: tc.ops}, Options{})
			if s.Valid != tc.valid || s.Lost != tc.lost || s.Stale != tc.stale {
				t.Errorf("valid %s lost %d stale %d, want valid %s lost %d stale %d (violations %q)",
					s.Valid, s.Lost, s.Stale, tc.valid, tc.lost, tc.stale, s.Violations)
			}
			if tc.violation != "" && !strings.Contains(strings.Join(s.Violations, "\n"), tc.violation) {
				t.Errorf("violations %q lack %q", s.Violations, tc.violation)
			}
			if tc.violation == "" && len(s.Violations) > 0 {
				t.Errorf("unexpected violations %q", s.Violations)
			}
		})
	}
}

// AcceptStale tolerates, counted, only the stale reads on a killed node
// after its kill began (it restarted empty and answered until replaced):
// a stale read on another node, or on that node before the kill, and a
// lost write are still violations.
func TestAcceptStaleToleratesOnlyReadsOnTheKilledNode(t *testing.T) {
	kill := []history.Fault{{Kind: "kill", Target: "n1", StartMs: 3, EndMs: 4}}
	onNode := func(op history.Op, node string) history.Op { op.Node = node; return op }
	cases := []struct {
		name      string
		read      history.Op
		extra     []history.Op
		valid     Validity
		tolerated bool
	}{
		{"on the killed node after the kill", readOp("k", 4, 5), nil, ValidTrue, true},
		{"on the killed node before the kill", readOp("k", 2, 2), nil, ValidFalse, false},
		{"on another node after the kill", onNode(readOp("k", 4, 5), "n2"), nil, ValidFalse, false},
		{"excused, but a write is lost", readOp("k", 4, 5), []history.Op{addOp(2, "k", "b", history.OK, 6, 7)}, ValidFalse, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ops := append([]history.Op{addOp(1, "k", "a", history.OK, 0, 1), tc.read}, tc.extra...)
			ops = append(ops, finalRead("k", 10, 11, "a"))
			s := Analyze(&history.History{Ops: ops, Faults: kill}, Options{AcceptStale: true})
			tolerated := strings.Contains(strings.Join(s.Tolerated, "\n"), "1 values read stale on a node after it was killed")
			if s.Valid != tc.valid || s.Stale != 1 || tolerated != tc.tolerated {
				t.Errorf("valid %s stale %d tolerated %q violations %q; want valid %s, stale 1, tolerated %v",
					s.Valid, s.Stale, s.Tolerated, s.Violations, tc.valid, tc.tolerated)
			}
		})
	}
	plain := Analyze(&history.History{Ops: []history.Op{addOp(1, "k", "a", history.OK, 0, 1), readOp("k", 4, 5),
		finalRead("k", 10, 11, "a")}, Faults: kill}, Options{})
	if plain.Valid != ValidFalse {
		t.Errorf("without AcceptStale the read on the killed node is tolerated: %s", plain.Valid)
	}
}

func TestLostKeysAreBounded(t *testing.T) {
	var ops []history.Op
	for i := range 30 {
		ops = append(ops, addOp(i, "k", string(rune('A'+i)), history.OK, int64(i), int64(i)+1))
	}
	ops = append(ops, finalRead("k", 100, 101))
	s := Analyze(&history.History{Ops: ops}, Options{})
	if s.Lost != 30 || len(s.LostKeys) != MaxLostKeys || s.LostKeys[0] != "k=A" {
		t.Fatalf("lost %d, lost_keys %v: want 30 lost and the first %d named", s.Lost, s.LostKeys, MaxLostKeys)
	}
	if !strings.Contains(s.Violations[0], "(20 more)") {
		t.Errorf("violation %q should say how many it left out", s.Violations[0])
	}
}
