package check

import (
	"fmt"
	"sort"

	"github.com/ruvio/ruvio/reports/history"
)

// ReplicationResult is what a run's observations of the nodes say: the
// replicas' catch-ups, the operator's promotions and rejoins, and the
// final convergence check.
type ReplicationResult struct {
	// CatchUpsMs are the finished catch-ups (ok observations), in ms, in
	// the order they were recorded.
	CatchUpsMs []int64
	// Unfinished counts the catch-ups cut short by the next fault or the
	// end of the run: undecided, not counted either way.
	Unfinished int
	// Converged is nil when the run did not check convergence.
	Converged *bool
	// Problems are the observations that failed, one sentence each.
	Problems []string
}

// MaxCatchUpMs is the longest finished catch-up, nil when none finished.
func (r ReplicationResult) MaxCatchUpMs() *int64 {
	if len(r.CatchUpsMs) == 0 {
		return nil
	}
	m := r.CatchUpsMs[0]
	for _, v := range r.CatchUpsMs[1:] {
		m = max(m, v)
	}
	return &m
}

// CheckReplication reads the observations. A catch-up that ran out of
// time, a promotion or rejoin the data node refused, and nodes that did
// not converge are problems; the last convergence check decides
// Converged.
func CheckReplication(obs []history.Observation) ReplicationResult {
	var r ReplicationResult
	sorted := append([]history.Observation(nil), obs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].StartMs < sorted[j].StartMs })
	for _, o := range sorted {
		switch o.Kind {
		case history.ObsCatchUp:
			switch o.Type {
			case history.OK:
				r.CatchUpsMs = append(r.CatchUpsMs, max(o.EndMs-o.StartMs, 0))
			case history.Info:
				r.Unfinished++
			default:
				r.Problems = append(r.Problems, fmt.Sprintf("replica %s did not catch up (from %d ms): %s", o.Node, o.StartMs, o.Detail))
			}
		case history.ObsConvergence:
			ok := o.Type == history.OK
			r.Converged = &ok
			if !ok {
				r.Problems = append(r.Problems, "nodes did not converge after the final heal: "+o.Detail)
			}
		default:
			if o.Type == history.Fail {
				r.Problems = append(r.Problems, fmt.Sprintf("%s of %s failed (at %d ms): %s", o.Kind, o.Node, o.StartMs, o.Detail))
			}
		}
	}
	return r
}
