package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/slots"
	clustermap "github.com/ruvio/ruvio/ruvio/topology"
)

// Several groups sharing the hash slots: each group's keys are served by
// its own primary, so a fault in one group shows in that group's figures
// only. The checker splits the history by the group that owns each op's
// key (its hash slot in the group's ranges) and measures each part on its
// own.

// Group is one group of a clustered run, as the checker needs it.
type Group struct {
	Name string
	// Nodes are its data nodes by name; Primary is the one that is its
	// primary when the run starts.
	Nodes   []string
	Primary string
	// Slots are its ranges, "first-last" or "first-last@shard".
	Slots []string
}

// GroupResult is one group's figures (Summary.Groups).
type GroupResult struct {
	Group string `json:"group"`
	// Ops counts the workload's ops on the group's keys (final reads
	// aside).
	Ops int64 `json:"ops"`
	// UnavailableMs is Windows.UnavailableMs over the group's ops alone:
	// the longest stretch, begun during a fault, without a success on
	// the group's keys. Null when the history has no faults.
	UnavailableMs *int64 `json:"unavailable_ms"`
	// PromotedMs runs from the start of a kill, pause or partition of
	// the group's primary to the coordinators' first record naming
	// another member (as the harness polls them, every 100 ms); null
	// without such a fault or record.
	PromotedMs *int64 `json:"promoted_ms"`
	// FailoverMs runs from the same fault to the first op on the group's
	// keys that another member of the group answered, ok or with an
	// error reply: the clients found the promoted replica. The largest
	// over the group's failovers; null when it had none.
	FailoverMs *int64 `json:"failover_ms"`
	// FirstAckMs runs to the first op on the group's keys (of any kind)
	// another member acknowledged, FirstWriteMs (Windows.FailoverMs over
	// the group's ops) to the first acknowledged write. On a durable
	// connection (CLIENT DURABILITY REPLICAS 1) reads too wait until what
	// they see is on a replica, so in a group of two both wait for the
	// old primary to come back as the new one's replica.
	FirstAckMs   *int64 `json:"first_ack_ms"`
	FirstWriteMs *int64 `json:"first_write_ms"`
	// Failovers and EpochRise are CoordinationResult's for the records of
	// the group's primary; null when no coordinator was watched.
	Failovers *int64 `json:"failovers"`
	EpochRise *int64 `json:"epoch_rise"`
}

// String is the group's figures for a status line.
func (g GroupResult) String() string {
	s := fmt.Sprintf("group %s: ops=%d", g.Group, g.Ops)
	for _, f := range []struct {
		name string
		v    *int64
	}{{"unavailable_ms", g.UnavailableMs}, {"promoted_ms", g.PromotedMs}, {"failover_ms", g.FailoverMs},
		{"first_ack_ms", g.FirstAckMs}, {"first_write_ms", g.FirstWriteMs},
		{"failovers", g.Failovers}, {"epoch_rise", g.EpochRise}} {
		if f.v != nil {
			s += fmt.Sprintf(" %s=%d", f.name, *f.v)
		}
	}
	return s
}

// owner returns, for a key, the index of the group whose ranges hold its
// slot (-1 for none).
func owner(groups []Group) (func(key string) int, error) {
	var table [slots.Count]int16
	for i := range table {
		table[i] = -1
	}
	for gi, g := range groups {
		for _, s := range g.Slots {
			r, err := clustermap.ParseRange(s)
			if err != nil {
				return nil, fmt.Errorf("group %s: %w", g.Name, err)
			}
			for slot := r.First; slot <= r.Last; slot++ {
				table[slot] = int16(gi)
			}
		}
	}
	return func(key string) int { return int(table[slots.Of([]byte(key))]) }, nil
}

