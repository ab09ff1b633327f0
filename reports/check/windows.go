package check

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// Windows are a run's availability figures in whole milliseconds (rounded
// down); nil where they do not apply.
type Windows struct {
	// UnavailableMs is the longest unavailable stretch that began during a
	// fault. Take every interval between two consecutive successes (ok
	// completions, T1) of the workload's ops (final reads excluded: they
	// come after heal and settle), plus the interval from the last success
	// to the last completion of any op. Such an interval counts for a
	// fault when it begins during the fault's window, and it is measured
	// from the latest of: the success opening it, the fault's start, and
	// the invocation of the earliest op in flight in it (so idle time, when
	// no client was trying, is not counted), to the success closing it.
	// nil when the history has no faults.
	UnavailableMs *int64
	// FailoverMs runs from the start of a kill, pause or partition fault
	// that targets the primary to the first acknowledged write (add, write
	// or cas) on another node, which becomes the primary for the faults
	// that follow. The largest over the run's failovers; nil when no
	// failover happened, and always nil when the ops name fewer than two
	// nodes.
	FailoverMs *int64
	// TwoWriterMs runs from the new primary's first acknowledged write to
	// the old primary's last acknowledged write before the next failover,
	// 0 when the old one stopped first. The largest over the failovers;
	// nil without a failover.
	TwoWriterMs *int64
	// RefusalMs runs from the fault's start to the old primary's first
	// failed write whose error starts with NOREPLICAS (it noticed it had
	// lost its replicas and refused); the largest over the failovers, nil
	// when the old primary never refused.
	RefusalMs *int64
	// RefusalAfterFailoverMs runs from the new primary's first
	// acknowledged write to the old primary's first NOREPLICAS (negative
	// when the old one refused first): how long after the failover the
	// old primary noticed. The largest over the failovers, nil when the
	// old primary never refused.
	RefusalAfterFailoverMs *int64
}

// failoverKinds are the faults that take a primary away from its peers.
// A paused (SIGSTOP) primary is gone to them as surely as a killed one,
// and is the case most likely to leave two writers once it resumes. A
// switchover (SENTINEL FAILOVER) hands the primary over on purpose.
var failoverKinds = map[string]bool{"kill": true, "pause": true, "partition": true, "switchover": true}

// TakesPrimaryAway reports whether fault f is one the checkers count as
// taking node, a primary, away from its peers (the failover windows are
// measured from it): a kind of failoverKinds whose target names node.
func TakesPrimaryAway(f history.Fault, node string) bool {
	return failoverKinds[f.Kind] && targets(f, node)
}

// ComputeWindows measures the windows of h. primary names the node that
// is primary when the run starts; empty means the node of the first
// acknowledged write. Ops and faults name nodes the same way (the
// workloads record the node's name, not the address they dialled).
func ComputeWindows(h *history.History, primary string) Windows {
	var w Windows
	if len(h.Faults) > 0 {
		w.UnavailableMs = int64Ptr(unavailable(h))
	}
	nodes := map[string]bool{}
	for _, op := range h.Ops {
		if op.Node != "" {
			nodes[op.Node] = true
		}
	}
	if len(nodes) < 2 {
		return w // one node: there is nothing to fail over to
	}
	failovers(h, primary, &w)
	return w
}

func isWrite(op *history.Op) bool {
	return op.F == history.FAdd || op.F == history.FWrite || op.F == history.FCAS
}

// unavailable returns the longest unavailable stretch in whole
// milliseconds, as Windows.UnavailableMs defines it.
func unavailable(h *history.History) int64 {
	var ops []history.Op
	var oks []int64
	for _, op := range h.Ops {
		if op.Final {
			continue
		}
		ops = append(ops, op)
		if op.Type == history.OK {
			oks = append(oks, op.T1)
		}
	}
	if len(ops) == 0 {
		return 0
	}
	sort.Slice(oks, func(i, j int) bool { return oks[i] < oks[j] })
	// byT1 with minT0[i] = the earliest invocation among ops completing
	// at or after byT1[i].T1: the earliest op still in flight at a time.
	sort.Slice(ops, func(i, j int) bool { return ops[i].T1 < ops[j].T1 })
	minT0 := make([]int64, len(ops))
	lastT1 := ops[len(ops)-1].T1
	m := int64(math.MaxInt64)
	for i := len(ops) - 1; i >= 0; i-- {
		m = min(m, ops[i].T0)
		minT0[i] = m
	}
	// earliestInFlight is the invocation of the earliest op completing
	// after t, or MaxInt64 if none.
	earliestInFlight := func(t int64) int64 {
		i := sort.Search(len(ops), func(i int) bool { return ops[i].T1 > t })
		if i == len(ops) {
			return math.MaxInt64
		}
		return minT0[i]
	}
	// Gaps between successes, the first one from time 0 and the last one
	// to the last completion.
	type gap struct{ from, to int64 }
	gaps := make([]gap, 0, len(oks)+1)
	prev := int64(0)
	for _, t := range oks {
		gaps = append(gaps, gap{prev, t})
		prev = t
	}
	if lastT1 > prev {
		gaps = append(gaps, gap{prev, lastT1})
	}
	var longest int64
	for _, f := range h.Faults {
		start := f.StartMs * int64(time.Millisecond)
		end := int64(math.MaxInt64)
		if f.EndMs > 0 && f.EndMs >= f.StartMs {
			end = f.EndMs * int64(time.Millisecond)
		}
		// The first gap that can matter is the one holding the start.
		i := sort.Search(len(gaps), func(i int) bool { return gaps[i].to > start })
		for ; i < len(gaps); i++ {
			g := gaps[i]
			from := max(g.from, start, earliestInFlight(g.from))
			if from > end {
				break // the gaps from here on begin after the fault
			}
			if from < g.to {
				longest = max(longest, g.to-from)
			}
		}
	}
	return longest / int64(time.Millisecond)
}

