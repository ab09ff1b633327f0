package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Kinds of fault, as they appear in the history and the reports.
const (
	Kill      = "kill"      // SIGKILL, then restart at the end of the window
	Pause     = "pause"     // SIGSTOP, then SIGCONT
	Partition = "partition" // links cut, then healed
	Clock     = "clock"     // skewed clock, then reset
	Slow      = "slow"      // links delayed, jittered and lossy, then healed
	// Force is not a fault but an operator's command carried out at its
	// place in the schedule: COORDINATOR FAILOVER <group> FORCE sent to
	// the coordinators' leader (Target is the group). The Operator, an
	// Actor, sends it; it is recorded like a fault, with no window.
	Force = "force"
	// Move and Rebalance are operator's commands too, carried out by the
	// Actor: COORDINATOR MOVE <Target> (Target is "first last group
	// shard") and COORDINATOR REBALANCE, sent to the leader. The Actor
	// sends the command and returns; it follows the move (or the
	// rebalance's moves) in the background and records each in the
	// history when it ends (history.ObsMove), and the step's end waits
	// for that (the operator's FaultEnded), so the fault's window is at
	// least the move's.
	Move      = "move"
	Rebalance = "rebalance"
	// Switchover is an operator's command too: SENTINEL FAILOVER of the
	// group sent to a coordinator that is not the leader (which asks the
	// leader), moving the primary to a replica while it answers. Target
	// is the primary it moves away from, so the checkers count the step
	// as a failover of that node.
	Switchover = "switchover"
)

// Actor carries out a step that is an operator's command (Force, Move,
// Rebalance, Switchover); the note says what came of it, for the report.
type Actor interface {
	Act(ctx context.Context, st Step) (note string, err error)
}

// Step is one fault: what, on whom, when it starts and how long it lasts
// (offsets from the start of the run).
type Step struct {
	Kind   string
	Target string // the node (kill, pause, clock); a shape's name (partition)
	At     time.Duration
	For    time.Duration
	// Links are the directed links a partition cuts.
	Links []topology.Link
	// Clock is the skew spec for a clock fault.
	Clock string
	// Netem is how a slow fault degrades its Links.
	Netem topology.Netem
}

// kind is one kind of fault: how it is put in and taken out, and how the
// history names its target. Every kind is registered once, in kinds.
type kind struct {
	// start puts the fault in (a, which may be nil, carries out the
	// steps that are an operator's command) and returns the note the
	// report shows beside it.
	start func(ctx context.Context, c topology.Cluster, a Actor, st Step) (note string, err error)
	// stop takes the fault out.
	stop func(ctx context.Context, c topology.Cluster, st Step) error
	// describe is the fault's target as the history records it.
	describe func(st Step) string
}

// kinds are the faults a Step can name, by Kind.
var kinds = map[string]kind{
	Kill: {
		start: noted("SIGKILL, restarted on the same data at the end of the window",
			func(ctx context.Context, c topology.Cluster, st Step) error { return c.Kill(ctx, st.Target) }),
		stop:     func(ctx context.Context, c topology.Cluster, st Step) error { return c.Restart(ctx, st.Target) },
		describe: targetOnly,
	},
	Pause: {
		start: noted("SIGSTOP: the process is frozen but its kernel still accepts TCP connections; not a partition",
			func(ctx context.Context, c topology.Cluster, st Step) error { return c.Pause(ctx, st.Target) }),
		stop:     func(ctx context.Context, c topology.Cluster, st Step) error { return c.Resume(ctx, st.Target) },
		describe: targetOnly,
	},
	Partition: {
		start: noted("listed links drop traffic in the direction shown",
			func(ctx context.Context, c topology.Cluster, st Step) error { return c.Cut(ctx, st.Links) }),
		stop: func(ctx context.Context, c topology.Cluster, _ Step) error { return c.Heal(ctx) },
		describe: func(st Step) string {
			var parts []string
			for _, l := range st.Links {
				parts = append(parts, l.From+"->"+l.To)
			}
			return st.Target + " [" + strings.Join(parts, " ") + "]"
		},
	},
	Clock: {
		start: noted("the node's clock package skews wall time (offset, rate); libfaketime cannot reach Go programs",
			func(ctx context.Context, c topology.Cluster, st Step) error {
				return c.SetClock(ctx, st.Target, st.Clock)
			}),
		stop:     func(ctx context.Context, c topology.Cluster, st Step) error { return c.SetClock(ctx, st.Target, "") },
		describe: func(st Step) string { return st.Target + " " + st.Clock },
	},
	Slow: {
		start: func(ctx context.Context, c topology.Cluster, _ Actor, st Step) (string, error) {
			d, ok := c.(topology.Degrader)
			if !ok {
				return "", fmt.Errorf("the %s backend cannot slow links down", c.Backend())
			}
			note := "listed links are slowed (" + st.Netem.String() + "), not cut"
			if c.Backend() == "local" {
				note += "; on the local proxies a lost packet is a chunk held one retransmission timeout (200 ms) more"
			}
			return note, d.Degrade(ctx, st.Links, st.Netem)
		},
		stop: func(ctx context.Context, c topology.Cluster, _ Step) error { return c.Heal(ctx) },
		describe: func(st Step) string {
			var parts []string
			for _, l := range st.Links {
				parts = append(parts, l.From+"->"+l.To)
			}
			return st.Target + " (" + st.Netem.String() + ") [" + strings.Join(parts, " ") + "]"
		},
	},
	Force: {
		// The operator carries it out and says what came of it; there is
		// nothing to undo.
		start: func(ctx context.Context, _ topology.Cluster, a Actor, st Step) (string, error) {
			if a == nil {
				return "", errors.New("no operator carries it out")
			}
			return a.Act(ctx, st)
		},
		stop:     func(context.Context, topology.Cluster, Step) error { return nil },
		describe: func(st Step) string { return "COORDINATOR FAILOVER " + st.Target + " FORCE" },
	},
	Switchover: {
		start: acted,
		stop:  func(context.Context, topology.Cluster, Step) error { return nil },
		describe: func(st Step) string {
			// The checkers find the primary it moves away from in the
			// description (check.Targets): keep it a word of its own.
			return "SENTINEL FAILOVER (primary " + st.Target + ")"
		},
	},
	Move: {
		start:    acted,
		stop:     func(context.Context, topology.Cluster, Step) error { return nil },
		describe: func(st Step) string { return "COORDINATOR MOVE " + st.Target },
	},
	Rebalance: {
		start:    acted,
		stop:     func(context.Context, topology.Cluster, Step) error { return nil },
		describe: func(Step) string { return "COORDINATOR REBALANCE" },
	},
}

// acted is the start of a step the Actor carries out.
func acted(ctx context.Context, _ topology.Cluster, a Actor, st Step) (string, error) {
	if a == nil {
		return "", errors.New("no operator carries it out")
	}
	return a.Act(ctx, st)
}

// noted is a start that acts on the cluster and notes plainly what the
// fault is and is not, for the report.
func noted(note string, act func(ctx context.Context, c topology.Cluster, st Step) error) func(context.Context, topology.Cluster, Actor, Step) (string, error) {
	return func(ctx context.Context, c topology.Cluster, _ Actor, st Step) (string, error) {
		return note, act(ctx, c, st)
	}
}

func targetOnly(st Step) string { return st.Target }
