package check

import (
	"fmt"
	"maps"
	"strings"

	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

// TxnResult is what the transaction checker (reports/elle, over the
// append workload's transactions) found: the model it held the history
// to, the strongest model the history satisfies, and how many anomalies
// of each type it found.
type TxnResult struct {
	Transactions int            `json:"transactions"`
	Model        string         `json:"model"`
	Strongest    string         `json:"strongest"`
	Anomalies    map[string]int `json:"anomalies"`
}

// Total is the number of anomalies found, of every type.
func (t *TxnResult) Total() int {
	n := 0
	for _, c := range t.Anomalies {
		n += c
	}
	return n
}

// mergeTxns folds a run's transaction figures into the merged ones:
// counts add up, the strongest model is the weakest run's.
func mergeTxns(m, s *TxnResult) *TxnResult {
	if s == nil {
		return m
	}
	if m == nil {
		c := *s
		c.Anomalies = maps.Clone(s.Anomalies)
		return &c
	}
	m.Transactions += s.Transactions
	for t, n := range s.Anomalies {
		if m.Anomalies == nil {
			m.Anomalies = map[string]int{}
		}
		m.Anomalies[t] += n
	}
	if modelRank(s.Strongest) < modelRank(m.Strongest) {
		m.Strongest = s.Strongest
	}
	return m
}

// modelRank orders the models weakest (none) first.
func modelRank(name string) int {
	for i, m := range elle.Models {
		if string(m) == name {
			return len(elle.Models) - i
		}
	}
	return 0
}

// DefaultConsistency is the model the transaction checker holds a run's
// history to unless Options.Consistency names another.
const DefaultConsistency = elle.StrictSerializable

// txnChecker is reports/elle over the history's transactions, when
// there are any.
type txnChecker struct {
	model      elle.Model
	acceptLoss bool
}

func (txnChecker) Name() string { return "transactions" }

func (c txnChecker) Check(h *history.History) Result {
	var r Result
	if !elle.HasTxns(h) {
		return r.judged()
	}
	txns, _, err := elle.FromOps(h)
	if err != nil {
		r.violate("the transactions cannot be read: %v", err)
		return r.judged()
	}
	model := c.model
	if model == "" {
		model = DefaultConsistency
	}
	if _, err := elle.ParseModel(string(model)); err != nil {
		r.violate("transactions: %v", err)
		return r.judged()
	}
	er := elle.Check(txns, model)
	r.Figures = func(s *Summary) {
		s.Transactions = &TxnResult{Transactions: len(txns), Model: string(model), Strongest: string(er.Strongest),
			Anomalies: maps.Clone(er.Counts)}
		if s.Transactions.Anomalies == nil {
			s.Transactions.Anomalies = map[string]int{}
		}
	}
	forbidden := map[string]bool{}
	for _, t := range er.Forbidden {
		forbidden[t] = true
	}
	for _, t := range er.Types() {
		line := fmt.Sprintf("transactions: %d %s (%s); the history is at most %s", er.Counts[t], t, firstWhy(er, t), er.Strongest)
		switch {
		case !forbidden[t]:
			r.Tolerated = append(r.Tolerated, line+" ("+string(model)+" allows it)")
		case c.acceptLoss:
			r.Tolerated = append(r.Tolerated, line+" (allowed: the scenario's replication is asynchronous, and a failover that loses acknowledged appends breaks the lists' order)")
		default:
			r.violate("%s (%s forbids it)", line, model)
		}
	}
	if len(er.UnreadKeys) > 0 {
		r.undecided("%d keys with acknowledged appends have no final read, so lost appends there cannot be told (%s)",
			len(er.UnreadKeys), listStrings(er.UnreadKeys))
	}
	return r.judged()
}

// maxCycleShown bounds the edges of a cycle a violation sentence quotes.
const maxCycleShown = 8

// firstWhy is the first listed anomaly of type t in a sentence: its
// reason, or its cycle's edges.
func firstWhy(er elle.Result, t string) string {
	for _, a := range er.Anomalies {
		if a.Type != t {
			continue
		}
		if a.Why != "" {
			return "e.g. " + a.Why
		}
		var steps []string
		for i, s := range a.Steps {
			if i == maxCycleShown && len(a.Steps) > maxCycleShown+1 {
				steps = append(steps, fmt.Sprintf("... %d more edges", len(a.Steps)-maxCycleShown))
				break
			}
			steps = append(steps, fmt.Sprintf("T%d -%s-> T%d", s.From, s.Rel, s.To))
		}
		return "e.g. the cycle " + strings.Join(steps, ", ") + "; report.md explains each edge"
	}
	return "none listed"
}

// hasTxnOps says whether the transaction checker has anything to read.
func hasTxnOps(ops []history.Op) bool {
	for _, op := range ops {
		if op.F == elle.OpF {
			return true
		}
	}
	return false
}
