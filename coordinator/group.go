package coordinator

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// tend is a group's task: every ping interval it looks at what the
// probes learned and, on the leader, records a first primary, fails the
// group over, or corrects members that disagree with the record. Each
// group has its own task, so one group's slow member never delays
// another group (C-LEAD).
func (c *Coordinator) tend(group string) {
	t := time.NewTicker(c.pingInterval())
	defer t.Stop()
	sdown := map[string]bool{}
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		rec, ok := c.fsm.get(group)
		if !ok {
			continue
		}
		st := c.statuses(rec)
		c.noteSilence(group, rec, sdown)
		c.noteCommitted(group, rec, st)
		if !c.isLeader() || !c.ready() {
			continue
		}
		if rec.Primary == "" {
			c.recordFirst(group, rec, st)
			continue
		}
		if c.silent(rec.Primary) {
			c.maybeFailover(group, rec, st)
			continue
		}
		c.correct(group, rec, st)
	}
}

// statuses returns the latest ping of each member.
func (c *Coordinator) statuses(rec Record) map[string]Status {
	out := make(map[string]Status, len(rec.Members))
	for _, m := range rec.Members {
		if p := c.prober(m.Address); p != nil {
			out[m.Address] = *p.latest.Load()
		}
	}
	return out
}

// silent reports whether this coordinator has not heard member within
// down_after_ms (counting from its own start).
func (c *Coordinator) silent(member string) bool {
	p := c.prober(member)
	if p == nil {
		return true
	}
	var heard time.Time
	if ns := p.heard.Load(); ns != 0 {
		heard = time.Unix(0, ns)
	}
	return Silent(heard, c.start, time.Now(), c.downAfter())
}

// noteSilence publishes +sdown / -sdown as this coordinator's view of a
// member changes, as every Sentinel does.
func (c *Coordinator) noteSilence(group string, rec Record, sdown map[string]bool) {
	for _, m := range rec.Members {
		now := c.silent(m.Address)
		if now == sdown[m.Address] {
			continue
		}
		sdown[m.Address] = now
		kind := "slave"
		if m.Address == rec.Primary {
			kind = "master"
		}
		ev := "-sdown"
		if now {
			ev = "+sdown"
		}
		c.hub.publish(ev, instanceEvent(kind, group, m.Address, rec.Primary))
	}
}

// instanceEvent formats Sentinel's "<type> <name> <ip> <port> @ <master>
// <mip> <mport>" payload.
func instanceEvent(kind, group, addr, primary string) string {
	h, p, _ := net.SplitHostPort(addr)
	if kind == "master" {
		return strings.Join([]string{"master", group, h, p}, " ")
	}
	mh, mp, _ := net.SplitHostPort(primary)
	return strings.Join([]string{"slave", net.JoinHostPort(h, p), h, p, "@", group, mh, mp}, " ")
}

// recordFirst records the group's first primary: the one member that
// answers as a primary; while none or several do, nothing happens
// (C-FO-13).
func (c *Coordinator) recordFirst(group string, rec Record, st map[string]Status) {
	m, ok := firstMaster(rec, st)
	if !ok || !c.confirmLeader() {
		return
	}
	if err := c.propose(entry{Op: "primary", Group: group, Primary: m.Address, Epoch: 1}); err != nil {
		c.log.Warn("recording the first primary failed", "group", group, "err", err)
	}
}

// maybeFailover asks the other coordinators whether they hear the
// primary and fails over when a majority (this one included) does not
// (C-FO-1, C-FO-2).
func (c *Coordinator) maybeFailover(group string, rec Record, st map[string]Status) {
	l := c.groupLock(group)
	l.Lock()
	defer l.Unlock()
	// Both questions at once: does each coordinator still hear the
	// primary, and has its last lease grant to it ended (C-LEASE-9,
	// C-LEASE-14)? Without the lease every grant has ended.
	silent, ended := c.leaseVotes(group, rec.Primary)
	if !DownByMajority(silent, c.voters()) {
		return
	}
	if !DownByMajority(ended, c.voters()) {
		c.log.Info("the primary is silent to a majority but its lease still runs: waiting", "group", group, "ended", ended, "voters", c.voters())
		return
	}
	h, p, _ := net.SplitHostPort(rec.Primary)
	c.hub.publish("+odown", strings.Join([]string{"master", group, h, p, "#quorum", itoa(silent) + "/" + itoa(Majority(c.voters()))}, " "))
	if _, err := c.promote(group, rec, st, c.cfg.UncleanFailover); err != nil {
		c.log.Warn("the primary is down but there is no failover", "group", group, "primary", rec.Primary, "why", err.Error())
	}
}

