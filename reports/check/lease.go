package check

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// LeaseResult is what the primary lease scenarios measure around the
// fault that takes the primary away from the coordinators (a partition or
// a SIGSTOP naming it): when the old primary stopped acknowledging and
// refused, when the coordinators promoted another node, and whether the
// old primary acknowledged anything it should not have. Times are
// milliseconds from the fault's start unless a name says otherwise; nil
// where the run had no such event.
type LeaseResult struct {
	// OldPrimary is the node that was primary when the fault began;
	// NewPrimary the node the coordinators recorded next ("" for none).
	OldPrimary string `json:"old_primary"`
	NewPrimary string `json:"new_primary"`
	// Fault is the fault's kind and target; FaultStartMs and FaultEndMs
	// its window since the run started (FaultEndMs 0: never ended).
	Fault        string `json:"fault"`
	FaultStartMs int64  `json:"fault_start_ms"`
	FaultEndMs   int64  `json:"fault_end_ms"`
	// OldLastAckMs is the old primary's last acknowledged write
	// (completion), before the next primary's or to the end of the run.
	OldLastAckMs *int64 `json:"old_last_ack_ms"`
	// OldAckInFaultMs is its last acknowledged write completed while the
	// fault lasted (nil: none): how long it went on acknowledging once
	// cut off, the window min-replicas-to-write and the lease bound.
	OldAckInFaultMs *int64 `json:"old_ack_in_fault_ms"`
	// FirstRefusalMs is the old primary's first NOREPLICAS after the
	// fault began (completion); FirstRefusal its text.
	FirstRefusalMs *int64 `json:"first_refusal_ms"`
	FirstRefusal   string `json:"first_refusal"`
	// AcksAfterRefusal counts the old primary's acknowledged writes
	// invoked after its first refusal had completed: none may exist with
	// the lease, since nothing renews a lease cut off from the
	// coordinators. Counted to the end of the run when another node was
	// recorded primary, else to the fault's end (after which the lease
	// may be renewed).
	AcksAfterRefusal int64 `json:"acks_after_refusal"`
	// PromotionMs is when the harness first saw another primary: the
	// coordinators' record naming it (polled every 100 ms) or its first
	// acknowledged write, whichever came first. PromotionAfterRefusalMs
	// is the same minus FirstRefusalMs.
	PromotionMs             *int64 `json:"promotion_ms"`
	PromotionAfterRefusalMs *int64 `json:"promotion_after_refusal_ms"`
	// NewFirstAckMs is the new primary's first acknowledged write.
	NewFirstAckMs *int64 `json:"new_first_ack_ms"`
	// AcksAfterPromotion counts the old primary's acknowledged writes
	// invoked after the promotion was seen (PromotionMs): two primaries
	// acknowledging at once, what the lease exists to prevent. The seen
	// promotion trails the real one, so this is a lower bound; the
	// two-writer window says the same from the clients' side.
	AcksAfterPromotion int64 `json:"acks_after_promotion"`
	// OldLastAckAfterPromotionMs is OldLastAckMs minus PromotionMs: how
	// long the old primary went on acknowledging after the promotion was
	// seen (negative: it stopped that long before). Where the new primary
	// cannot write during the partition (min-replicas-to-write with its
	// replicas on the other side) the two-writer window stays near 0
	// whatever the old primary does, and this shows the split brain.
	OldLastAckAfterPromotionMs *int64 `json:"old_last_ack_after_promotion_ms"`
	// LeaseDueMs is when the old primary's lease was due to stop writes
	// (the last INFO that showed it holding, plus primary_lease_remaining_ms
	// less the node's 300 ms margin, at the real rate);
	// LeaseEndSeenMs when INFO first showed it not holding. Nil
	// without the harness's lease observations.
	LeaseDueMs     *int64 `json:"lease_due_ms"`
	LeaseEndSeenMs *int64 `json:"lease_end_seen_ms"`
	// Stall is set when the fault is a SIGSTOP of the primary.
	Stall *StallResult `json:"stall,omitempty"`
}