// SplitByGroup returns, for each group, the part of h that concerns it:
// the ops on its keys, every fault, and the observations of its nodes.
func SplitByGroup(h *history.History, groups []Group) ([]*history.History, error) {
	of, err := owner(groups)
	if err != nil {
		return nil, err
	}
	out := make([]*history.History, len(groups))
	for i := range out {
		out[i] = &history.History{Faults: h.Faults}
	}
	for _, op := range h.Ops {
		if op.Key == "" {
			continue
		}
		if gi := of(op.Key); gi >= 0 {
			out[gi].Ops = append(out[gi].Ops, op)
		}
	}
	for _, o := range h.Observations {
		for gi, g := range groups {
			if slices.Contains(g.Nodes, o.Node) {
				out[gi].Observations = append(out[gi].Observations, o)
			}
		}
	}
	return out, nil
}

// ComputeGroups measures every group's figures.
func ComputeGroups(h *history.History, groups []Group) ([]GroupResult, error) {
	parts, err := SplitByGroup(h, groups)
	if err != nil {
		return nil, err
	}
	out := make([]GroupResult, len(groups))
	for i, g := range groups {
		sub := parts[i]
		r := GroupResult{Group: g.Name}
		for _, op := range sub.Ops {
			if !op.Final {
				r.Ops++
			}
		}
		w := ComputeWindows(sub, g.Primary)
		r.UnavailableMs, r.FirstWriteMs = w.UnavailableMs, w.FailoverMs
		r.FailoverMs = firstOn(sub, g, answered)
		r.FirstAckMs = firstOn(sub, g, func(op *history.Op) bool { return op.Type == history.OK })
		r.PromotedMs = promoted(sub, g)
		if cr := CheckCoordination(sub.Observations, h.Faults); cr.Watched {
			r.Failovers, r.EpochRise = int64Ptr(cr.Failovers), int64Ptr(cr.EpochRise)
		}
		out[i] = r
	}
	return out, nil
}

// answered says the server answered op: ok, or an error reply (a
// refusal, or the NOREPLICAS of a durable write it applied).
func answered(op *history.Op) bool {
	return op.Type == history.OK || strings.HasPrefix(op.Err, "NOREPLICAS") || op.Type == history.Fail && isReplyText(op.Err)
}

// isReplyText says an error text is a server's error reply: an upper-case
// code first ("READONLY ...", "MOVED ..."), not a transport error.
func isReplyText(s string) bool {
	code, _, _ := strings.Cut(s, " ")
	return len(code) >= 3 && strings.ToUpper(code) == code && strings.IndexFunc(code, func(r rune) bool { return r < 'A' || r > 'Z' }) < 0
}

// failoverStarts are the starts (ns) of the faults that take the group's
// primary away, each with the primary it took away; next names the
// member that took over after the fault, "" when none did.
func failoverStarts(h *history.History, g Group, next func(start int64, old string) string) []int64 {
	faults := append([]history.Fault(nil), h.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].StartMs < faults[j].StartMs })
	primary := g.Primary
	var out []int64
	for _, f := range faults {
		if !TakesPrimaryAway(f, primary) {
			continue
		}
		start := f.StartMs * int64(time.Millisecond)
		out = append(out, start)
		if n := next(start, primary); n != "" {
			primary = n
		}
	}
	return out
}

// firstOn runs from each fault that takes the group's primary away to
// the first op on its keys, by another member, that pass accepts: the
// largest over the faults, nil when none was followed by one.
func firstOn(h *history.History, g Group, pass func(op *history.Op) bool) *int64 {
	ops := make([]*history.Op, 0, len(h.Ops))
	for i := range h.Ops {
		if op := &h.Ops[i]; !op.Final && pass(op) && slices.Contains(g.Nodes, op.Node) {
			ops = append(ops, op)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].T1 < ops[j].T1 })
	var worst *int64
	failoverStarts(h, g, func(start int64, old string) string {
		for _, op := range ops {
			if op.T1 >= start && op.Node != old {
				worst = maxPtr(worst, int64Ptr((op.T1-start)/int64(time.Millisecond)))
				return op.Node
			}
		}
		return ""
	})
	return worst
}

