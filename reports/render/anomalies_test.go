package render

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

func txnOp(p int, t0, t1 int64, final bool, mops ...string) history.Op {
	return history.Op{Process: p, Type: history.OK, F: elle.OpF, Values: mops, T0: t0 * 1e6, T1: t1 * 1e6, Node: "n1", Final: final}
}

func TestReportListsAnomaliesWithTheirEdges(t *testing.T) {
	// T1 begins after T0's append completed, yet reads x without it;
	// the final read has it: a stale read, G-single-realtime.
	h := &history.History{Ops: []history.Op{
		txnOp(0, 0, 10, false, "append x 1"),
		txnOp(1, 20, 30, false, "r x"),
		txnOp(2, 40, 50, true, "r x 1"),
	}}
	md := reportMarkdown(h, summary{"transactions": map[string]any{"model": "serializable"}}, nil)
	for _, want := range []string{
		"## Transactional anomalies",
		"checked for serializable: **satisfied**",
		"strongest model the history satisfies: **serializable**",
		"| G-single-realtime | 1 | no |",
		"### G-single-realtime",
		"Cycle: `T",
		"-rw-> T0: T1 read x = [], without 1",
		"-realtime-> T1: T0 completed at 0.010s, before T1 was invoked at 0.020s",
		"- `T0 (process 0, ok, 0.000s-0.010s): append x 1`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}

	valid := &history.History{Ops: []history.Op{txnOp(0, 0, 10, false, "append x 1"), txnOp(1, 20, 30, true, "r x 1")}}
	if md := reportMarkdown(valid, summary{}, nil); !strings.Contains(md, "No anomaly found.") ||
		!strings.Contains(md, "checked for strict-serializable: **satisfied**") {
		t.Errorf("a valid history's report:\n%s", md)
	}
	if md := reportMarkdown(&history.History{}, summary{}, nil); strings.Contains(md, "Transactional anomalies") {
		t.Error("a run without transactions has a transactions section")
	}
}
