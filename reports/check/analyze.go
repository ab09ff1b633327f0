package check

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/ruvio/ruvio/reports/history"
)

// Options say what Analyze is checking and how.
type Options struct {
	// Scenario, Backend, Seed and Runs are copied into the Summary (Runs
	// 0 means 1).
	Scenario string
	Backend  string
	Seed     int64
	Runs     int
	// LinearizabilityLimit bounds the porcupine search; 0 means
	// DefaultLinearizabilityLimit. Running out of time yields
	// linearizable = null and valid = "unknown", never a pass.
	LinearizabilityLimit time.Duration
	// VisualizePath, when set, receives porcupine's HTML visualisation of
	// the register history (written only if the history has register
	// ops), with the fault windows annotated.
	VisualizePath string
	// Primary is the node that is primary when the run starts; empty means
	// the node of the first acknowledged write.
	Primary string
	// NodeNames maps the Node an op records (the address its client
	// dialled) to the node's name as fault targets spell it, so that the
	// failover windows can tell which ops went to the faulted node; nil
	// means ops already record node names.
	NodeNames map[string]string
	// Lease measures the old primary's refusals and the promotion around
	// the fault that takes it away (Summary.Lease, CheckLease).
	Lease bool
	// AllowStale accepts stale set reads (a scenario that reads from
	// replicas on purpose); they are still counted.
	AllowStale bool
	// AcceptLoss is for a scenario whose model allows acknowledged writes
	// to be lost (asynchronous replication across a failover, spec
	// N-REPL-8): lost writes, and the register histories that such a loss
	// makes non-linearizable, are counted and listed in
	// Summary.Tolerated instead of Violations. Everything else (a failed
	// write present, values nobody wrote, nodes that did not converge)
	// still is a violation.
	AcceptLoss bool
	// Log receives what the Summary has no field for (why a verdict is
	// unknown, a visualisation that could not be written); nil means
	// slog.Default().
	Log *slog.Logger
}

// maxListed bounds the examples a violation sentence quotes.
const maxListed = 10

