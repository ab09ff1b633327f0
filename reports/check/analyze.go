package check

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

// Options say which checkers Analyze runs and how.
type Options struct {
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
	// Lease measures the old primary's refusals and the promotion around
	// the fault that takes it away (Summary.Lease, CheckLease).
	Lease bool
	// AcceptLoss is for a scenario whose model allows acknowledged writes
	// to be lost (asynchronous replication across a failover): lost
	// writes, and the register histories that such a loss makes
	// non-linearizable, are counted and listed in Summary.Tolerated
	// instead of Violations. Everything else (a failed write present,
	// values nobody wrote, nodes that did not converge) still is a
	// violation.
	AcceptLoss bool
	// AcceptStale is for a scenario whose model allows intermediate reads
	// to miss acknowledged writes on a node that restarted empty, which
	// answers reads until it is replaced: stale reads on a kill fault's
	// target after the kill began are counted and listed in
	// Summary.Tolerated instead of Violations. Any other stale read is
	// still a violation.
	AcceptStale bool
	// ChangesCommitted: the run's change stream consumer took committed
	// changes only (changesChecker).
	ChangesCommitted bool
	// Consistency is the model the transaction checker holds the append
	// workload's transactions to (reports/elle): "" is
	// DefaultConsistency.
	Consistency elle.Model
	// Groups, for a run of several groups sharing the hash slots, measure
	// each group on its own (Summary.Groups) in place of the windows and
	// coordination checkers, which assume one group.
	Groups []Group
	// DownAfterMs is the coordinators' down_after_ms, from which a
	// failover's anatomy derives when they last heard the primary (0:
	// not derived).
	DownAfterMs int64
}

// maxListed bounds the examples a violation sentence quotes.
const maxListed = 10

// Checkers are the checkers opts configure, in the order their findings
// are listed: the op counts, the set checker, the register checker, the
// windows and the coordinators' record (per group with Options.Groups), the lease (with Options.Lease) and
// the replication checks; the transaction checker (reports/elle) runs
// just before the replication checks.
func Checkers(opts Options) All {
	cs := All{opsChecker{}, setChecker{acceptLoss: opts.AcceptLoss, acceptStale: opts.AcceptStale},
		registerChecker{limit: opts.LinearizabilityLimit, visualize: opts.VisualizePath, acceptLoss: opts.AcceptLoss}}
	if len(opts.Groups) > 0 {
		cs = append(cs, groupsChecker{groups: opts.Groups}, movesChecker{groups: opts.Groups})
	} else {
		cs = append(cs, windowsChecker{primary: opts.Primary, downAfterMs: opts.DownAfterMs}, coordinationChecker{})
	}
	if opts.Lease {
		cs = append(cs, leaseChecker{primary: opts.Primary})
	}
	cs = append(cs, txnChecker{model: opts.Consistency, acceptLoss: opts.AcceptLoss})
	cs = append(cs, changesChecker{committed: opts.ChangesCommitted}, lockChecker{})
	return append(cs, replicationChecker{})
}

// Analyze checks h with Checkers(opts) and summarises it. The verdict is
// false on any violation (including zero acknowledged ops: such a run
// proves nothing), otherwise unknown when a check could not decide (the
// linearizability search ran out of time, a key with acknowledged adds
// has no final read, or no checker applied to any op), otherwise true.
// The scenario, backend and seed are the caller's to fill in.
func Analyze(h *history.History, opts Options) Summary {
	r := Checkers(opts).Check(h)
	s := Summary{Runs: 1, Valid: r.Valid, Faults: append([]history.Fault(nil), h.Faults...),
		Violations: r.Violations, Tolerated: r.Tolerated}
	if r.Figures != nil {
		r.Figures(&s)
	}
	for _, u := range r.Undecided {
		slog.Warn("verdict unknown", "reason", u)
	}
	return s
}

