package check

import (
	"sort"

	"github.com/ruvio/ruvio/reports/history"
)

// forceKind is the fault kind the nemesis records for a COORDINATOR
// FAILOVER FORCE it sent.
const forceKind = "force"

// CoordinationResult is what the coordinators recorded over a run, from
// the harness's polls of them (history.ObsRecord observations).
type CoordinationResult struct {
	// Watched is false when the run had no coordinators to poll; the
	// other fields are then zero.
	Watched bool
	// Failovers counts the changes of recorded primary or epoch after
	// the first poll.
	Failovers int64
	// EpochRise is the last recorded epoch minus the first.
	EpochRise int64
	// HeldMs is how long the last recorded primary stayed, from its
	// recording (or the first poll) to the end of the watch.
	HeldMs int64
	// Unforced counts the failovers recorded before the run's first
	// COORDINATOR FAILOVER FORCE (all of them when there was none): the
	// ones the coordinators decided on their own.
	Unforced int64
}

// CheckCoordination reads the record observations and the force faults.
func CheckCoordination(obs []history.Observation, faults []history.Fault) CoordinationResult {
	var recs []history.Observation
	for _, o := range obs {
		if o.Kind == history.ObsRecord {
			recs = append(recs, o)
		}
	}
	var r CoordinationResult
	if len(recs) == 0 {
		return r
	}
	r.Watched = true
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].StartMs < recs[j].StartMs })
	firstForce := int64(-1)
	for _, f := range faults {
		if f.Kind == forceKind && (firstForce < 0 || f.StartMs < firstForce) {
			firstForce = f.StartMs
		}
	}
	cur := recs[0]
	since := cur.StartMs
	for _, o := range recs[1:] {
		if o.Node == cur.Node && o.Epoch == cur.Epoch {
			continue
		}
		r.Failovers++
		if firstForce < 0 || o.StartMs < firstForce {
			r.Unforced++
		}
		cur, since = o, o.StartMs
	}
	r.EpochRise = int64(cur.Epoch) - int64(recs[0].Epoch)
	r.HeldMs = recs[len(recs)-1].StartMs - since
	return r
}
