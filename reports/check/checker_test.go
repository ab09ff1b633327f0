package check

import (
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func TestMergeValidity(t *testing.T) {
	T, U, F := ValidTrue, ValidUnknown, ValidFalse
	tests := []struct {
		name string
		in   []Validity
		want Validity
	}{
		{"nothing to merge is true", nil, T},
		{"all true", []Validity{T, T}, T},
		{"one unknown among trues", []Validity{T, U, T}, U},
		{"only unknown", []Validity{U}, U},
		{"false outweighs true", []Validity{T, F}, F},
		{"false outweighs unknown", []Validity{U, F}, F},
		{"false first outweighs what follows", []Validity{F, U, T}, F},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MergeValidity(tc.in...); got != tc.want {
				t.Errorf("MergeValidity(%v) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// fixed is a checker that returns the same result whatever it reads.
type fixed struct {
	name string
	r    Result
}

func (f fixed) Name() string                  { return f.name }
func (f fixed) Check(*history.History) Result { return f.r }

func TestAllMergesItsCheckers(t *testing.T) {
	pass := fixed{"pass", Result{Valid: ValidTrue}}
	unsure := fixed{"unsure", Result{Valid: ValidUnknown, Undecided: []string{"timed out"}}}
	fails := fixed{"fails", Result{Valid: ValidFalse, Violations: []string{"lost a write"}}}
	tolerant := fixed{"tolerant", Result{Valid: ValidTrue, Tolerated: []string{"lost a write, allowed"}}}
	// A checker's own verdict counts even when it lists no reason.
	silentFail := fixed{"silent", Result{Valid: ValidFalse}}
	tests := []struct {
		name       string
		all        All
		valid      Validity
		violations []string
		tolerated  []string
		undecided  []string
	}{
		{name: "no checker passes", all: All{}, valid: ValidTrue},
		{name: "every checker passes", all: All{pass, pass}, valid: ValidTrue},
		{name: "an unknown makes the whole unknown", all: All{pass, unsure}, valid: ValidUnknown,
			undecided: []string{"unsure: timed out"}},
		{name: "a false outweighs an unknown", all: All{unsure, fails, pass}, valid: ValidFalse,
			violations: []string{"lost a write"}, undecided: []string{"unsure: timed out"}},
		{name: "tolerated anomalies do not fail", all: All{tolerant, pass}, valid: ValidTrue,
			tolerated: []string{"lost a write, allowed"}},
		{name: "a false verdict with no violation listed", all: All{pass, silentFail}, valid: ValidFalse},
		{name: "findings keep checker order", all: All{fails, tolerant, fails}, valid: ValidFalse,
			violations: []string{"lost a write", "lost a write"}, tolerated: []string{"lost a write, allowed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.all.Check(&history.History{})
			if r.Valid != tc.valid || !reflect.DeepEqual(r.Violations, tc.violations) ||
				!reflect.DeepEqual(r.Tolerated, tc.tolerated) || !reflect.DeepEqual(r.Undecided, tc.undecided) {
				t.Errorf("got valid %s violations %q tolerated %q undecided %q, want %s %q %q %q",
					r.Valid, r.Violations, r.Tolerated, r.Undecided, tc.valid, tc.violations, tc.tolerated, tc.undecided)
			}
		})
	}
}

func TestAllWritesFiguresInOrder(t *testing.T) {
	first := fixed{"first", Result{Valid: ValidTrue, Figures: func(s *Summary) { s.Lost, s.Stale = 1, 1 }}}
	second := fixed{"second", Result{Valid: ValidTrue, Figures: func(s *Summary) { s.Stale = 2 }}}
	all := All{first, fixed{"none", Result{Valid: ValidTrue}}, second}
	if got := all.Name(); got != "first+none+second" {
		t.Errorf("name %q", got)
	}
	var s Summary
	all.Check(&history.History{}).Figures(&s)
	if s.Lost != 1 || s.Stale != 2 {
		t.Errorf("lost %d stale %d: want 1 and the later checker's 2", s.Lost, s.Stale)
	}
	if (All{pass()}).Check(&history.History{}).Figures != nil {
		t.Error("checkers that measured nothing give no figures")
	}
}

func pass() Checker { return fixed{"pass", Result{Valid: ValidTrue}} }

// Analyze is the composition of the configured checkers: the lease
// checker runs only when asked for.
func TestCheckersFollowOptions(t *testing.T) {
	names := func(a All) []string {
		var out []string
		for _, c := range a {
			out = append(out, c.Name())
		}
		return out
	}
	base := []string{"ops", "set", "register", "windows", "coordination", "transactions", "changes", "lock", "replication"}
	if got := names(Checkers(Options{})); !reflect.DeepEqual(got, base) {
		t.Errorf("checkers %v, want %v", got, base)
	}
	withLease := []string{"ops", "set", "register", "windows", "coordination", "lease", "transactions", "changes", "lock", "replication"}
	if got := names(Checkers(Options{Lease: true})); !reflect.DeepEqual(got, withLease) {
		t.Errorf("checkers with a lease %v, want %v", got, withLease)
	}
	h := &history.History{Ops: []history.Op{addOp(1, "k", "a", history.OK, 0, 1), finalRead("k", 10, 11, "a")}}
	if s := Analyze(h, Options{Lease: true}); s.Lease == nil || s.Valid != ValidTrue {
		t.Errorf("with Lease: lease %v valid %s", s.Lease, s.Valid)
	}
	if s := Analyze(h, Options{}); s.Lease != nil {
		t.Errorf("without Lease the summary has lease figures %v", s.Lease)
	}
}