// hasSetOps and hasRegisterOps say whether the set or the register
// checker has anything to read in ops.
func hasSetOps(ops []history.Op) bool {
	return slices.ContainsFunc(ops, func(op history.Op) bool { return op.F == history.FAdd || op.F == history.FRead })
}

func hasRegisterOps(ops []history.Op) bool {
	return slices.ContainsFunc(ops, func(op history.Op) bool {
		return op.F == history.FWrite || op.F == history.FGet || op.F == history.FCAS
	})
}

// opsChecker counts the ops by outcome. A run with no acknowledged op
// proves nothing (false); one whose ops no checker reads is unknown.
type opsChecker struct{}

func (opsChecker) Name() string { return "ops" }

func (opsChecker) Check(h *history.History) Result {
	var n, acked, failed, info, unacked int64
	for _, op := range h.Ops {
		if op.F == history.FChanges {
			continue // the harness's record of a consumer, not a client's operation
		}
		n++
		switch op.Type {
		case history.OK:
			acked++
		case history.Fail:
			failed++
		case history.Info:
			info++
		}
		if !op.Final && (op.F == history.FAdd || op.F == history.FWrite) && op.Type != history.OK {
			unacked++
		}
	}
	r := Result{Figures: func(s *Summary) {
		s.Ops, s.Acknowledged, s.Failed, s.Indeterminate, s.UnacknowledgedWrites = n, acked, failed, info, unacked
	}}
	if acked == 0 {
		r.violate("no acknowledged operations: the run proves nothing")
	} else if !hasSetOps(h.Ops) && !hasRegisterOps(h.Ops) && !hasTxnOps(h.Ops) {
		r.undecided("no op is one the set or register checker reads")
	}
	return r.judged()
}

// afterItsKill excuses a read on a kill fault's target that began after
// the kill did.
func afterItsKill(faults []history.Fault) func(*history.Op) bool {
	return func(op *history.Op) bool {
		for _, f := range faults {
			if f.Kind == "kill" && f.Target == op.Node && op.T0 >= f.StartMs*int64(time.Millisecond) {
				return true
			}
		}
		return false
	}
}

// setChecker is CheckSet over the add and read ops, when there are any.
type setChecker struct{ acceptLoss, acceptStale bool }

func (setChecker) Name() string { return "set" }

func (c setChecker) Check(h *history.History) Result {
	var r Result
	if !hasSetOps(h.Ops) {
		return r.judged()
	}
	var excused func(*history.Op) bool
	if c.acceptStale {
		excused = afterItsKill(h.Faults)
	}
	sr := CheckSetExcusing(h.Ops, excused)
	r.Figures = func(s *Summary) {
		s.Lost, s.Stale = int64(len(sr.Lost)), int64(len(sr.Stale)+len(sr.Excused))
		for _, v := range sr.Lost[:min(len(sr.Lost), MaxLostKeys)] {
			s.LostKeys = append(s.LostKeys, v.Key+"="+v.Value)
		}
	}
	if len(sr.Lost) > 0 {
		r.lossy(c.acceptLoss, "lost %d acknowledged writes: %s", len(sr.Lost), listValues(sr.Lost))
	}
	if len(sr.Excused) > 0 {
		r.tolerate(true, "it restarted empty and answered reads until it was replaced",
			"%d values read stale on a node after it was killed: %s", len(sr.Excused), listValues(sr.Excused))
	}
	if len(sr.Stale) > 0 {
		r.violate("%d values read stale (an intermediate read that began after the add was acknowledged missed them, a later read had them): %s",
			len(sr.Stale), listValues(sr.Stale))
	}
	if len(sr.FailedPresent) > 0 {
		r.violate("%d values whose add failed (so did not happen) are in the final read: %s",
			len(sr.FailedPresent), listValues(sr.FailedPresent))
	}
	if len(sr.Unexpected) > 0 {
		r.violate("%d values read that no add wrote: %s", len(sr.Unexpected), listStrings(sr.Unexpected))
	}
	if len(sr.Duplicated) > 0 {
		r.violate("%d values appear more than once in one read (an add applied twice): %s",
			len(sr.Duplicated), listStrings(sr.Duplicated))
	}
	if sr.DuplicateAdds > 0 {
		r.violate("workload error: %d adds repeated a value already added to the same key (values must be unique)", sr.DuplicateAdds)
	}
	if len(sr.MissingFinal) > 0 {
		r.undecided("%d acknowledged adds have no final read of their key (keys %s)", len(sr.Unknown), listStrings(sr.MissingFinal))
	}
	return r.judged()
}

