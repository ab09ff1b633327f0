package check

import (
	"strings"

	"github.com/ruvio/ruvio/reports/history"
)

// ChangesResult is what the change stream checker found: a consumer that
// followed the primary's stream through the run, resuming after each
// failover from its cursor, against the final reads.
type ChangesResult struct {
	// Committed: the consumer took committed changes only.
	Committed bool `json:"committed"`
	// Keys is the number of sets compared; Values the values the final
	// reads hold in them.
	Keys   int   `json:"keys"`
	Values int64 `json:"values"`
	// Resumes counts the consumer's subscriptions after its stream
	// ended; Rewinds the rewinds the streams sent, and Undone the adds
	// they took back.
	Resumes int64 `json:"resumes"`
	Rewinds int64 `json:"rewinds"`
	Undone  int64 `json:"undone"`
	// Missing counts values the final reads hold that the consumer does
	// not (for a committed consumer: acknowledged adds it does not hold);
	// Extra the values it holds that the final reads do not (adds a
	// failover took back that it kept); OutOfOrder the changes that came
	// again or out of order.
	Missing    int64 `json:"missing"`
	Extra      int64 `json:"extra"`
	OutOfOrder int64 `json:"out_of_order"`
}

// changesChecker holds a change stream consumer's sets (history.FChanges)
// to the final reads: a consumer of every change must end with exactly
// the final sets; one of committed changes only with a subset of them that
// holds every acknowledged add (a durable add commits before it is
// acknowledged), and it must never be rewound: the coordinators promote
// only a replica holding every committed record.
type changesChecker struct{ committed bool }

func (changesChecker) Name() string { return "changes" }

func (c changesChecker) Check(h *history.History) Result {
	var r Result
	views := map[string]map[string]bool{}
	for _, op := range h.Ops {
		if op.F == history.FChanges {
			views[op.Key] = setOf(op.Values)
		}
	}
	res := &ChangesResult{Committed: c.committed}
	seen := false
	for _, o := range h.Observations {
		switch o.Kind {
		case history.ObsChangeResume:
			res.Resumes++
		case history.ObsChangeRewound:
			res.Rewinds++
			res.Undone += undoneIn(o.Detail)
		case history.ObsChangeOrder:
			res.OutOfOrder++
			r.violate("changes: %s", o.Detail)
		default:
			continue
		}
		seen = true
	}
	if len(views) == 0 && !seen {
		return r.judged()
	}
	finals := map[string][]map[string]bool{}
	acked := map[string]map[string]bool{}
	for _, op := range h.Ops {
		switch {
		case op.F == history.FRead && op.Final && op.Type == history.OK:
			finals[op.Key] = append(finals[op.Key], setOf(op.Values))
		case op.F == history.FAdd && op.Type == history.OK:
			if acked[op.Key] == nil {
				acked[op.Key] = map[string]bool{}
			}
			acked[op.Key][op.Value] = true
		}
	}
	var missing, extra []string
	for key, fs := range finals {
		res.Keys++
		final := fs[0]
		for _, f := range fs[1:] {
			final = intersect(final, f)
		}
		res.Values += int64(len(final))
		view := views[key]
		want := final
		if c.committed {
			want = acked[key]
		}
		for v := range want {
			if !view[v] {
				res.Missing++
				missing = append(missing, key+"="+v)
			}
		}
		for v := range view {
			if !final[v] {
				res.Extra++
				extra = append(extra, key+"="+v)
			}
		}
	}
	for key := range views {
		if _, ok := finals[key]; !ok {
			r.undecided("changes: the consumer holds set %s, which has no final read", key)
		}
	}
	if res.Missing > 0 {
		r.violate("changes: the consumer lacks %d values the final reads hold: %s", res.Missing, listStrings(missing))
	}
	if res.Extra > 0 {
		r.violate("changes: the consumer kept %d values the final reads do not hold (a rewind missed, or a change applied twice): %s", res.Extra, listStrings(extra))
	}
	if c.committed && res.Rewinds > 0 {
		r.violate("changes: a consumer of committed changes was rewound %d times (%d adds undone): a failover took back a committed record", res.Rewinds, res.Undone)
	}
	r.Figures = func(s *Summary) { s.Changes = res }
	return r.judged()
}

func setOf(vs []string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

func intersect(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for v := range a {
		if b[v] {
			out[v] = true
		}
	}
	return out
}

// undoneIn reads "N adds undone" from a rewind's detail.
func undoneIn(detail string) int64 {
	f := strings.Fields(detail)
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "adds" && f[i+1] == "undone" {
			var n int64
			for _, ch := range f[i-1] {
				if ch < '0' || ch > '9' {
					return 0
				}
				n = n*10 + int64(ch-'0')
			}
			return n
		}
	}
	return 0
}

// mergeChanges folds one more run's figures into m: counts add up.
func mergeChanges(m, s *ChangesResult) *ChangesResult {
	if s == nil {
		return m
	}
	if m == nil {
		c := *s
		return &c
	}
	m.Keys += s.Keys
	m.Values += s.Values
	m.Resumes += s.Resumes
	m.Rewinds += s.Rewinds
	m.Undone += s.Undone
	m.Missing += s.Missing
	m.Extra += s.Extra
	m.OutOfOrder += s.OutOfOrder
	return m
}