// StallResult is what a primary frozen with SIGSTOP did once resumed.
// Times are milliseconds from the resume (SIGCONT) unless a name says
// otherwise.
type StallResult struct {
	// StallMs is how long it was frozen.
	StallMs int64 `json:"stall_ms"`
	// AckedOnResume counts its acknowledged writes sent before the
	// resume and answered after it (queued while it was frozen);
	// AckedOnResumeMs lists when each was answered.
	AckedOnResume   int64   `json:"acked_on_resume"`
	AckedOnResumeMs []int64 `json:"acked_on_resume_ms"`
	// AppliedUnacknowledged counts the adds sent to it while it was
	// frozen that its clients gave up on (indeterminate) and the final
	// read nevertheless holds: applied when it resumed.
	AppliedUnacknowledged int64 `json:"applied_unacknowledged"`
	// AcksBeforeRefusal counts the writes invoked after the resume and
	// acknowledged before its first refusal after it (0 without one).
	AcksBeforeRefusal int64 `json:"acks_before_refusal"`
	// FirstRefusalMs is its first NOREPLICAS after the resume;
	// WritesResumedMs its first acknowledged write invoked after that
	// refusal (the coordinators' next grants).
	FirstRefusalMs  *int64 `json:"first_refusal_ms"`
	WritesResumedMs *int64 `json:"writes_resumed_ms"`
	// LeaseDueMs is when its lease was due to stop writes by the last
	// INFO before the stall (negative: during the stall), nil when the
	// first polls after the resume found it still holding.
	// AcksAfterLeaseDue counts its writes acknowledged after that instant
	// that its 100 ms check had not yet refused: queued during the stall,
	// or sent after the resume and answered before its first refusal. A
	// lower bound: without a refusal after the resume (new grants came
	// first) only the queued ones are counted.
	LeaseDueMs        *int64 `json:"lease_due_ms"`
	AcksAfterLeaseDue int64  `json:"acks_after_lease_due"`
}

// leaseFaultKinds are the faults that take a primary away from the
// coordinators that renew its lease.
var leaseFaultKinds = map[string]bool{"partition": true, "pause": true, "kill": true, "slow": true}

// CheckLease measures h around the last partition, pause, kill or
// slow-down that names primary (empty: the node of the first acknowledged
// write): a schedule that prepares the shape with an earlier fault (a
// replica made to fall behind) measures from the one that takes the
// primary away. Ops must
// name nodes as fault targets do. A history without such a fault gives a
// result with only OldPrimary set.
func CheckLease(h *history.History, primary string) LeaseResult {
	ops := make([]history.Op, 0, len(h.Ops))
	for _, op := range h.Ops {
		if !op.Final {
			ops = append(ops, op)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].T1 < ops[j].T1 })
	if primary == "" {
		for i := range ops {
			if ops[i].Type == history.OK && isWrite(&ops[i]) && ops[i].Node != "" {
				primary = ops[i].Node
				break
			}
		}
	}
	r := LeaseResult{OldPrimary: primary}
	var fault *history.Fault
	faults := append([]history.Fault(nil), h.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].StartMs < faults[j].StartMs })
	for i, f := range faults {
		if leaseFaultKinds[f.Kind] && primary != "" && targets(f, primary) {
			fault = &faults[i]
		}
	}
	if fault == nil {
		return r
	}
	r.Fault, r.FaultStartMs, r.FaultEndMs = fault.Kind+" "+fault.Target, fault.StartMs, fault.EndMs
	cut := fault.StartMs * int64(time.Millisecond)
	rel := func(t int64) *int64 { return int64Ptr(floorMs(t - cut)) }

	// The promotion: the first record naming another node, or that
	// node's first acknowledged write, whichever the harness saw first.
	seen := int64(math.MaxInt64)
	for _, o := range h.Observations {
		if o.Kind == history.ObsRecord && o.Node != "" && o.Node != primary && o.StartMs >= fault.StartMs {
			if t := o.StartMs * int64(time.Millisecond); t < seen {
				seen, r.NewPrimary = t, o.Node
			}
		}
	}
	for i := range ops {
		op := &ops[i]
		if op.T1 >= cut && op.Type == history.OK && isWrite(op) && op.Node != "" && op.Node != primary &&
			(r.NewPrimary == "" || op.Node == r.NewPrimary) {
			r.NewFirstAckMs = rel(op.T1)
			if op.T1 < seen {
				seen, r.NewPrimary = op.T1, op.Node
			}
			break
		}
	}
	promoted := seen != math.MaxInt64
	if promoted {
		r.PromotionMs = rel(seen)
	}

	// The old primary's writes.
	end := int64(math.MaxInt64)
	if !promoted && fault.EndMs > 0 {
		end = fault.EndMs * int64(time.Millisecond)
	}
	refusal := int64(-1)
	var lastAck int64 = -1
	for i := range ops {
		op := &ops[i]
		if op.Node != primary || !isWrite(op) {
			continue
		}
		switch {
		case op.Type == history.OK:
			lastAck = max(lastAck, op.T1)
			if op.T1 >= cut && (fault.EndMs == 0 || op.T1 <= fault.EndMs*int64(time.Millisecond)) {
				r.OldAckInFaultMs = rel(op.T1)
			}
		case refusal < 0 && op.Type == history.Fail && op.T1 >= cut && strings.HasPrefix(op.Err, "NOREPLICAS"):
			refusal = op.T1
			r.FirstRefusalMs, r.FirstRefusal = rel(op.T1), op.Err
		}
	}
	if lastAck >= 0 {
		r.OldLastAckMs = rel(lastAck)
	}
	for i := range ops {
		op := &ops[i]
		if op.Node != primary || !isWrite(op) || op.Type != history.OK {
			continue
		}
		if refusal >= 0 && op.T0 > refusal && op.T0 < end {
			r.AcksAfterRefusal++
		}
		if promoted && op.T0 > seen {
			r.AcksAfterPromotion++
		}
	}
	if r.FirstRefusalMs != nil && r.PromotionMs != nil {
		r.PromotionAfterRefusalMs = int64Ptr(*r.PromotionMs - *r.FirstRefusalMs)
	}
	if r.OldLastAckMs != nil && r.PromotionMs != nil {
		r.OldLastAckAfterPromotionMs = int64Ptr(*r.OldLastAckMs - *r.PromotionMs)
	}
	if o := leaseEnded(h.Observations, primary, fault.StartMs); o != nil {
		r.LeaseDueMs = int64Ptr(o.StartMs - fault.StartMs)
		r.LeaseEndSeenMs = int64Ptr(o.EndMs - fault.StartMs)
	}
	if fault.Kind == "pause" && fault.EndMs > 0 {
		r.Stall = checkStall(h, ops, primary, *fault)
	}
	return r
}