// promoted is GroupResult.PromotedMs: from each fault that takes the
// group's primary away to the first record of another member.
func promoted(h *history.History, g Group) *int64 {
	var recs []history.Observation
	for _, o := range h.Observations {
		if o.Kind == history.ObsRecord && o.Type == history.OK {
			recs = append(recs, o)
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].StartMs < recs[j].StartMs })
	var worst *int64
	failoverStarts(h, g, func(start int64, old string) string {
		for _, o := range recs {
			if o.StartMs*int64(time.Millisecond) >= start && o.Node != old {
				worst = maxPtr(worst, int64Ptr(o.StartMs-start/int64(time.Millisecond)))
				return o.Node
			}
		}
		return ""
	})
	return worst
}

// groupsChecker replaces the windows and coordination checkers in a
// clustered run: it measures each group on its own (Summary.Groups), and
// the run's windows are the worst group's (failover_ms: to the first
// acknowledged write, as in a run of one group), its failover and epoch
// counts the sum of the groups'.
type groupsChecker struct{ groups []Group }

func (groupsChecker) Name() string { return "groups" }

func (c groupsChecker) Check(h *history.History) Result {
	rs, err := ComputeGroups(h, c.groups)
	if err != nil {
		var r Result
		r.violate("groups: %v", err)
		return r.judged()
	}
	parts, _ := SplitByGroup(h, c.groups)
	var w Windows
	for i, g := range c.groups {
		gw := ComputeWindows(parts[i], g.Primary)
		w.TwoWriterMs = maxPtr(w.TwoWriterMs, gw.TwoWriterMs)
		w.RefusalMs = maxPtr(w.RefusalMs, gw.RefusalMs)
		w.RefusalAfterFailoverMs = maxPtr(w.RefusalAfterFailoverMs, gw.RefusalAfterFailoverMs)
	}
	var failovers, rise *int64
	held := int64(math.MaxInt64)
	watched := false
	for i := range c.groups {
		if cr := CheckCoordination(parts[i].Observations, h.Faults); cr.Watched {
			watched = true
			failovers = int64Ptr(valueOr(failovers) + cr.Failovers)
			rise = int64Ptr(valueOr(rise) + cr.EpochRise)
			held = min(held, cr.HeldMs)
		}
	}
	return Result{Figures: func(s *Summary) {
		s.Groups = rs
		for _, g := range rs {
			s.UnavailableMs = maxPtr(s.UnavailableMs, g.UnavailableMs)
			s.FailoverMs = maxPtr(s.FailoverMs, g.FirstWriteMs)
		}
		s.TwoWriterMs, s.RefusalMs, s.RefusalAfterFailoverMs = w.TwoWriterMs, w.RefusalMs, w.RefusalAfterFailoverMs
		if watched {
			s.Failovers, s.EpochRise, s.PrimaryHeldMs = failovers, rise, int64Ptr(held)
		}
	}}.judged()
}

func valueOr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// mergeGroups folds one more run's group figures into m: per group (by
// name), ops add up, windows and counts are the worst run's.
func mergeGroups(m, runs []GroupResult) []GroupResult {
	for _, r := range runs {
		i := slices.IndexFunc(m, func(g GroupResult) bool { return g.Group == r.Group })
		if i < 0 {
			m = append(m, GroupResult{Group: r.Group})
			i = len(m) - 1
		}
		g := &m[i]
		g.Ops += r.Ops
		g.UnavailableMs = maxPtr(g.UnavailableMs, r.UnavailableMs)
		g.PromotedMs = maxPtr(g.PromotedMs, r.PromotedMs)
		g.FailoverMs = maxPtr(g.FailoverMs, r.FailoverMs)
		g.FirstAckMs = maxPtr(g.FirstAckMs, r.FirstAckMs)
		g.FirstWriteMs = maxPtr(g.FirstWriteMs, r.FirstWriteMs)
		g.Failovers = maxPtr(g.Failovers, r.Failovers)
		g.EpochRise = maxPtr(g.EpochRise, r.EpochRise)
	}
	return m
}
