package coordinator

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// errInProgress answers a switchover asked while the leader switches the
// group over already, in Sentinel's words.
var errInProgress = &replyError{prefix: "INPROG", text: "Failover already in progress"}

// switchover is SENTINEL FAILOVER and COORDINATOR FAILOVER group, on the
// leader: the group's primary, which answers, hands over to its best
// replica without losing a write it acknowledged (rules.Switchover). It
// pauses the primary's writes, waits until the replica holds every
// record, promotes it as a failover does, points the old primary at it
// and lifts the pause. It returns the promoted member.
func (c *Coordinator) switchover(group string) (Member, error) {
	if err := c.leaderCheck(); err != nil {
		return Member{}, err
	}
	rec, ok := c.fsm.get(group)
	if !ok {
		return Member{}, errNoSuchMaster
	}
	if _, busy := c.switching.LoadOrStore(group, true); busy {
		return Member{}, errInProgress
	}
	defer c.switching.Delete(group)
	l := c.groupLock(group)
	l.Lock()
	defer l.Unlock()
	d := rules.Switchover(c.observe(group, rec, c.statuses(rec)))
	switch d.Outcome {
	case rules.Promote:
	case rules.NoCandidate:
		return Member{}, &replyError{prefix: "NOGOODSLAVE", text: "No suitable replica to promote: " + d.Err.Error()}
	default:
		return Member{}, errReply("%v", d.Err)
	}
	old, cand := c.prober(rec.Primary), c.prober(d.Candidate.Address)
	if old == nil || cand == nil {
		return Member{}, errReply("the primary or the chosen replica is not pinged yet: try again")
	}
	pause := rules.SwitchoverPause(c.downAfter())
	if !c.confirmLeader() {
		return Member{}, errNoMajority
	}
	sent := time.Now()
	if err := old.send(rules.PauseArgs(pause)...); err != nil {
		return Member{}, errReply("pausing the primary's writes failed: %v", err)
	}
	c.log.Info("switchover: the primary's writes are paused", "group", group, "primary", rec.Primary, "candidate", d.Candidate.Address,
		"pause_ms", pause.Milliseconds())
	keepPause := false
	defer func() {
		if !keepPause {
			if err := old.send(rules.UnpauseArgs()...); err != nil {
				c.log.Warn("switchover given up: lifting the primary's pause failed; it ends by itself", "group", group,
					"primary", rec.Primary, "err", err, "pause_ms", pause.Milliseconds())
			}
		}
	}()
	budget := sent.Add(rules.SwitchoverBudget(pause))
	final, err := c.awaitCaughtUp(old, cand, budget)
	if err != nil {
		return Member{}, err
	}
	o := c.observe(group, rec, c.statuses(rec))
	o.ProposeBy = budget
	for _, sh := range final.Shards {
		o.MustHold = append(o.MustHold, sh.WalLast)
	}
	m, err := c.promote(o, d, false)
	// A failed proposal may be recorded after all: the old primary's
	// pause is then left to run out rather than lifted.
	keepPause = err == nil || errors.Is(err, errRecordUnknown)
	if err != nil {
		return Member{}, err
	}
	if !c.demoteOld(group, rec.Primary, old) {
		// Still a primary: lifting its pause would make two writers. The
		// pause is renewed, and the next rounds go on correcting it.
		if err := old.send(rules.PauseArgs(pause)...); err != nil {
			c.log.Warn("switchover: renewing the old primary's pause failed", "group", group, "old_primary", rec.Primary, "err", err)
		}
		return m, nil
	}
	if err := old.send(rules.UnpauseArgs()...); err != nil {
		c.log.Warn("switchover: lifting the old primary's pause failed; it ends by itself", "group", group, "old_primary", rec.Primary, "err", err)
	}
	if took := time.Since(sent); took >= pause {
		c.log.Warn("switchover: the old primary's pause ran out before it was pointed at the new primary; writes it took meanwhile are lost",
			"group", group, "old_primary", rec.Primary, "took_ms", took.Milliseconds())
	}
	c.log.Info("switchover done", "group", group, "old_primary", rec.Primary, "new_primary", m.Address, "ms", time.Since(sent).Milliseconds())
	return m, nil
}

// awaitCaughtUp waits until cand holds every record the paused primary
// has, on every shard, pinging both, and returns the primary's status
// then; it gives up at budget.
func (c *Coordinator) awaitCaughtUp(old, cand *prober, budget time.Time) (rules.Status, error) {
	t := time.NewTicker(catchUpEvery / 4)
	defer t.Stop()
	for {
		ps := old.probe()
		ok, short := rules.CaughtUp(ps, cand.probe())
		if ok {
			return ps, nil
		}
		if !time.Now().Before(budget) {
			return ps, errReply("the replica %s did not catch up with the paused primary in time (%s): the primary's writes go on, nothing changed",
				cand.member.Address, short)
		}
		select {
		case <-c.stop:
			return ps, errReply("this coordinator is stopping")
		case <-t.C:
		}
	}
}

// demoteOld makes sure the old primary follows the new one after a
// switchover and reports whether it does: the promotion's corrections
// sent it REPLICAOF first; if a ping still finds a shard of it a primary,
// the corrections go out once more.
func (c *Coordinator) demoteOld(group, addr string, old *prober) bool {
	if old.probe().Follows() {
		return true
	}
	if now, ok := c.fsm.get(group); ok {
		c.correctAfterPromotion(group, now, c.statuses(now), addr, true)
	}
	if old.probe().Follows() {
		return true
	}
	c.log.Warn("switchover: the old primary does not follow the new one: its writes stay paused, and the next rounds correct it",
		"group", group, "old_primary", addr)
	return false
}

// switchoverAnywhere runs a switchover of group on the leader, asking it
// when this coordinator is not the leader, and returns the promoted
// member's address.
func (c *Coordinator) switchoverAnywhere(group string) (string, error) {
	if _, ok := c.fsm.get(group); !ok {
		return "", errNoSuchMaster
	}
	if !c.isLeader() {
		return c.askLeader(group)
	}
	m, err := c.switchover(group)
	return m.Address, err
}

// askLeader sends a switchover to the leader when this coordinator is
// not it, and relays the answer: any coordinator takes SENTINEL
// FAILOVER, as any Sentinel does.
func (c *Coordinator) askLeader(group string) (string, error) {
	id := c.leaderID()
	var addr string
	for _, p := range c.others.list() {
		if strconv.Itoa(p.ID) == id {
			addr = p.Addr
		}
	}
	if addr == "" {
		// No other coordinator leads: this one does by now, or none.
		m, err := c.switchover(group)
		return m.Address, err
	}
	before, _ := c.fsm.get(group)
	timeout := rules.SwitchoverPause(c.downAfter()) + 2*c.commandTimeout()
	cl := c.dialCoordinator(addr, timeout, 1)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	v, err := cl.Do(ctx, "COORDINATOR", "FAILOVER", group).Text()
	var re *replyError
	if err = nodeError(err); errors.As(err, &re) {
		return "", re
	}
	if err != nil {
		// The leader may have switched over all the same: the record says.
		if now, ok := c.fsm.get(group); ok && now.GroupEpoch > before.GroupEpoch && now.Primary != "" {
			return now.Primary, nil
		}
		return "", errReply("asking the leader, coordinator %s, failed: %v", id, err)
	}
	return v, nil
}