// leaseEnded is the first observation that node's lease ended, seen at
// or after fromMs.
func leaseEnded(obs []history.Observation, node string, fromMs int64) *history.Observation {
	var first *history.Observation
	for i, o := range obs {
		if o.Kind == history.ObsLeaseEnded && o.Node == node && o.EndMs >= fromMs && (first == nil || o.EndMs < first.EndMs) {
			first = &obs[i]
		}
	}
	return first
}

// stallLeaseLook is how soon after the resume the harness must see the
// lease ended for it to count as having run out during the stall: its
// polls come every 50 ms.
const stallLeaseLook = 1000

// checkStall measures what the primary did once resumed. ops are the
// workload's ops (final reads aside) by completion.
func checkStall(h *history.History, ops []history.Op, primary string, f history.Fault) *StallResult {
	resume := f.EndMs * int64(time.Millisecond)
	stop := f.StartMs * int64(time.Millisecond)
	st := &StallResult{StallMs: f.EndMs - f.StartMs, AckedOnResumeMs: []int64{}}
	rel := func(t int64) int64 { return floorMs(t - resume) }
	refusal := int64(-1)
	for i := range ops {
		op := &ops[i]
		if op.Node == primary && isWrite(op) && op.Type == history.Fail && op.T1 >= resume && strings.HasPrefix(op.Err, "NOREPLICAS") {
			refusal = op.T1
			st.FirstRefusalMs = int64Ptr(rel(op.T1))
			break
		}
	}
	// The lease ran out during the stall if the first poll after the
	// resume found it ended; a later end is another story.
	var due int64 = math.MaxInt64
	if o := leaseEnded(h.Observations, primary, f.StartMs); o != nil && o.EndMs <= f.EndMs+stallLeaseLook {
		due = o.StartMs * int64(time.Millisecond)
		st.LeaseDueMs = int64Ptr(o.StartMs - f.EndMs)
	}
	final := map[string]map[string]bool{}
	for _, op := range h.Ops {
		if op.Final && op.F == history.FRead && op.Type == history.OK {
			m := map[string]bool{}
			for _, v := range op.Values {
				m[v] = true
			}
			final[op.Key] = m
		}
	}
	for i := range ops {
		op := &ops[i]
		if op.Node != primary || !isWrite(op) {
			continue
		}
		// Taken before the gate caught up: queued during the stall, or
		// sent after the resume and answered before the first refusal.
		beforeRefusal := op.T0 < resume || refusal >= 0 && op.T1 < refusal
		switch {
		case op.Type == history.OK && op.T0 < resume && op.T1 >= resume:
			st.AckedOnResume++
			st.AckedOnResumeMs = append(st.AckedOnResumeMs, rel(op.T1))
		case op.Type == history.OK && op.T0 >= resume && refusal >= 0 && op.T1 < refusal:
			st.AcksBeforeRefusal++
		case op.Type == history.OK && refusal >= 0 && op.T0 > refusal && st.WritesResumedMs == nil:
			st.WritesResumedMs = int64Ptr(rel(op.T1))
		case op.Type == history.Info && op.F == history.FAdd && op.T0 >= stop && op.T0 < resume && final[op.Key][op.Value]:
			st.AppliedUnacknowledged++
		}
		if op.Type == history.OK && op.T1 > due && beforeRefusal {
			st.AcksAfterLeaseDue++
		}
	}
	return st
}

