package nemesis

import (
	"context"
	"errors"
	"fmt"
)

// Operators is one Operator made of several, each told of every fault in
// turn; Resolve and Act go to the first of them that is a Resolver or an
// Actor. A run with coordinators has two: the coordinators' client, which
// names the leader and sends FORCE, and the replication group's watcher,
// which times catch-ups.
func Operators(ops ...Operator) Operator { return operators(ops) }

type operators []Operator

var (
	_ Resolver = operators(nil)
	_ Actor    = operators(nil)
)

func (os operators) FaultStarted(ctx context.Context, st Step) error {
	var errs []error
	for _, o := range os {
		errs = append(errs, o.FaultStarted(ctx, st))
	}
	return errors.Join(errs...)
}

func (os operators) FaultEnded(ctx context.Context, st Step) error {
	var errs []error
	for _, o := range os {
		errs = append(errs, o.FaultEnded(ctx, st))
	}
	return errors.Join(errs...)
}

func (os operators) Resolve(ctx context.Context, target string) (string, error) {
	for _, o := range os {
		if r, ok := o.(Resolver); ok {
			return r.Resolve(ctx, target)
		}
	}
	return "", fmt.Errorf("no operator resolves %s", target)
}

func (os operators) Act(ctx context.Context, st Step) (string, error) {
	for _, o := range os {
		if a, ok := o.(Actor); ok {
			return a.Act(ctx, st)
		}
	}
	return "", fmt.Errorf("no operator carries out %s", st.Kind)
}