// targets reports whether fault f is aimed at node: its target, split on
// the punctuation of the nemesis's shape descriptions ("n1 [n1->n2]",
// "{n1 + n2} | {n3}"), names it.
func targets(f history.Fault, node string) bool {
	r := strings.NewReplacer("->", " ", "[", " ", "]", " ", "{", " ", "}", " ", "(", " ", ")", " ",
		",", " ", "|", " ", "+", " ")
	for _, tok := range strings.Fields(r.Replace(f.Target)) {
		if tok == node {
			return true
		}
	}
	return false
}

// failoverEvent is one failover the history shows: a fault that took
// the primary old away (starting at start, ns) and the first write
// another node, new, acknowledged after it (newFirst, T1).
type failoverEvent struct {
	start    int64
	fault    history.Fault
	old, new string
	newFirst int64
}

// failoverEvents finds the run's failovers in order, starting from
// primary (the node of the first acknowledged write when ""), and
// returns the ops sorted by completion too.
func failoverEvents(h *history.History, primary string) ([]failoverEvent, []*history.Op) {
	ops := make([]*history.Op, 0, len(h.Ops))
	for i := range h.Ops {
		ops = append(ops, &h.Ops[i])
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].T1 < ops[j].T1 })
	if primary == "" {
		for _, op := range ops {
			if op.Type == history.OK && isWrite(op) && op.Node != "" {
				primary = op.Node
				break
			}
		}
	}
	if primary == "" {
		return nil, ops
	}
	faults := append([]history.Fault(nil), h.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].StartMs < faults[j].StartMs })
	var events []failoverEvent
	for _, f := range faults {
		if !TakesPrimaryAway(f, primary) {
			continue
		}
		start := f.StartMs * int64(time.Millisecond)
		for _, op := range ops {
			if op.T1 >= start && op.Type == history.OK && isWrite(op) && op.Node != "" && op.Node != primary {
				events = append(events, failoverEvent{start: start, fault: f, old: primary, new: op.Node, newFirst: op.T1})
				primary = op.Node
				break
			}
		}
	}
	return events, ops
}

// failovers fills the failover, two-writer and refusal windows.
func failovers(h *history.History, primary string, w *Windows) {
	events, ops := failoverEvents(h, primary)
	for i, e := range events {
		bound := int64(math.MaxInt64)
		if i+1 < len(events) {
			bound = events[i+1].start
		}
		w.FailoverMs = maxPtr(w.FailoverMs, int64Ptr((e.newFirst-e.start)/int64(time.Millisecond)))
		oldLast := int64(-1)
		var refused, after *int64
		for _, op := range ops {
			if op.Node != e.old || !isWrite(op) || op.T1 >= bound {
				continue
			}
			if op.Type == history.OK {
				oldLast = max(oldLast, op.T1)
			}
			if refused == nil && op.Type == history.Fail && op.T1 >= e.start && strings.HasPrefix(op.Err, "NOREPLICAS") {
				refused = int64Ptr((op.T1 - e.start) / int64(time.Millisecond))
				after = int64Ptr((op.T1 - e.newFirst) / int64(time.Millisecond))
			}
		}
		w.TwoWriterMs = maxPtr(w.TwoWriterMs, int64Ptr(max(oldLast-e.newFirst, 0)/int64(time.Millisecond)))
		w.RefusalMs = maxPtr(w.RefusalMs, refused)
		w.RefusalAfterFailoverMs = maxPtr(w.RefusalAfterFailoverMs, after)
	}
}
