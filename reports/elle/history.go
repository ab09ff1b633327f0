package elle

import (
	"fmt"

	"github.com/ruvio/ruvio/reports/history"
)

// FromOps takes the transactions out of a run's history: the ops with F
// = OpF, in the history's order (their index in the result is their T
// number). ops maps each transaction back to its op's index in h.Ops.
func FromOps(h *history.History) (txns []Txn, ops []int, err error) {
	for i, op := range h.Ops {
		if op.F != OpF {
			continue
		}
		t := Txn{Process: op.Process, Type: op.Type, T0: op.T0, T1: op.T1, Final: op.Final}
		for _, s := range op.Values {
			m, err := ParseMop(s)
			if err != nil {
				return nil, nil, fmt.Errorf("history op %d: %w", i, err)
			}
			if op.Type != OK {
				m.List = nil
			}
			t.Mops = append(t.Mops, m)
		}
		txns = append(txns, t)
		ops = append(ops, i)
	}
	return txns, ops, nil
}

// HasTxns says whether h holds any transaction.
func HasTxns(h *history.History) bool {
	for _, op := range h.Ops {
		if op.F == OpF {
			return true
		}
	}
	return false
}