// registerChecker is CheckRegister over the write, get and cas ops, when
// there are any.
type registerChecker struct {
	limit      time.Duration
	visualize  string
	acceptLoss bool
}

func (registerChecker) Name() string { return "register" }

func (c registerChecker) Check(h *history.History) Result {
	var r Result
	if !hasRegisterOps(h.Ops) {
		return r.judged()
	}
	rr, err := CheckRegister(h, c.limit, c.visualize)
	if err != nil {
		slog.Warn("linearizability visualisation not written", "err", err)
	}
	r.Figures = func(s *Summary) { s.Linearizable = rr.Linearizable() }
	switch rr.Result {
	case porcupine.Illegal:
		where := ""
		if c.visualize != "" {
			where = "; see " + c.visualize
		}
		r.lossy(c.acceptLoss, "register history is not linearizable (keys %s)%s", listStrings(rr.BadKeys), where)
	case porcupine.Unknown:
		r.undecided("the linearizability check of %d register ops ran out of time", rr.Checked)
	}
	return r.judged()
}

// windowsChecker measures the availability windows; it finds no fault.
type windowsChecker struct {
	primary     string
	downAfterMs int64
}

func (windowsChecker) Name() string { return "windows" }

func (c windowsChecker) Check(h *history.History) Result {
	w := ComputeWindows(h, c.primary)
	return Result{Figures: func(s *Summary) {
		s.UnavailableMs, s.FailoverMs, s.TwoWriterMs, s.RefusalMs = w.UnavailableMs, w.FailoverMs, w.TwoWriterMs, w.RefusalMs
		s.RefusalAfterFailoverMs = w.RefusalAfterFailoverMs
		s.Anatomy = Anatomies(h, c.primary, c.downAfterMs)
	}}.judged()
}

// coordinationChecker reads the coordinators' record when the run
// watched one; Gate judges its figures.
type coordinationChecker struct{}

func (coordinationChecker) Name() string { return "coordination" }

func (coordinationChecker) Check(h *history.History) Result {
	cr := CheckCoordination(h.Observations, h.Faults)
	if !cr.Watched {
		return Result{}.judged()
	}
	return Result{Figures: func(s *Summary) {
		s.Failovers, s.EpochRise, s.PrimaryHeldMs = int64Ptr(cr.Failovers), int64Ptr(cr.EpochRise), int64Ptr(cr.HeldMs)
		s.UnforcedFailovers = int64Ptr(cr.Unforced)
	}}.judged()
}

// leaseChecker measures the lease scenarios' figures; Gate judges them.
type leaseChecker struct{ primary string }

func (leaseChecker) Name() string { return "lease" }

func (c leaseChecker) Check(h *history.History) Result {
	lr := CheckLease(h, c.primary)
	return Result{Figures: func(s *Summary) { s.Lease = &lr }}.judged()
}

// replicationChecker times catch-ups and checks convergence.
type replicationChecker struct{}

func (replicationChecker) Name() string { return "replication" }

func (replicationChecker) Check(h *history.History) Result {
	rr := CheckReplication(h.Observations)
	r := Result{Figures: func(s *Summary) {
		s.CatchUpMaxMs, s.CatchUps, s.Converged = rr.MaxCatchUpMs(), int64(len(rr.CatchUpsMs)), rr.Converged
	}}
	for _, p := range rr.Problems {
		r.violate("%s", p)
	}
	return r.judged()
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
