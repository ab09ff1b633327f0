package nemesis

import (
	"context"
	"errors"
	"strings"

	"github.com/ruvio/ruvio/chaos/topology"
)

// kind is one kind of fault: how it is put in and taken out, and how the
// history names its target. Every kind is registered once, in kinds.
type kind struct {
	// start puts the fault in and returns the note the report shows
	// beside it.
	start func(ctx context.Context, c topology.Cluster, op Operator, st Step) (note string, err error)
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
	Force: {
		// The operator carries it out and says what came of it; there is
		// nothing to undo.
		start: func(ctx context.Context, _ topology.Cluster, op Operator, st Step) (string, error) {
			a, ok := op.(Actor)
			if !ok {
				return "", errors.New("no operator carries it out")
			}
			return a.Act(ctx, st)
		},
		stop:     func(context.Context, topology.Cluster, Step) error { return nil },
		describe: func(st Step) string { return "COORDINATOR FAILOVER " + st.Target + " FORCE" },
	},
}

// noted is a start that acts on the cluster and notes plainly what the
// fault is and is not, for the report.
func noted(note string, act func(ctx context.Context, c topology.Cluster, st Step) error) func(context.Context, topology.Cluster, Operator, Step) (string, error) {
	return func(ctx context.Context, c topology.Cluster, _ Operator, st Step) (string, error) {
		return note, act(ctx, c, st)
	}
}

func targetOnly(st Step) string { return st.Target }
