package render

import (
	"fmt"
	"strings"

	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

// writeAnomalies is report.md's section on the append workload's
// transactions: the model they were held to, the strongest they satisfy,
// and each anomaly found with its transactions and, for a cycle, every
// edge with the reason it holds. Nothing when the run had no
// transactions.
func writeAnomalies(b *strings.Builder, h *history.History, s summary) {
	if !elle.HasTxns(h) {
		return
	}
	b.WriteString("## Transactional anomalies\n\n")
	txns, ops, err := elle.FromOps(h)
	if err != nil {
		fmt.Fprintf(b, "The transactions cannot be read: %s\n\n", mdInline(err.Error()))
		return
	}
	model := elle.StrictSerializable
	if t, ok := s["transactions"].(map[string]any); ok {
		if m, err := elle.ParseModel(fmt.Sprint(t["model"])); err == nil {
			model = m
		}
	}
	r := elle.Check(txns, model)
	fmt.Fprintf(b, "%d transactions of the append workload (%d ok, %d failed, %d indeterminate) over %d keys, checked for %s: "+
		"**%s**. The strongest model the history satisfies: **%s**. The dependency graph has %d edges and %d "+
		"strongly connected components of two or more transactions (each holds a cycle).\n\n", r.Txns, r.OK, r.Failed, r.Indeterminate, r.Keys, model,
		map[bool]string{true: "satisfied", false: "violated"}[r.Valid], r.Strongest, r.Edges, r.Components)
	if len(r.Counts) == 0 {
		b.WriteString("No anomaly found.\n\n")
		return
	}
	b.WriteString("| anomaly | found | forbidden by " + string(model) + " |\n|---|---:|---|\n")
	forbidden := map[string]bool{}
	for _, t := range r.Forbidden {
		forbidden[t] = true
	}
	for _, t := range r.Types() {
		fmt.Fprintf(b, "| %s | %d | %s |\n", t, r.Counts[t], map[bool]string{true: "yes", false: "no"}[forbidden[t]])
	}
	b.WriteString("\nT*n* is the *n*-th transaction of the history, the *n*-th op with `\"f\":\"txn\"`")
	if len(ops) > 0 {
		fmt.Fprintf(b, " (T0 is on line %d of history.jsonl)", ops[0]+1)
	}
	b.WriteString(". An edge A -ww-> B: B appended right after A in a key's version order; A -wr-> B: B read A's append; " +
		"A -rw-> B: A read a state without B's append; A -process-> B: the same client ran A then B; " +
		"A -realtime-> B: A completed before B was invoked. See docs/chaos.md, Reading a cycle.\n\n")
	for _, a := range r.Anomalies {
		fmt.Fprintf(b, "### %s\n\n", a.Type)
		if len(a.Steps) > 0 {
			parts := []string{fmt.Sprintf("T%d", a.Steps[0].From)}
			for _, st := range a.Steps {
				parts = append(parts, fmt.Sprintf("-%s-> T%d", st.Rel, st.To))
			}
			fmt.Fprintf(b, "Cycle: `%s`\n\n", strings.Join(parts, " "))
			for i, st := range a.Steps {
				if i == maxEdgesExplained {
					fmt.Fprintf(b, "- ... and %d more edges of the same kinds\n", len(a.Steps)-i)
					break
				}
				fmt.Fprintf(b, "- T%d -%s-> T%d: %s\n", st.From, st.Rel, st.To, mdInline(st.Why))
			}
		} else {
			fmt.Fprintf(b, "%s\n", mdInline(a.Why))
		}
		b.WriteString("\nTransactions:\n\n")
		for i, d := range a.Txns {
			if i == maxEdgesExplained {
				fmt.Fprintf(b, "- ... and %d more\n", len(a.Txns)-i)
				break
			}
			fmt.Fprintf(b, "- `%s`\n", mdInline(d))
		}
		b.WriteString("\n")
	}
	if listed := len(r.Anomalies); listed < total(r.Counts) {
		fmt.Fprintf(b, "%d anomalies found, the first %d of each type listed.\n\n", total(r.Counts), elle.MaxListed)
	}
}

// maxEdgesExplained bounds the edges (and transactions) of one cycle
// the report explains; a cycle the search could not shorten may be long.
const maxEdgesExplained = 40

func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