// floorMs converts nanoseconds to whole milliseconds, rounding down
// (towards minus infinity, so -0.5 ms is -1).
func floorMs(ns int64) int64 {
	ms := ns / int64(time.Millisecond)
	if ns%int64(time.Millisecond) < 0 {
		ms--
	}
	return ms
}

// String is the result on one line, for the runner's status line.
func (r *LeaseResult) String() string {
	if r == nil || r.Fault == "" {
		return ""
	}
	var b strings.Builder
	num := func(name string, v *int64) {
		if v != nil {
			fmt.Fprintf(&b, " %s=%d", name, *v)
		}
	}
	num("lease.first_refusal_ms", r.FirstRefusalMs)
	num("lease.promotion_ms", r.PromotionMs)
	num("lease.old_last_ack_ms", r.OldLastAckMs)
	num("lease.old_ack_in_fault_ms", r.OldAckInFaultMs)
	num("lease.old_last_ack_after_promotion_ms", r.OldLastAckAfterPromotionMs)
	fmt.Fprintf(&b, " lease.acks_after_refusal=%d lease.acks_after_promotion=%d", r.AcksAfterRefusal, r.AcksAfterPromotion)
	if s := r.Stall; s != nil {
		fmt.Fprintf(&b, " stall_ms=%d acked_on_resume=%d applied_unacknowledged=%d acks_after_lease_due=%d",
			s.StallMs, s.AckedOnResume, s.AppliedUnacknowledged, s.AcksAfterLeaseDue)
		num("stall.first_refusal_ms", s.FirstRefusalMs)
	}
	return b.String()
}

// LeaseExpectations are a lease scenario's thresholds (Expectations.Lease).
type LeaseExpectations struct {
	// RequireRefusal demands that the old primary refused a write after
	// the fault (its lease ran out while clients wrote to it).
	RequireRefusal bool `json:"require_refusal,omitempty"`
	// MaxAcksAfterRefusal and MaxAcksAfterPromotion bound
	// LeaseResult.AcksAfterRefusal and AcksAfterPromotion.
	MaxAcksAfterRefusal   *int64 `json:"max_acks_after_refusal,omitempty"`
	MaxAcksAfterPromotion *int64 `json:"max_acks_after_promotion,omitempty"`
	// MaxOldAckInFaultMs bounds LeaseResult.OldAckInFaultMs: the old
	// primary acknowledges nothing later than that after the fault began.
	MaxOldAckInFaultMs *int64 `json:"max_old_ack_in_fault_ms,omitempty"`
	// MaxOldAckAfterPromotionMs bounds
	// LeaseResult.OldLastAckAfterPromotionMs: the old primary
	// acknowledges nothing later than that after the promotion was seen.
	MaxOldAckAfterPromotionMs *int64 `json:"max_old_ack_after_promotion_ms,omitempty"`
	// RequirePromotion demands that another primary was seen.
	RequirePromotion bool `json:"require_promotion,omitempty"`
}

