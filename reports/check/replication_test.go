package check

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func catchUp(node, typ string, start, end int64) history.Observation {
	return history.Observation{Kind: history.ObsCatchUp, Node: node, Type: typ, StartMs: start, EndMs: end, Detail: "after restart"}
}

func TestCheckReplication(t *testing.T) {
	conv := func(typ string, at int64) history.Observation {
		return history.Observation{Kind: history.ObsConvergence, Type: typ, StartMs: at, EndMs: at + 50, Detail: "digest"}
	}
	tests := []struct {
		name      string
		obs       []history.Observation
		max       int64 // -1: nil
		catchUps  int
		cut       int
		converged string // "", "true", "false"
		problems  []string
	}{
		{"nothing observed", nil, -1, 0, 0, "", nil},
		{"catch-ups, the longest counts", []history.Observation{
			catchUp("n2", history.OK, 1000, 1040), catchUp("n3", history.OK, 3000, 3210), catchUp("n2", history.OK, 5000, 5005),
		}, 210, 3, 0, "", nil},
		{"a catch-up cut short by the next fault is undecided", []history.Observation{
			catchUp("n2", history.Info, 1000, 1300), catchUp("n3", history.OK, 2000, 2020),
		}, 20, 1, 1, "", nil},
		{"a catch-up out of time is a problem", []history.Observation{catchUp("n2", history.Fail, 1000, 31000)},
			-1, 0, 0, "", []string{"replica n2 did not catch up"}},
		{"converged", []history.Observation{conv(history.OK, 9000)}, -1, 0, 0, "true", nil},
		{"not converged", []history.Observation{conv(history.Fail, 9000)}, -1, 0, 0, "false", []string{"nodes did not converge"}},
		{"a refused promotion is a problem", []history.Observation{
			{Kind: history.ObsPromotion, Node: "n2", Type: history.Fail, StartMs: 10, EndMs: 20, Detail: "ERR x"},
			{Kind: history.ObsRejoin, Node: "n1", Type: history.OK, StartMs: 30, EndMs: 40},
		}, -1, 0, 0, "", []string{"promotion of n2 failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckReplication(tc.obs)
			if m := r.MaxCatchUpMs(); (tc.max < 0) != (m == nil) || m != nil && *m != tc.max {
				t.Errorf("max catch-up %v, want %d", m, tc.max)
			}
			if len(r.CatchUpsMs) != tc.catchUps || r.Unfinished != tc.cut {
				t.Errorf("%d catch-ups, %d unfinished; want %d, %d", len(r.CatchUpsMs), r.Unfinished, tc.catchUps, tc.cut)
			}
			got := ""
			if r.Converged != nil {
				got = map[bool]string{true: "true", false: "false"}[*r.Converged]
			}
			if got != tc.converged {
				t.Errorf("converged %q, want %q", got, tc.converged)
			}
			if len(r.Problems) != len(tc.problems) {
				t.Fatalf("problems %q, want %q", r.Problems, tc.problems)
			}
			for i, p := range tc.problems {
				if !strings.Contains(r.Problems[i], p) {
					t.Errorf("problem %q lacks %q", r.Problems[i], p)
				}
			}
		})
	}
}

// A failover of asynchronous replication may lose acknowledged writes
// (those the replica had not received): under AcceptLoss they are
// reported, but tolerated; any other violation still fails the run, and
// so do nodes that did not converge.
func TestAcceptLossToleratesOnlyLoss(t *testing.T) {
	base := []history.Op{
		on("n1", addOp(1, "k", "a", history.OK, 0, 10)),
		on("n1", addOp(1, "k", "b", history.OK, 20, 30)),
		on("n1", writeOp(2, "x1", history.OK, 0, 10)),
		on("n2", getOp(3, "", 100, 110)),
		on("n2", finalRead("k", 200, 210, "a")),
	}
	h := &history.History{Ops: base, Observations: []history.Observation{
		{Kind: history.ObsConvergence, Type: history.OK, StartMs: 300, EndMs: 320},
	}}
	strict := Analyze(h, Options{})
	if strict.Valid != ValidFalse || strict.Lost != 1 || len(strict.Violations) != 2 || len(strict.Tolerated) != 0 {
		t.Fatalf("without AcceptLoss: valid %s lost %d violations %q tolerated %q", strict.Valid, strict.Lost, strict.Violations, strict.Tolerated)
	}
	s := Analyze(h, Options{AcceptLoss: true})
	if s.Valid != ValidTrue || s.Lost != 1 || s.Linearizable == nil || *s.Linearizable || len(s.Violations) != 0 {
		t.Fatalf("with AcceptLoss: valid %s lost %d linearizable %v violations %q", s.Valid, s.Lost, s.Linearizable, s.Violations)
	}
	if len(s.Tolerated) != 2 || !strings.Contains(s.Tolerated[0], "lost 1 acknowledged writes: k=b") ||
		!strings.Contains(s.Tolerated[1], "not linearizable") {
		t.Errorf("tolerated %q", s.Tolerated)
	}
	if s.Converged == nil || !*s.Converged {
		t.Errorf("converged %v", s.Converged)
	}

	h.Observations[0].Type = history.Fail
	h.Ops = append(h.Ops, on("n2", addOp(4, "k", "c", history.Fail, 40, 50)))
	h.Ops[4] = on("n2", finalRead("k", 200, 210, "a", "c"))
	s = Analyze(h, Options{AcceptLoss: true})
	if s.Valid != ValidFalse || len(s.Violations) != 2 {
		t.Fatalf("a failed write present and no convergence must still fail: valid %s violations %q", s.Valid, s.Violations)
	}
}
