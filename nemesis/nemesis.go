// Package nemesis injects faults into a running cluster on a schedule and
// records each one, start and end, in the run's history.
package nemesis

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/history"
)

// Targets a scenario cannot name before the run, resolved by the
// Operator (a Resolver) when the step starts; the history records the
// node it was.
const (
	// Leader is the coordinators' Raft leader.
	Leader = "@leader"
	// Follower is a coordinator that answers and does not lead.
	Follower = "@follower"
)

// Resolver names the node behind a target such as Leader.
type Resolver interface {
	Resolve(ctx context.Context, target string) (string, error)
}

// Recorder is where faults are written: the workload's recorder.
type Recorder interface {
	Fault(f history.Fault) int
	EndFault(i int, endMs int64)
	SinceStartMs() int64
}

// Operator acts on the cluster around the faults as a person running it
// would, with no coordinator: promote a replica by hand once the primary
// is killed, point a restarted node at the current primary, time a
// replica's catch-up. FaultStarted runs once a fault is in and recorded,
// FaultEnded once it has been undone and before its window closes, so an
// operator's repair belongs to the fault's window. Their errors fail the
// run (after every fault begun is ended).
type Operator interface {
	FaultStarted(ctx context.Context, st Step) error
	FaultEnded(ctx context.Context, st Step) error
}

// RunWithOperator executes the schedule against c until it is done or
// ctx ends, telling op (which may be nil) of every fault, and ends every
// fault it began (restarting killed nodes, resuming paused ones, healing
// partitions, resetting clocks) before it returns.
func RunWithOperator(ctx context.Context, c topology.Cluster, steps []Step, rec Recorder, log *slog.Logger, op Operator) error {
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].At < steps[j].At })
	type open struct {
		step  Step
		index int
		end   time.Duration
	}
	var active []open
	start := time.Now()
	wait := func(until time.Duration) bool {
		d := until - time.Since(start)
		if d <= 0 {
			return true
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	// Faults are ended with a fresh context so that a cancelled run still
	// leaves the cluster whole for the final reads.
	end := func(o open) error {
		endCtx, cancel := context.WithTimeout(context.Background(), topology.ReadyTimeout)
		defer cancel()
		if err := kinds[o.step.Kind].stop(endCtx, c, o.step); err != nil {
			// The cluster is not whole (a node that would not restart,
			// say): what follows would measure the harness, not the
			// system, so the run ends with the reason.
			rec.EndFault(o.index, rec.SinceStartMs())
			return fmt.Errorf("ending %s %s: %w", o.step.Kind, o.step.Target, err)
		}
		var err error
		if op != nil {
			if err = op.FaultEnded(endCtx, o.step); err != nil {
				err = fmt.Errorf("operator after %s %s: %w", o.step.Kind, o.step.Target, err)
			}
		}
		rec.EndFault(o.index, rec.SinceStartMs())
		log.Info("fault ended", "kind", o.step.Kind, "target", o.step.Target)
		return err
	}
	defer func() {
		for _, o := range active {
			if err := end(o); err != nil {
				log.Error("ending fault failed", "err", err)
			}
		}
	}()
	for _, st := range steps {
		// End the faults due before this one starts.
		for len(active) > 0 {
			sort.Slice(active, func(i, j int) bool { return active[i].end < active[j].end })
			if active[0].end > st.At {
				break
			}
			if !wait(active[0].end) {
				return ctx.Err()
			}
			o := active[0]
			active = active[1:]
			if err := end(o); err != nil {
				return err
			}
		}
		if !wait(st.At) {
			return ctx.Err()
		}
		if err := resolve(ctx, &st, op); err != nil {
			return fmt.Errorf("%s %s: %w", st.Kind, st.Target, err)
		}
		k, ok := kinds[st.Kind]
		if !ok {
			return fmt.Errorf("unknown fault kind %q", st.Kind)
		}
		// The window opens when the fault is sent, not when the backend
		// confirms it (a container kill takes a while to report).
		startMs := rec.SinceStartMs()
		actor, _ := op.(Actor)
		text, err := k.start(ctx, c, actor, st)
		if err != nil {
			return fmt.Errorf("%s %s: %w", st.Kind, st.Target, err)
		}
		i := rec.Fault(history.Fault{Kind: st.Kind, Target: k.describe(st), StartMs: startMs, Note: text})
		log.Info("fault started", "kind", st.Kind, "target", k.describe(st), "for", st.For)
		active = append(active, open{step: st, index: i, end: st.At + st.For})
		if op != nil {
			if err := op.FaultStarted(ctx, st); err != nil {
				return fmt.Errorf("operator after %s %s: %w", st.Kind, st.Target, err)
			}
		}
	}
	sort.Slice(active, func(i, j int) bool { return active[i].end < active[j].end })
	for len(active) > 0 {
		if !wait(active[0].end) {
			return ctx.Err()
		}
		o := active[0]
		active = active[1:]
		if err := end(o); err != nil {
			return err
		}
	}
	return nil
}

// resolve replaces the targets of st that name a role (Leader,
// Follower) with the node the operator says holds it now, in the target
// and in the links, where a link that then joins a node to itself is
// dropped (LeaderFromCoordinators(Leader, ...) lists the leader among the
// coordinators it is cut from).
func resolve(ctx context.Context, st *Step, op Operator) error {
	names := map[string]string{}
	lookup := func(role string) (string, error) {
		if name, ok := names[role]; ok {
			return name, nil
		}
		r, ok := op.(Resolver)
		if !ok {
			return "", fmt.Errorf("no operator resolves %s", role)
		}
		name, err := r.Resolve(ctx, role)
		if err != nil {
			return "", err
		}
		names[role] = name
		return name, nil
	}
	var links []topology.Link
	for _, l := range st.Links {
		for _, end := range []*string{&l.From, &l.To} {
			if strings.HasPrefix(*end, "@") {
				name, err := lookup(*end)
				if err != nil {
					return err
				}
				*end = name
			}
		}
		if l.From != l.To {
			links = append(links, l)
		}
	}
	if st.Links != nil {
		st.Links = links
	}
	for _, word := range strings.Fields(st.Target) {
		if strings.HasPrefix(word, "@") {
			name, err := lookup(word)
			if err != nil {
				return err
			}
			st.Target = strings.ReplaceAll(st.Target, word, name)
		}
	}
	return nil
}

// Periodic returns a schedule repeating one fault: every interval (with up
// to jitter added, drawn from rng), for length, from first until the run's
// duration minus settle.
func Periodic(rng *rand.Rand, kind, target string, first, interval, jitter, length, duration, settle time.Duration) []Step {
	return Cycle(rng, []FaultOn{{Kind: kind, Target: target}}, first, interval, jitter, length, duration, settle)
}

// FaultOn is one kind of fault aimed at one node, for Cycle.
type FaultOn struct{ Kind, Target string }

// Cycle is Periodic over several faults in turn: the i-th step is
// faults[i mod len(faults)], so no two overlap.
func Cycle(rng *rand.Rand, faults []FaultOn, first, interval, jitter, length, duration, settle time.Duration) []Step {
	if len(faults) == 0 {
		return nil
	}
	var steps []Step
	for at := first; at+length <= duration-settle; {
		f := faults[len(steps)%len(faults)]
		steps = append(steps, Step{Kind: f.Kind, Target: f.Target, At: at, For: length})
		j := time.Duration(0)
		if jitter > 0 {
			j = time.Duration(rng.Int64N(int64(jitter)))
		}
		at += length + interval + j
	}
	return steps
}