// gateLease returns the lease thresholds r misses; with e set and no
// result every one of them is a miss.
func gateLease(r *LeaseResult, e *LeaseExpectations) []string {
	if e == nil {
		return nil
	}
	if r == nil || r.Fault == "" {
		return []string{"lease = null (no partition or pause of the primary measured), want the lease figures"}
	}
	var miss []string
	if e.RequireRefusal && r.FirstRefusalMs == nil {
		miss = append(miss, "lease.first_refusal_ms = null, want a refusal by the old primary")
	}
	if e.RequirePromotion && r.PromotionMs == nil {
		miss = append(miss, "lease.promotion_ms = null, want another primary promoted")
	}
	if e.MaxAcksAfterRefusal != nil && r.AcksAfterRefusal > *e.MaxAcksAfterRefusal {
		miss = append(miss, fmt.Sprintf("lease.acks_after_refusal = %d, want <= %d", r.AcksAfterRefusal, *e.MaxAcksAfterRefusal))
	}
	if e.MaxAcksAfterPromotion != nil && r.AcksAfterPromotion > *e.MaxAcksAfterPromotion {
		miss = append(miss, fmt.Sprintf("lease.acks_after_promotion = %d, want <= %d", r.AcksAfterPromotion, *e.MaxAcksAfterPromotion))
	}
	if e.MaxOldAckAfterPromotionMs != nil && r.OldLastAckAfterPromotionMs != nil && *r.OldLastAckAfterPromotionMs > *e.MaxOldAckAfterPromotionMs {
		miss = append(miss, fmt.Sprintf("lease.old_last_ack_after_promotion_ms = %d, want <= %d", *r.OldLastAckAfterPromotionMs, *e.MaxOldAckAfterPromotionMs))
	}
	if e.MaxOldAckInFaultMs != nil && r.OldAckInFaultMs != nil && *r.OldAckInFaultMs > *e.MaxOldAckInFaultMs {
		miss = append(miss, fmt.Sprintf("lease.old_ack_in_fault_ms = %d, want <= %d", *r.OldAckInFaultMs, *e.MaxOldAckInFaultMs))
	}
	return miss
}

// mergeLease folds one more run's lease result into m (Merge): counts add
// up, times are the worst (largest) run's, names come from the first.
func mergeLease(m, r *LeaseResult) *LeaseResult {
	if r == nil {
		return m
	}
	if m == nil {
		c := *r
		c.Stall = nil
		m = &c
		for _, p := range []**int64{&m.OldLastAckMs, &m.OldAckInFaultMs, &m.FirstRefusalMs, &m.PromotionMs, &m.PromotionAfterRefusalMs,
			&m.NewFirstAckMs, &m.OldLastAckAfterPromotionMs, &m.LeaseDueMs, &m.LeaseEndSeenMs} {
			*p = maxPtr(nil, *p)
		}
		m.Stall = mergeStall(nil, r.Stall)
		return m
	}
	m.OldLastAckMs = maxPtr(m.OldLastAckMs, r.OldLastAckMs)
	m.OldAckInFaultMs = maxPtr(m.OldAckInFaultMs, r.OldAckInFaultMs)
	m.FirstRefusalMs = maxPtr(m.FirstRefusalMs, r.FirstRefusalMs)
	m.PromotionMs = maxPtr(m.PromotionMs, r.PromotionMs)
	m.PromotionAfterRefusalMs = maxPtr(m.PromotionAfterRefusalMs, r.PromotionAfterRefusalMs)
	m.NewFirstAckMs = maxPtr(m.NewFirstAckMs, r.NewFirstAckMs)
	m.OldLastAckAfterPromotionMs = maxPtr(m.OldLastAckAfterPromotionMs, r.OldLastAckAfterPromotionMs)
	m.LeaseDueMs = maxPtr(m.LeaseDueMs, r.LeaseDueMs)
	m.LeaseEndSeenMs = maxPtr(m.LeaseEndSeenMs, r.LeaseEndSeenMs)
	m.AcksAfterRefusal += r.AcksAfterRefusal
	m.AcksAfterPromotion += r.AcksAfterPromotion
	m.Stall = mergeStall(m.Stall, r.Stall)
	return m
}

func mergeStall(m, r *StallResult) *StallResult {
	if r == nil {
		return m
	}
	if m == nil {
		m = &StallResult{AckedOnResumeMs: []int64{}}
	}
	m.StallMs = max(m.StallMs, r.StallMs)
	m.AckedOnResume += r.AckedOnResume
	m.AckedOnResumeMs = append(m.AckedOnResumeMs, r.AckedOnResumeMs...)
	m.AppliedUnacknowledged += r.AppliedUnacknowledged
	m.AcksBeforeRefusal += r.AcksBeforeRefusal
	m.FirstRefusalMs = maxPtr(m.FirstRefusalMs, r.FirstRefusalMs)
	m.WritesResumedMs = maxPtr(m.WritesResumedMs, r.WritesResumedMs)
	m.LeaseDueMs = maxPtr(m.LeaseDueMs, r.LeaseDueMs)
	m.AcksAfterLeaseDue += r.AcksAfterLeaseDue
	return m
}