// promote fails the group over to the best replica: one holding every
// committed record (C-COMMIT), or, when unclean (FORCE or
// unclean_failover), the best one anyway, logging per shard what it
// lacks. It returns the promoted member.
func (c *Coordinator) promote(group string, rec Record, st map[string]Status, unclean bool) (Member, error) {
	committed := c.committed(group, rec)
	cand, ok := PickCandidate(rec, st, committed, time.Now(), c.downAfter())
	if !ok {
		if !unclean {
			return Member{}, fmt.Errorf("no answering replica holds every committed record (%s); COORDINATOR FAILOVER %s FORCE promotes the best one anyway", shortReplicas(rec, st, committed), group)
		}
		if cand, ok = PickCandidate(rec, st, nil, time.Now(), c.downAfter()); !ok {
			return Member{}, errors.New("no replica answers")
		}
	}
	// Look at it once more: one that died with the primary is not
	// promoted (C-FO-5).
	fresh := c.prober(cand.Address).probe()
	if !fresh.OK || fresh.Loading() {
		return Member{}, fmt.Errorf("the chosen replica %s no longer answers: choosing again next round", cand.Address)
	}
	if !c.confirmLeader() {
		return Member{}, errNoMajority
	}
	lacks := lacking(fresh, committed)
	h, p, _ := net.SplitHostPort(rec.Primary)
	c.hub.publish("+elected-leader", strings.Join([]string{"master", group, h, p}, " "))
	if err := c.propose(entry{Op: "primary", Group: group, Primary: cand.Address, Epoch: rec.Epoch + 1, Unclean: lacks != ""}); err != nil {
		return Member{}, fmt.Errorf("recording the failover: %w", err)
	}
	if lacks != "" {
		c.log.Warn("unclean failover: the promoted replica lacks committed records, which are lost", "group", group, "promoted", cand.Address, "lacks", lacks)
	}
	c.log.Warn("failed over", "group", group, "old_primary", rec.Primary, "new_primary", cand.Address, "epoch", rec.Epoch+1)
	if now, ok := c.fsm.get(group); ok {
		c.correct(group, now, c.statuses(now))
	}
	return cand, nil
}

// force is COORDINATOR FAILOVER group FORCE: on the leader, once, even to
// a replica lacking committed records; refused while the primary still
// answers this leader.
func (c *Coordinator) force(group string) (Member, error) {
	if err := c.leaderCheck(); err != nil {
		return Member{}, err
	}
	rec, ok := c.fsm.get(group)
	if !ok {
		return Member{}, errors.New("ERR No such master with that name")
	}
	if rec.Primary != "" && !c.silent(rec.Primary) {
		return Member{}, fmt.Errorf("ERR the primary %s still answers this leader: FORCE only promotes a replica when it does not", rec.Primary)
	}
	l := c.groupLock(group)
	l.Lock()
	defer l.Unlock()
	if _, ended := c.leaseVotes(group, rec.Primary); rec.Primary != "" && !DownByMajority(ended, c.voters()) {
		return Member{}, fmt.Errorf("ERR the primary %s still holds a lease from a majority of coordinators: try again once it ends", rec.Primary)
	}
	m, err := c.promote(group, rec, c.statuses(rec), true)
	if err != nil && !strings.HasPrefix(err.Error(), "ERR") {
		err = errors.New("ERR " + err.Error())
	}
	return m, err
}

// correct sends the commands that make answering members agree with the
// record, confirming leadership before each (C-FO-7..11).
func (c *Coordinator) correct(group string, rec Record, st map[string]Status) {
	for _, a := range Corrections(rec, st) {
		if !c.confirmLeader() {
			return
		}
		p := c.prober(a.Member.Address)
		err := p.send(a.Args...)
		if err != nil && len(a.Args) == 4 && strings.Contains(strings.ToLower(err.Error()), "syntax") {
			// A member of an older build does not know YIELD (C-FO-9).
			err = p.send(a.Args[:3]...)
		}
		if err != nil {
			c.log.Warn("correcting a member failed", "group", group, "member", a.Member.Address, "command", strings.Join(a.Args, " "), "err", err)
			continue
		}
		c.log.Info("corrected a member", "group", group, "member", a.Member.Address, "command", strings.Join(a.Args, " "))
		if a.Demote {
			c.hub.publish("+convert-to-slave", instanceEvent("slave", group, a.Member.Address, rec.Primary))
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// forget is COORDINATOR FORGET group host:port: the member leaves the
// group for good and is never discovered again (C-DISC). The primary and
// members the configuration lists cannot be forgotten.
func (c *Coordinator) forget(group, addr string) error {
	if err := c.leaderCheck(); err != nil {
		return err
	}
	rec, ok := c.fsm.get(group)
	switch {
	case !ok:
		return errors.New("ERR No such master with that name")
	case !hasMember(rec.Members, addr):
		return fmt.Errorf("ERR %s is not a member of %s", addr, group)
	case addr == rec.Primary:
		return fmt.Errorf("ERR %s is the primary of %s: fail it over first", addr, group)
	case c.fsm.inFile(group, addr):
		return fmt.Errorf("ERR %s is listed in the configuration file: remove it there and restart the coordinators", addr)
	}
	return c.propose(entry{Op: "forget-member", Group: group, Primary: addr})
}
