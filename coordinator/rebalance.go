package coordinator

import (
	"fmt"
	"strings"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// COORDINATOR REBALANCE: the leader works out the plan (rules.Plan) from
// the map the record describes and runs its moves one after another
// through the move task, working the next move out again from the
// committed ones after each. The plan is this leader's alone, not in the
// record: a leader that stops leading stops the rebalance (the move in
// flight is finished by the next leader, as any move).

// The states of a rebalance, as COORDINATOR STATUS reports them.
const (
	rebalanceRunning   = "running"
	rebalanceDone      = "done"
	rebalanceCancelled = "cancelled"
	rebalanceFailed    = "failed"
	rebalanceStopped   = "stopped"
)

// rebalance is the leader-local state of the last rebalance.
type rebalance struct {
	state string
	moves int    // moves committed
	left  int    // moves the plan still holds
	err   string // why it failed
	// current is the id of the move in flight (0 between moves).
	current uint64
}

// rebalancing reports whether a rebalance runs on this coordinator.
func (c *Coordinator) rebalancing() bool {
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	return c.moves.rebalance != nil && c.moves.rebalance.state == rebalanceRunning
}

// stopRebalance ends a running rebalance in state; it reports whether one
// ran.
func (c *Coordinator) stopRebalance(state string) bool {
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	rb := c.moves.rebalance
	if rb == nil || rb.state != rebalanceRunning {
		return false
	}
	rb.state = state
	return true
}

// plan is the plan for the map the record describes now.
func (c *Coordinator) plan() ([]rules.PlannedMove, error) {
	if !c.cfg.clustered() {
		return nil, errReply("the groups do not share the hash slots (no shards in the configuration): nothing to rebalance")
	}
	m, ok := c.clusterMap()
	if !ok {
		return nil, errReply("no cluster map yet: a group has no agreed primary")
	}
	return rules.Plan(m)
}

// startRebalance is COORDINATOR REBALANCE [DRYRUN]: the plan's lines for
// a dry run; otherwise the number of moves planned, the first of them
// begun. 0 moves: the slots are even already.
func (c *Coordinator) startRebalance(dry bool) ([]string, int, error) {
	if err := c.leaderCheck(); err != nil {
		return nil, 0, err
	}
	plan, err := c.plan()
	if err != nil {
		return nil, 0, err
	}
	if dry {
		lines := make([]string, len(plan))
		for i, p := range plan {
			lines[i] = p.String()
		}
		return lines, len(plan), nil
	}
	if _, mv, running := c.fsm.all().RunningMove(); running {
		return nil, 0, errReply("move %d is running; wait for it or end it with COORDINATOR CANCEL", mv.ID)
	}
	c.moves.mu.Lock()
	if rb := c.moves.rebalance; rb != nil && rb.state == rebalanceRunning {
		c.moves.mu.Unlock()
		return nil, 0, errReply("a rebalance is running; COORDINATOR CANCEL ends it")
	}
	if len(plan) == 0 {
		c.moves.rebalance = &rebalance{state: rebalanceDone}
		c.moves.mu.Unlock()
		return nil, 0, nil
	}
	c.moves.rebalance = &rebalance{state: rebalanceRunning, left: len(plan)}
	c.moves.mu.Unlock()
	c.log.Info("rebalance planned", "moves", len(plan), "first", plan[0].String())
	c.moves.poke()
	return nil, len(plan), nil
}

// rebalanceTick runs on the leader's move task when no move runs and the
// last one is done with: it notes how the rebalance's move ended and
// begins the next move, or ends the rebalance.
func (c *Coordinator) rebalanceTick(last rules.Move, hasLast bool) {
	c.moves.mu.Lock()
	rb := c.moves.rebalance
	if rb == nil || rb.state != rebalanceRunning {
		c.moves.mu.Unlock()
		return
	}
	if rb.current != 0 && hasLast && last.ID == rb.current {
		switch last.State {
		case rules.MoveCommitted:
			rb.moves++
		case rules.MoveFailed:
			rb.state, rb.err = rebalanceFailed, fmt.Sprintf("move %d failed: %s", last.ID, last.Error)
		case rules.MoveCancelled:
			rb.state = rebalanceCancelled
		}
		rb.current = 0
	}
	state := rb.state
	c.moves.mu.Unlock()
	if state != rebalanceRunning {
		return
	}
	m, ok := c.clusterMap()
	if !ok {
		return
	}
	plan, err := rules.Plan(m)
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	switch {
	case err != nil:
		rb.state, rb.err = rebalanceFailed, err.Error()
		return
	case len(plan) == 0:
		rb.state, rb.left = rebalanceDone, 0
		c.log.Info("rebalance done", "moves", rb.moves)
		return
	}
	rb.left = len(plan)
	next := plan[0]
	c.moves.mu.Unlock()
	id, err := c.beginMove(m, next.First, next.Last, next.To, next.Shard)
	c.moves.mu.Lock()
	if err != nil {
		c.log.Warn("the rebalance could not begin its next move", "move", next.String(), "err", err)
		if !strings.Contains(err.Error(), "majority") {
			rb.state, rb.err = rebalanceFailed, replyText(err)
		}
		return
	}
	rb.current = id
}

// rebalanceStatus renders the rebalance fields of COORDINATOR STATUS.
func (c *Coordinator) rebalanceStatus(b *strings.Builder) {
	c.moves.mu.Lock()
	defer c.moves.mu.Unlock()
	rb := c.moves.rebalance
	if rb == nil {
		return
	}
	fmt.Fprintf(b, "rebalance:%s\r\nrebalance_moves:%d\r\nrebalance_left:%d\r\n", rb.state, rb.moves, rb.left)
	if rb.err != "" {
		fmt.Fprintf(b, "rebalance_error:%s\r\n", oneLine(rb.err))
	}
}

// oneLine keeps a status value on its line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