// Analyze checks h and summarises it: the set checker runs when the
// history has add or read ops, the register checker when it has write,
// get or cas ops, the windows always, and the replication checks on the
// history's observations (catch-ups, promotions, convergence). The verdict is false on any
// violation (including zero acknowledged ops: such a run proves nothing),
// otherwise unknown when a check could not decide (the linearizability
// search ran out of time, a key with acknowledged adds has no final read,
// or no checker applied to any op), otherwise true.
func Analyze(h *history.History, opts Options) Summary {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	s := Summary{
		Scenario: opts.Scenario, Backend: opts.Backend, Seed: opts.Seed, Runs: max(opts.Runs, 1),
		Faults: append([]history.Fault(nil), h.Faults...),
	}
	var hasSet, hasRegister bool
	for _, op := range h.Ops {
		s.Ops++
		switch op.Type {
		case history.OK:
			s.Acknowledged++
		case history.Fail:
			s.Failed++
		case history.Info:
			s.Indeterminate++
		}
		switch op.F {
		case history.FAdd, history.FRead:
			hasSet = true
		case history.FWrite, history.FGet, history.FCAS:
			hasRegister = true
		}
	}
	violate := func(format string, args ...any) { s.Violations = append(s.Violations, fmt.Sprintf(format, args...)) }
	// lossy is a violation, or a tolerated anomaly under AcceptLoss.
	lossy := func(format string, args ...any) {
		if opts.AcceptLoss {
			s.Tolerated = append(s.Tolerated, fmt.Sprintf(format, args...)+" (allowed: the scenario's replication is asynchronous)")
			return
		}
		violate(format, args...)
	}
	var undecided []string

	if s.Acknowledged == 0 {
		violate("no acknowledged operations: the run proves nothing")
	}
	if hasSet {
		r := CheckSet(h.Ops)
		s.Lost = int64(len(r.Lost))
		for _, v := range r.Lost {
			if len(s.LostKeys) == MaxLostKeys {
				break
			}
			s.LostKeys = append(s.LostKeys, v.Key+"="+v.Value)
		}
		s.Stale = int64(len(r.Stale))
		if len(r.Lost) > 0 {
			lossy("lost %d acknowledged writes: %s", len(r.Lost), listValues(r.Lost))
		}
		if len(r.Stale) > 0 && !opts.AllowStale {
			violate("%d values read stale (an intermediate read that began after the add was acknowledged missed them, a later read had them): %s",
				len(r.Stale), listValues(r.Stale))
		}
		if len(r.FailedPresent) > 0 {
			violate("%d values whose add failed (so did not happen) are in the final read: %s",
				len(r.FailedPresent), listValues(r.FailedPresent))
		}
		if len(r.Unexpected) > 0 {
			violate("%d values read that no add wrote: %s", len(r.Unexpected), listStrings(r.Unexpected))
		}
		if len(r.Duplicated) > 0 {
			violate("%d values appear more than once in one read (an add applied twice): %s",
				len(r.Duplicated), listStrings(r.Duplicated))
		}
		if r.DuplicateAdds > 0 {
			violate("workload error: %d adds repeated a value already added to the same key (values must be unique)", r.DuplicateAdds)
		}
		if len(r.MissingFinal) > 0 {
			undecided = append(undecided, fmt.Sprintf("%d acknowledged adds have no final read of their key (keys %s)",
				len(r.Unknown), listStrings(r.MissingFinal)))
		}
	}
	if hasRegister {
		r, err := CheckRegister(h, opts.LinearizabilityLimit, opts.VisualizePath)
		if err != nil {
			log.Warn("linearizability visualisation not written", "err", err)
		}
		s.Linearizable = r.Linearizable()
		switch r.Result {
		case porcupine.Illegal:
			where := ""
			if opts.VisualizePath != "" {
				where = "; see " + opts.VisualizePath
			}
			lossy("register history is not linearizable (keys %s)%s", listStrings(r.BadKeys), where)
		case porcupine.Unknown:
			undecided = append(undecided, fmt.Sprintf("the linearizability check of %d register ops ran out of time", r.Checked))
		}
	}
	if !hasSet && !hasRegister && s.Acknowledged > 0 {
		undecided = append(undecided, "no op is one the set or register checker reads")
	}
	w := ComputeWindows(h, opts.Primary, opts.NodeNames)
	s.UnavailableMs, s.FailoverMs, s.TwoWriterMs, s.RefusalMs = w.UnavailableMs, w.FailoverMs, w.TwoWriterMs, w.RefusalMs
	s.RefusalAfterFailoverMs = w.RefusalAfterFailoverMs
	for _, op := range h.Ops {
		if !op.Final && (op.F == history.FAdd || op.F == history.FWrite) && op.Type != history.OK {
			s.UnacknowledgedWrites++
		}
	}
	if cr := CheckCoordination(h.Observations, h.Faults); cr.Watched {
		s.Failovers, s.EpochRise, s.PrimaryHeldMs = int64Ptr(cr.Failovers), int64Ptr(cr.EpochRise), int64Ptr(cr.HeldMs)
		s.UnforcedFailovers = int64Ptr(cr.Unforced)
	}
	if opts.Lease {
		lr := CheckLease(named(h, opts.NodeNames), opts.Primary)
		s.Lease = &lr
	}
	rr := CheckReplication(h.Observations)
	s.CatchUpMaxMs, s.CatchUps, s.Converged = rr.MaxCatchUpMs(), int64(len(rr.CatchUpsMs)), rr.Converged
	for _, p := range rr.Problems {
		violate("%s", p)
	}

	switch {
	case len(s.Violations) > 0:
		s.Valid = ValidFalse
	case len(undecided) > 0:
		s.Valid = ValidUnknown
		for _, u := range undecided {
			log.Warn("verdict unknown", "scenario", opts.Scenario, "reason", u)
		}
	default:
		s.Valid = ValidTrue
	}
	return s
}

func listValues(vs []SetValue) string {
	kv := make([]string, 0, min(len(vs), maxListed))
	for _, v := range vs[:min(len(vs), maxListed)] {
		kv = append(kv, v.Key+"="+v.Value)
	}
	return listStrings(kv) + more(len(vs))
}

func listStrings(ss []string) string {
	out := strings.Join(ss[:min(len(ss), maxListed)], " ")
	if len(ss) > maxListed {
		out += more(len(ss))
	}
	return out
}

func more(n int) string {
	if n > maxListed {
		return fmt.Sprintf(" ... (%d more)", n-maxListed)
	}
	return ""
}
