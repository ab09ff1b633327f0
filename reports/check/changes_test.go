package check

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

// A history with a consumer's sets (FChanges), two final reads of each
// key, acknowledged adds and the consumer's observations.
func changesHistory(view map[string][]string, final map[string][]string, acked map[string][]string, obs ...history.Observation) *history.History {
	h := &history.History{Observations: obs}
	for k, vs := range acked {
		for _, v := range vs {
			h.Ops = append(h.Ops, history.Op{Type: history.OK, F: history.FAdd, Key: k, Value: v})
		}
	}
	for k, vs := range final {
		for range 2 {
			h.Ops = append(h.Ops, history.Op{Type: history.OK, F: history.FRead, Key: k, Values: vs, Final: true})
		}
	}
	for k, vs := range view {
		h.Ops = append(h.Ops, history.Op{Type: history.OK, F: history.FChanges, Key: k, Values: vs, Final: true})
	}
	return h
}

func TestChangesChecker(t *testing.T) {
	rewound := history.Observation{Kind: history.ObsChangeRewound, Type: history.OK, Detail: "shard 0 to 2-5-9: 3 adds undone"}
	order := history.Observation{Kind: history.ObsChangeOrder, Type: history.Fail, Detail: "shard 0: change 2-5-9 after 7"}
	final := map[string][]string{"s": {"a", "b", "c"}}
	for _, tc := range []struct {
		name      string
		committed bool
		h         *history.History
		violation string // "" for a valid run
		rewinds   int64
	}{
		{"the same sets", false, changesHistory(map[string][]string{"s": {"a", "b", "c"}}, final, nil), "", 0},
		{"rewound, then the same sets", false, changesHistory(map[string][]string{"s": {"a", "b", "c"}}, final, nil, rewound), "", 1},
		{"a value the failover took back kept", false, changesHistory(map[string][]string{"s": {"a", "b", "c", "x"}}, final, nil),
			"the consumer kept 1 values the final reads do not hold", 0},
		{"a value missed", false, changesHistory(map[string][]string{"s": {"a", "c"}}, final, nil),
			"the consumer lacks 1 values the final reads hold: s=b", 0},
		{"a change twice", false, changesHistory(map[string][]string{"s": {"a", "b", "c"}}, final, nil, order), "change 2-5-9 after 7", 0},
		{"committed: a subset holding every acknowledged add", true,
			changesHistory(map[string][]string{"s": {"a", "b"}}, final, map[string][]string{"s": {"a", "b"}}), "", 0},
		{"committed: an acknowledged add missing", true,
			changesHistory(map[string][]string{"s": {"a"}}, final, map[string][]string{"s": {"a", "b"}}), "lacks 1 values", 0},
		{"committed: rewound", true,
			changesHistory(map[string][]string{"s": {"a", "b"}}, final, map[string][]string{"s": {"a", "b"}}, rewound),
			"a consumer of committed changes was rewound 1 times (3 adds undone)", 1},
	} {
		r := changesChecker{committed: tc.committed}.Check(tc.h)
		var s Summary
		if r.Figures != nil {
			r.Figures(&s)
		}
		switch {
		case tc.violation == "" && r.Valid != ValidTrue:
			t.Errorf("%s: %s %v", tc.name, r.Valid, r.Violations)
		case tc.violation != "" && (r.Valid != ValidFalse || !strings.Contains(strings.Join(r.Violations, "; "), tc.violation)):
			t.Errorf("%s: %s %v, want a violation with %q", tc.name, r.Valid, r.Violations, tc.violation)
		case s.Changes == nil || s.Changes.Rewinds != tc.rewinds:
			t.Errorf("%s: figures %+v, want %d rewinds", tc.name, s.Changes, tc.rewinds)
		}
	}
	if r := (changesChecker{}).Check(&history.History{}); r.Valid != ValidTrue || r.Figures != nil {
		t.Errorf("a run without a consumer: %+v", r)
	}
}
