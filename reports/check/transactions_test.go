package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

func txnOp(p int, typ string, t0, t1 int64, final bool, mops ...string) history.Op {
	return history.Op{Process: p, Type: typ, F: elle.OpF, Values: mops, T0: t0 * ms, T1: t1 * ms, Node: "n1", Final: final}
}

func TestTransactionsChecker(t *testing.T) {
	valid := &history.History{Ops: []history.Op{
		txnOp(0, history.OK, 0, 10, false, "append x 1", "r y"),
		txnOp(1, history.OK, 20, 30, false, "r x 1", "append y 2"),
		txnOp(2, history.OK, 40, 50, true, "r x 1"),
		txnOp(2, history.OK, 40, 50, true, "r y 2"),
	}}
	// The final read misses an acknowledged append, and a read begun
	// after the append completed missed it too.
	broken := &history.History{Ops: []history.Op{
		txnOp(0, history.OK, 0, 10, false, "append x 1"),
		txnOp(1, history.OK, 20, 30, false, "r x"),
		txnOp(2, history.OK, 40, 50, true, "r x"),
	}}
	cases := []struct {
		name       string
		h          *history.History
		opts       Options
		valid      Validity
		violations int
		tolerated  int
		strongest  elle.Model
	}{
		{"valid", valid, Options{}, ValidTrue, 0, 0, elle.StrictSerializable},
		{"broken", broken, Options{}, ValidFalse, 1, 0, elle.Serializable},
		{"broken, loss accepted", broken, Options{AcceptLoss: true}, ValidTrue, 0, 1, elle.Serializable},
		{"broken, serializable asked", broken, Options{Consistency: elle.Serializable}, ValidTrue, 0, 1, elle.Serializable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Analyze(tc.h, tc.opts)
			var v, tol []string
			for _, l := range s.Violations {
				if strings.HasPrefix(l, "transactions:") {
					v = append(v, l)
				}
			}
			for _, l := range s.Tolerated {
				if strings.HasPrefix(l, "transactions:") {
					tol = append(tol, l)
				}
			}
			if s.Valid != tc.valid || len(v) != tc.violations || len(tol) != tc.tolerated {
				t.Fatalf("valid %v, violations %q, tolerated %q", s.Valid, v, tol)
			}
			if s.Transactions == nil || s.Transactions.Strongest != string(tc.strongest) || s.Transactions.Transactions != len(tc.h.Ops) {
				t.Fatalf("transactions %+v, want strongest %s", s.Transactions, tc.strongest)
			}
			if want := tc.violations + tc.tolerated; s.Transactions.Total() < want {
				t.Errorf("%d anomalies counted for %d lines", s.Transactions.Total(), want)
			}
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back Summary
			if err := json.Unmarshal(raw, &back); err != nil || back.Transactions == nil || back.Transactions.Strongest != s.Transactions.Strongest {
				t.Errorf("summary.json lost the transaction figures: %v %+v", err, back.Transactions)
			}
		})
	}
}

func TestTransactionsCheckerRejectsAnUnknownModel(t *testing.T) {
	h := &history.History{Ops: []history.Op{txnOp(0, history.OK, 0, 10, true, "r x")}}
	if s := Analyze(h, Options{Consistency: "linearizable"}); s.Valid != ValidFalse {
		t.Errorf("an unknown model passed: %v", s.Violations)
	}
}

func TestMergeTransactions(t *testing.T) {
	a := Summary{Transactions: &TxnResult{Transactions: 3, Strongest: "strict-serializable", Anomalies: map[string]int{}}}
	b := Summary{Transactions: &TxnResult{Transactions: 4, Strongest: "serializable", Anomalies: map[string]int{elle.Lost: 2}}}
	m := Merge([]Summary{a, b, {}})
	if m.Transactions == nil || m.Transactions.Transactions != 7 || m.Transactions.Strongest != "serializable" || m.Transactions.Anomalies[elle.Lost] != 2 {
		t.Fatalf("merged %+v", m.Transactions)
	}
	if len(a.Transactions.Anomalies) != 0 {
		t.Error("Merge wrote into its input")
	}
}
