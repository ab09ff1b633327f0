package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// A failover's anatomy: where the time from the fault to the first write
// on the new primary went, read from the events the coordinators published
// (history.ObsEvent, recorded as the harness received them) and the
// workload's ops. Each step is the first of its kind after the fault and
// before the next failover; a step the run did not show is left out.

// Anatomy steps, in the order a failover takes them.
const (
	StepFault = "fault sent"
	// StepLastPing is derived: the first +sdown less down_after_ms, when
	// the coordinator last heard the primary.
	StepLastPing   = "last answered ping (first +sdown less down_after_ms)"
	StepSdown      = "first coordinator's +sdown (silent for down_after_ms)"
	StepOdown      = "+odown: the leader decided the primary is down"
	StepElected    = "+elected-leader: replicas detached, promotion being recorded"
	StepSwitch     = "first +switch-master: the promotion committed and applied"
	StepSwitchAll  = "last coordinator's +switch-master"
	StepFirstWrite = "first acknowledged write on the new primary"
)

// AnatomyStep is one step: when it happened, in ms from the fault's
// start, and who showed it.
type AnatomyStep struct {
	Step string `json:"step"`
	AtMs int64  `json:"at_ms"`
	By   string `json:"by,omitempty"`
}

// Anatomy is one failover's steps, in time order.
type Anatomy struct {
	// Fault is the fault's kind and target.
	Fault string        `json:"fault"`
	Steps []AnatomyStep `json:"steps"`
}

// Step returns the named step's time, ok false when the run did not
// show it.
func (a Anatomy) Step(name string) (int64, bool) {
	for _, s := range a.Steps {
		if s.Step == name {
			return s.AtMs, true
		}
	}
	return 0, false
}

// Anatomies dissects each failover of h (as failoverEvents finds them,
// from primary). downAfterMs, when above 0, derives StepLastPing.
// Without coordinator events a failover's anatomy has the fault and
// the first write only.
func Anatomies(h *history.History, primary string, downAfterMs int64) []Anatomy {
	events, _ := failoverEvents(h, primary)
	// The harness records events as they arrive from several
	// coordinators; "first" means first in time.
	var evs []history.Observation
	for _, o := range h.Observations {
		if o.Kind == history.ObsEvent {
			evs = append(evs, o)
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].EndMs < evs[j].EndMs })
	var out []Anatomy
	for i, e := range events {
		startMs := e.fault.StartMs
		boundMs := int64(1) << 62
		if i+1 < len(events) {
			boundMs = events[i+1].fault.StartMs
		}
		a := Anatomy{Fault: e.fault.Kind + " " + e.fault.Target, Steps: []AnatomyStep{{Step: StepFault}}}
		first := func(prefix string) (history.Observation, bool) {
			for _, o := range evs {
				if o.EndMs >= startMs && o.EndMs < boundMs && strings.HasPrefix(o.Detail, prefix+" ") {
					return o, true
				}
			}
			return history.Observation{}, false
		}
		add := func(step string, atMs int64, by string) {
			a.Steps = append(a.Steps, AnatomyStep{Step: step, AtMs: atMs, By: by})
		}
		if o, ok := first("+sdown"); ok {
			if downAfterMs > 0 {
				add(StepLastPing, o.EndMs-downAfterMs-startMs, o.Node)
			}
			add(StepSdown, o.EndMs-startMs, o.Node)
		}
		if o, ok := first("+odown"); ok {
			add(StepOdown, o.EndMs-startMs, o.Node)
		}
		if o, ok := first("+elected-leader"); ok {
			add(StepElected, o.EndMs-startMs, o.Node)
		}
		var switches []history.Observation
		for _, o := range evs {
			if o.EndMs >= startMs && o.EndMs < boundMs && strings.HasPrefix(o.Detail, "+switch-master ") {
				switches = append(switches, o)
			}
		}
		if len(switches) > 0 {
			add(StepSwitch, switches[0].EndMs-startMs, switches[0].Node)
			// The last coordinator to announce it: the latest of each
			// coordinator's first announcement.
			last := switches[0]
			seen := map[string]bool{}
			for _, o := range switches {
				if !seen[o.Node] {
					seen[o.Node] = true
					last = o
				}
			}
			if len(seen) > 1 {
				add(StepSwitchAll, last.EndMs-startMs, last.Node)
			}
		}
		add(StepFirstWrite, (e.newFirst-e.start)/int64(time.Millisecond), e.new)
		sortSteps(a.Steps)
		out = append(out, a)
	}
	return out
}

// sortSteps orders steps by time, keeping the anatomy's order for ties.
func sortSteps(steps []AnatomyStep) {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].AtMs < steps[j-1].AtMs; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}

// String is the anatomy as one line per step: ms from the fault, ms
// since the step before, the step and who showed it.
func (a Anatomy) String() string {
	var b strings.Builder
	prev := int64(0)
	if len(a.Steps) > 0 {
		prev = a.Steps[0].AtMs
	}
	for _, s := range a.Steps {
		by := ""
		if s.By != "" {
			by = " (" + s.By + ")"
		}
		fmt.Fprintf(&b, "%6d ms  +%5d ms  %s%s\n", s.AtMs, s.AtMs-prev, s.Step, by)
		prev = s.AtMs
	}
	return b.String()
}
