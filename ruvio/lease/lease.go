// Package lease holds the primary lease's rules as pure code: the grants a
// data node keeps and whether they let it write (node side), and the
// stretched lease and configuration rules the coordinators use. Times are
// durations on the caller's monotonic lease clock.
package lease

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Margin is how much longer a majority's grants must run for a writer to
// take writes: the writes taken between two 100 ms checks plus a stall of
// the node of up to about 200 ms.
const Margin = 300 * time.Millisecond

// MaxVoters is the largest voters count a grant may name.
const MaxVoters = 255

// Grant is one coordinator's latest grant as a node holds it.
type Grant struct {
	Coordinator int
	Voters      int
	Epoch       uint64
	// Start is the BEGIN instant on the node's lease clock; the grant
	// runs until Start + Length.
	Start, Length time.Duration
}

func (g Grant) end() time.Duration { return g.Start + g.Length }

// Table is a node's grants: one per coordinator, its latest.
type Table struct {
	grants map[int]Grant
	epoch  uint64
}

// Refusals of a grant, in the words RUVIO LEASE GRANT answers.
var (
	ErrReplica    = errors.New("ERR this node is a replica: replicas take no lease grants")
	ErrOlderEpoch = errors.New("ERR lease grant refused: a grant of a newer epoch is running")
)

// Policy is what a node accepts: the coordinator ids of
// primary_lease_coordinators.
type Policy struct {
	Coordinators []int
}

func (p Policy) allows(g Grant) error {
	found := false
	for _, id := range p.Coordinators {
		found = found || id == g.Coordinator
	}
	if !found {
		return fmt.Errorf("ERR lease grant refused: coordinator %d is not in primary_lease_coordinators", g.Coordinator)
	}
	if g.Voters != len(p.Coordinators) {
		return fmt.Errorf("ERR lease grant refused: %d voters named, primary_lease_coordinators lists %d", g.Voters, len(p.Coordinators))
	}
	return nil
}

// Apply takes a grant at now. Ended grants are
// forgotten first, so they refuse nothing.
func (t *Table) Apply(g Grant, now time.Duration, replica bool, p Policy) error {
	if replica {
		return ErrReplica
	}
	if g.Voters < 1 || g.Voters > MaxVoters {
		return fmt.Errorf("ERR lease grant refused: voters must be 1-%d", MaxVoters)
	}
	if g.Length <= 0 {
		return errors.New("ERR lease grant refused: lease_ms must be positive")
	}
	if err := p.allows(g); err != nil {
		return err
	}
	t.forget(now)
	if t.grants == nil {
		t.grants = map[int]Grant{}
	}
	switch {
	case len(t.grants) > 0 && g.Epoch < t.epoch:
		return ErrOlderEpoch
	case g.Epoch > t.epoch || len(t.grants) == 0:
		// A newer epoch drops the grants of older ones and starts the
		// count again.
		clear(t.grants)
		t.epoch = g.Epoch
	}
	t.grants[g.Coordinator] = g
	return nil
}

// forget drops grants that ended.
func (t *Table) forget(now time.Duration) {
	for id, g := range t.grants {
		if g.end() <= now {
			delete(t.grants, id)
		}
	}
}

// Clear drops every grant (the node became a replica).
func (t *Table) Clear() { clear(t.grants) }

// Status is what the table says at now: whether a writer may take
// writes, how many grants run, and how long the majority's grants run on.
type Status struct {
	Holds     bool
	Grants    int
	Remaining time.Duration // until fewer than a majority run; 0 without a majority
}

// Check evaluates the table at now: a writer takes writes while grants
// from a majority of the largest voters count a running grant names
// each run for more than Margin.
func (t *Table) Check(now time.Duration) Status {
	voters := 0
	var left []time.Duration
	for _, g := range t.grants {
		if g.end() > now {
			voters = max(voters, g.Voters)
			left = append(left, g.end()-now)
		}
	}
	st := Status{Grants: len(left)}
	need := voters/2 + 1
	if voters == 0 || len(left) < need {
		return st
	}
	sort.Slice(left, func(i, j int) bool { return left[i] > left[j] })
	st.Remaining = left[need-1]
	st.Holds = st.Remaining > Margin
	return st
}

// Stretched is how long a coordinator waits, on its own clock, before it
// reports a grant ended: the lease stretched for the worst pair of clocks
// within drift percent, plus 200 ms, rounded up to the
// millisecond: 2645 ms for 2000 ms at 10 % (the exact value is 2644.4;
// rounding up keeps the wait on the safe side, as the spec's figure does).
func Stretched(lease time.Duration, driftPercent int) time.Duration {
	d := float64(driftPercent)
	s := time.Duration(math.Ceil(float64(lease.Milliseconds())*(100+d)/(100-d))) * time.Millisecond
	return s + 200*time.Millisecond
}
