package coordinator

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// tend is a group's task: every ping interval it looks at what the
// probes learned and, on the leader, records a first primary, fails the
// group over, or corrects members that disagree with the record. Between
// rounds, it also looks at the primary alone when it falls silent
// (rules.LookAgain), so neither +sdown nor, on the leader, a failover
// waits for the next round. Each group has its own task, so one group's
// slow member never delays another group.
func (c *Coordinator) tend(group string) {
	t := time.NewTicker(c.pingInterval())
	defer t.Stop()
	look := time.NewTimer(time.Hour)
	look.Stop()
	defer look.Stop()
	nextRound := time.Now().Add(c.pingInterval())
	sdown := map[string]string{}
	for {
		select {
		case <-c.stop:
			return
		case <-look.C:
			c.lookAtPrimary(group, sdown)
		case now := <-t.C:
			nextRound = now.Add(c.pingInterval())
			c.round(group, sdown)
		}
		if at, ok := c.nextLook(group, nextRound); ok {
			look.Reset(time.Until(at))
		}
	}
}

// round is one ping round of a group's task.
func (c *Coordinator) round(group string, sdown map[string]string) {
	rec, ok := c.fsm.get(group)
	if !ok {
		return
	}
	st := c.statuses(rec)
	c.noteSilence(group, rec, sdown)
	c.noteCommitted(group, rec, st)
	if !c.isLeader() || !c.ready() {
		return
	}
	if rec.Primary == "" {
		c.recordFirst(group, rec, st)
		return
	}
	if c.silent(rec.Primary) {
		c.maybeFailover(group, rec, st)
		return
	}
	if rules.LostRecords(st[rec.Primary]) > 0 {
		c.replaceAfterLoss(group, rec, st)
		return
	}
	// A switchover of the group holds the lock while it detaches and
	// promotes: correcting from this round's pings would point the
	// detached replicas back at the old primary.
	l := c.groupLock(group)
	if !l.TryLock() {
		return
	}
	defer l.Unlock()
	c.correct(group, rec, st)
}

// lookAtPrimary is a look between rounds: the members' silence noted
// (+sdown), and on the leader a failover, if the primary is silent.
func (c *Coordinator) lookAtPrimary(group string, sdown map[string]string) {
	rec, ok := c.fsm.get(group)
	if !ok || rec.Primary == "" {
		return
	}
	c.noteSilence(group, rec, sdown)
	if !c.isLeader() || !c.ready() || !c.silent(rec.Primary) {
		return
	}
	c.maybeFailover(group, rec, c.statuses(rec))
}

// nextLook is when this coordinator looks at the group's primary before
// the next round, if it does.
func (c *Coordinator) nextLook(group string, nextRound time.Time) (time.Time, bool) {
	rec, ok := c.fsm.get(group)
	if !ok || rec.Primary == "" {
		return time.Time{}, false
	}
	return rules.LookAgain(c.silentFrom(rec.Primary), time.Now(), nextRound, c.pingInterval(), c.isLeader())
}

// statuses returns the latest ping of each member.
func (c *Coordinator) statuses(rec rules.Record) map[string]rules.Status {
	out := make(map[string]rules.Status, len(rec.Members))
	for _, m := range rec.Members {
		if p := c.prober(m.Address); p != nil {
			out[m.Address] = *p.latest.Load()
		}
	}
	return out
}

// sentTimes is when each member's last command answered OK (prober.send),
// for rules.Settled.
func (c *Coordinator) sentTimes(rec rules.Record) map[string]time.Time {
	out := map[string]time.Time{}
	for _, m := range rec.Members {
		if p := c.prober(m.Address); p != nil {
			if at := p.sent.Load(); at != nil {
				out[m.Address] = *at
			}
		}
	}
	return out
}

// silent reports whether this coordinator has not heard member within
// down_after_ms (counting from its own start).
func (c *Coordinator) silent(member string) bool {
	return !time.Now().Before(c.silentFrom(member))
}

// silentFrom is when member falls silent to this coordinator unless it
// answers before.
func (c *Coordinator) silentFrom(member string) time.Time {
	p := c.prober(member)
	if p == nil {
		return time.Time{}
	}
	var heard time.Time
	if ns := p.heard.Load(); ns != 0 {
		heard = time.Unix(0, ns)
	}
	return rules.SilentFrom(heard, c.countFrom(), c.downAfter())
}

// countFrom is when this coordinator starts counting its members'
// silence: its start, or the end of its last stall (rules.CountFrom).
func (c *Coordinator) countFrom() time.Time {
	// No stall yet (awake 0) reads as a stall that ended at the start.
	awake := c.start.Add(time.Duration(c.awake.Load()))
	lastTick := c.start.Add(time.Duration(c.lastTick.Load()))
	return rules.CountFrom(c.start, awake, lastTick, time.Now(), c.downAfter())
}

// watchStalls looks at the coordinator's own clock every
// rules.StallTick and notes the end of each stall it finds, so that a
// stall of the coordinator (or of its whole machine) is not taken for
// its members' silence.
func (c *Coordinator) watchStalls() {
	t := time.NewTicker(rules.StallTick)
	defer t.Stop()
	c.lastTick.Store(int64(time.Since(c.start)))
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		now := time.Since(c.start)
		prev := time.Duration(c.lastTick.Load())
		if rules.Stalled(now-prev, c.downAfter()) {
			c.awake.Store(int64(now))
			c.log.Warn("this coordinator was stalled: its members' silence counts again from now",
				"stalled_ms", (now - prev).Milliseconds())
		}
		c.lastTick.Store(int64(now))
	}
}

// noteSilence publishes +sdown / -sdown as this coordinator's view of a
// member changes, as every Sentinel does. sdown holds, for each member
// seen down, the kind it was down as: a primary still silent when
// another replaced it is down again as a replica (+sdown slave), as
// Sentinel announces the old master it keeps as a slave.
func (c *Coordinator) noteSilence(group string, rec rules.Record, sdown map[string]string) {
	for _, m := range rec.Members {
		kind := "slave"
		if m.Address == rec.Primary {
			kind = "master"
		}
		switch silent := c.silent(m.Address); {
		case silent && sdown[m.Address] != kind:
			sdown[m.Address] = kind
			c.hub.publish("+sdown", instanceEvent(kind, group, m.Address, rec.Primary))
		case !silent && sdown[m.Address] != "":
			delete(sdown, m.Address)
			c.hub.publish("-sdown", instanceEvent(kind, group, m.Address, rec.Primary))
			if kind == "master" && c.leaveODown(group, m.Address) {
				c.hub.publish("-odown", instanceEvent(kind, group, m.Address, rec.Primary))
			}
		}
	}
}

// enterODown notes that this coordinator found group's primary
// objectively down, and reports whether it had not yet: Sentinel
// announces +odown once, as the state begins, not at every try.
func (c *Coordinator) enterODown(group, primary string) bool {
	c.odownMu.Lock()
	defer c.odownMu.Unlock()
	if c.odown[group] == primary {
		return false
	}
	if c.odown == nil {
		c.odown = map[string]string{}
	}
	c.odown[group] = primary
	return true
}

// leaveODown ends the state for primary, which answers again, and reports
// whether it was in it (-odown). A primary the group replaced meanwhile
// leaves it without an announcement, as Sentinel resets a master it
// switched.
func (c *Coordinator) leaveODown(group, primary string) bool {
	c.odownMu.Lock()
	defer c.odownMu.Unlock()
	was := c.odown[group]
	if was == "" || was != primary {
		return false
	}
	delete(c.odown, group)
	return true
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

// recordFirst records the group's first primary, at group epoch 1: the
// one member that answers as a primary; while none or several do,
// nothing happens.
func (c *Coordinator) recordFirst(group string, rec rules.Record, st map[string]rules.Status) {
	m, ok := rules.FirstMaster(rec, st)
	if !ok || !c.confirmLeader() {
		return
	}
	if err := c.propose(rules.Entry{Op: rules.OpPrimary, Group: group, Primary: m.Address, GroupEpoch: 1}); err != nil {
		c.log.Warn("recording the first primary failed", "group", group, "err", err)
	}
}

// observe gathers what the leader knows of a group for a failover
// decision, without the other coordinators' votes.
func (c *Coordinator) observe(group string, rec rules.Record, st map[string]rules.Status) rules.Observation {
	return rules.Observation{
		Group: group, Record: rec, Statuses: st, Committed: c.committed(group, rec),
		Now: time.Now(), DownAfter: c.downAfter(), Voters: c.voterIDs(),
		LeaderHears: rec.Primary != "" && !c.silent(rec.Primary), Unclean: c.cfg.UncleanFailover,
	}
}

// maybeFailover asks the other coordinators whether they hear the
// primary and whether their lease grants to it have ended, and fails over
// when rules.Failover says so.
func (c *Coordinator) maybeFailover(group string, rec rules.Record, st map[string]rules.Status) {
	l := c.groupLock(group)
	l.Lock()
	defer l.Unlock()
	o := c.observe(group, rec, st)
	o.Silent, o.Ended = c.leaseVotes(group, rec.Primary)
	d := rules.Failover(o)
	switch d.Outcome {
	case rules.Stay:
		return
	case rules.LeaseRuns:
		c.log.Info("the primary is silent to a majority but its lease still runs: waiting", "group", group, "ended", d.EndedVotes, "voters", len(o.Voters))
		return
	}
	if c.enterODown(group, rec.Primary) {
		h, p, _ := net.SplitHostPort(rec.Primary)
		c.hub.publish("+odown", strings.Join([]string{"master", group, h, p, "#quorum", strconv.Itoa(d.SilentVotes) + "/" + strconv.Itoa(rules.Majority(len(o.Voters)))}, " "))
	}
	if _, err := c.promote(o, d, false); err != nil {
		c.log.Warn("the primary is down but there is no failover", "group", group, "primary", rec.Primary, "why", err.Error())
	}
}

// replaceAfterLoss promotes a replica in place of a primary that
// restarted without records the replica holds (rules.AfterLoss), so they
// are kept rather than dropped from the replica by a full copy.
func (c *Coordinator) replaceAfterLoss(group string, rec rules.Record, st map[string]rules.Status) {
	l := c.groupLock(group)
	if !l.TryLock() {
		return
	}
	defer l.Unlock()
	o := c.observe(group, rec, st)
	d := rules.AfterLoss(o)
	if d.Outcome == rules.Stay {
		return
	}
	c.log.Warn("the primary restarted without records a replica holds and takes no writes: promoting a replica to keep them",
		"group", group, "primary", rec.Primary, "records", rules.LostRecords(st[rec.Primary]))
	if _, err := c.promote(o, d, false); err != nil {
		c.log.Warn("the primary lost records a replica holds but there is no failover", "group", group, "primary", rec.Primary, "why", err.Error())
	}
}

// promote carries out a decision: it looks at the candidate once more,
// records the promotion the rules allow, and corrects the members. It
// returns the promoted member.
func (c *Coordinator) promote(o rules.Observation, d rules.Decision, force bool) (Member, error) {
	if d.Outcome != rules.Promote {
		return Member{}, d.Err
	}
	c.hub.publish("+try-failover", instanceEvent("master", o.Group, o.Record.Primary, ""))
	detached, err := c.detach(o, d.Candidate)
	if err != nil {
		return Member{}, err
	}
	choice, ok := rules.ChooseDetached(o.Record, detached, o.Committed, force || o.Unclean)
	if !ok {
		return Member{}, fmt.Errorf("no detached replica may be promoted (%s): choosing again next round", rules.ShortReplicas(o.Record, detached, o.Committed))
	}
	if !choice.Covers {
		c.log.Warn("no detached replica holds everything the others received: promoting the one holding the most history; writes only the others confirmed are lost",
			"group", o.Group, "promoted", choice.Member.Address, "short", choice.Short)
	}
	d.Candidate = choice.Member
	if short := rules.Lacks(detached[d.Candidate.Address], o.MustHold); short != "" {
		return Member{}, errReply("the replica %s that would be promoted does not hold every record of the paused primary (%s): nothing is promoted", d.Candidate.Address, short)
	}
	p, err := rules.Recheck(o, d, detached[d.Candidate.Address], force)
	if err != nil {
		return Member{}, err
	}
	if !c.confirmLeader() {
		return Member{}, errNoMajority
	}
	if !o.ProposeBy.IsZero() && !time.Now().Before(o.ProposeBy) {
		return Member{}, errReply("the switchover ran out of time before the promotion was recorded: nothing changed (the detached replicas are pointed back at the primary)")
	}
	group, rec := o.Group, o.Record
	h, port, _ := net.SplitHostPort(rec.Primary)
	c.hub.publish("+elected-leader", strings.Join([]string{"master", group, h, port}, " "))
	c.hub.publish("+failover-state-select-slave", instanceEvent("master", group, rec.Primary, ""))
	c.hub.publish("+selected-slave", instanceEvent("slave", group, d.Candidate.Address, rec.Primary))
	c.hub.publish("+failover-state-send-slaveof-noone", instanceEvent("slave", group, d.Candidate.Address, rec.Primary))
	c.hub.publish("+new-epoch", strconv.FormatUint(p.Entry.GroupEpoch, 10))
	if err := c.propose(p.Entry); err != nil {
		return Member{}, fmt.Errorf("recording the failover: %w: %w", errRecordUnknown, err)
	}
	if p.Lacks != "" {
		c.log.Warn("unclean failover: the promoted replica lacks committed records, which are lost", "group", group, "promoted", d.Candidate.Address, "lacks", p.Lacks)
	}
	c.log.Warn("failed over", "group", group, "old_primary", rec.Primary, "new_primary", d.Candidate.Address, "group_epoch", p.Entry.GroupEpoch)
	c.hub.publish("+failover-state-wait-promotion", instanceEvent("slave", group, d.Candidate.Address, rec.Primary))
	if now, ok := c.fsm.get(group); ok {
		// After a failover the old primary, which may not answer, comes
		// last; after a switchover it comes first: it answers, paused,
		// and its pause must not run out before it follows.
		c.correctAfterPromotion(group, now, c.statuses(now), rec.Primary, !o.ProposeBy.IsZero())
	}
	return d.Candidate, nil
}

// errRecordUnknown marks a failed proposal of a promotion: the entry may
// still be committed, so the caller must act as if it might have been.
var errRecordUnknown = errors.New("the record may or may not have been made")

// detach stops every replica the leader reaches from following the old
// primary before a promotion (rules.DetachTargets, rules.DetachArgs), each
// after the newest cluster map, confirming leadership before every
// command, and returns the statuses of those that were detached, pinged
// once RUVIO DETACH (or, refused, REPLICAOF NO ONE: detachOne) answered.
// The candidate comes last, once it caught up with the others (catchUp).
// A replica that does not answer is left out: it cannot be promoted this
// round.
func (c *Coordinator) detach(o rules.Observation, candidate Member) (map[string]rules.Status, error) {
	detached := map[string]rules.Status{}
	for _, m := range rules.DetachTargets(o.Record, o.Statuses, time.Now(), o.DownAfter, candidate.Address) {
		p := c.prober(m.Address)
		if p == nil {
			continue
		}
		if m.Address == candidate.Address && len(detached) > 0 {
			c.catchUp(o.Group, o.Record, p, detached)
		}
		if !c.confirmLeader() {
			return nil, errNoMajority
		}
		c.sendMapBeforePromotion(m.Address)
		args, err := c.detachOne(o.Group, p)
		if err != nil {
			c.log.Warn("detaching a replica before the promotion failed: it is not promoted this round", "group", o.Group, "member", m.Address, "err", err)
			continue
		}
		detached[m.Address] = p.probe()
		c.log.Info("detached a replica from the old primary", "group", o.Group, "member", m.Address, "old_primary", o.Record.Primary,
			"command", strings.Join(args, " "))
	}
	if len(detached) == 0 {
		return nil, errors.New("no replica could be detached from the old primary: choosing again next round")
	}
	return detached, nil
}

// detachOne sends RUVIO DETACH; a member that refuses it (an older build
// without it, one already made a primary in an earlier round, a user
// without ruvio|detach; not one loading a full copy) is sent REPLICAOF NO ONE, which detaches it as
// earlier builds did, at the cost of a full copy from the new primary
// afterwards unless it is the one promoted or it held exactly what the
// promoted one received. The warning is rate-limited per member. It returns the
// command that detached the member.
func (c *Coordinator) detachOne(group string, p *prober) ([]string, error) {
	args := rules.DetachArgs()
	err := p.send(args...)
	var re *replyError
	if !errors.As(err, &re) {
		return args, err
	}
	k := rules.ClassifyDetachRefusal(re.Error())
	if !k.Fallback() {
		return args, err
	}
	if k.Warn() && p.detachWarn.allow(time.Now()) {
		c.log.Warn("a member refused RUVIO DETACH: detaching it with REPLICAOF NO ONE, so it may take a full copy from the new primary",
			"group", group, "member", p.member.Address, "reply", re.Error())
	}
	args = rules.DetachFallbackArgs()
	if !c.confirmLeader() {
		return args, errNoMajority
	}
	return args, p.send(args...)
}

// detachWarnEvery is how often, at most, detachOne warns about one member.
const detachWarnEvery = 10 * time.Minute

// warnLimit lets a warning through at most once every detachWarnEvery.
type warnLimit struct{ last atomic.Int64 } // Unix ns of the last one let through

func (w *warnLimit) allow(now time.Time) bool {
	last := w.last.Load()
	if last != 0 && now.Sub(time.Unix(0, last)) < detachWarnEvery {
		return false
	}
	return w.last.CompareAndSwap(last, now.UnixNano())
}

// catchUp waits, at most down_after_ms, for the candidate, still
// streaming from the old primary, to hold everything the detached replicas
// had received (rules.CatchUpShort), pinging it every catchUpEvery. An old
// primary that no longer streams leaves it short: it is detached anyway,
// at once when its links to the old primary are down
// (rules.CatchUpBlocked), and rules.ChooseDetached decides.
func (c *Coordinator) catchUp(group string, rec rules.Record, p *prober, detached map[string]rules.Status) {
	deadline := time.Now().Add(c.downAfter())
	t := time.NewTicker(catchUpEvery)
	defer t.Stop()
	for {
		s := p.probe()
		short := rules.CatchUpShort(s, rec, detached)
		if short == "" {
			return
		}
		if rules.CatchUpBlocked(s, rec, detached) {
			c.log.Warn("the candidate lags the detached replicas and its link to the old primary is down: detaching it without waiting", "group", group, "candidate", p.member.Address, "short", short)
			return
		}
		if !time.Now().Before(deadline) {
			c.log.Warn("the candidate did not catch up with the detached replicas: detaching it anyway", "group", group, "candidate", p.member.Address, "short", short)
			return
		}
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
	}
}

// catchUpEvery is how often catchUp pings the candidate.
const catchUpEvery = 20 * time.Millisecond

// correctAfterPromotion corrects the members after a promotion, the new
// primary first, with the old primary last (it may not answer, and its
// command's timeout must not delay the others), or right after the new
// primary (oldFirst, a switchover: it answers, paused, and must follow
// before its pause runs out).
func (c *Coordinator) correctAfterPromotion(group string, rec rules.Record, st map[string]rules.Status, old string, oldFirst bool) {
	if oldFirst {
		c.sendMapBeforeDemotion(old)
	}
	actions := rules.Corrections(rec, rules.Settled(st, c.sentTimes(rec)))
	rank := func(a rules.Action) int {
		switch {
		case a.Member.Address == rec.Primary:
			return 0
		case a.Member.Address == old && oldFirst:
			return 1
		case a.Member.Address == old:
			return 3
		}
		return 2
	}
	slices.SortStableFunc(actions, func(a, b rules.Action) int { return rank(a) - rank(b) })
	c.applyCorrections(group, rec, actions, c.confirmLeader, func(addr string, args []string) error {
		p := c.prober(addr)
		if p == nil {
			return errors.New("not pinged")
		}
		err := p.send(args...)
		if err == nil {
			c.publishPromotionStep(group, addr, rec.Primary, old)
		}
		return err
	})
}

// publishPromotionStep publishes Sentinel's event for a member the
// leader just corrected after a promotion, naming the old primary as the
// group's address as Sentinel does until +switch-master: the promoted
// replica (+promoted-slave, then +failover-state-reconf-slaves) and each
// other replica pointed at it (+slave-reconf-sent). The old primary's is
// +convert-to-slave (applyCorrections).
func (c *Coordinator) publishPromotionStep(group, addr, primary, old string) {
	switch addr {
	case old:
	case primary:
		c.hub.publish("+promoted-slave", instanceEvent("slave", group, addr, old))
		c.hub.publish("+failover-state-reconf-slaves", instanceEvent("master", group, old, ""))
	default:
		c.hub.publish("+slave-reconf-sent", instanceEvent("slave", group, addr, old))
	}
}

// force is COORDINATOR FAILOVER group FORCE: on the leader, once, even to
// a replica lacking committed records; refused while the primary still
// answers this leader, before any coordinator is asked anything.
func (c *Coordinator) force(group string) (Member, error) {
	if err := c.leaderCheck(); err != nil {
		return Member{}, err
	}
	rec, ok := c.fsm.get(group)
	if !ok {
		return Member{}, errNoSuchMaster
	}
	if d := rules.Force(c.observe(group, rec, nil)); d.Outcome == rules.PrimaryAnswers {
		return Member{}, d.Err
	}
	l := c.groupLock(group)
	l.Lock()
	defer l.Unlock()
	o := c.observe(group, rec, c.statuses(rec))
	if rec.Primary != "" {
		o.Silent, o.Ended = c.leaseVotes(group, rec.Primary)
	}
	return c.promote(o, rules.Force(o), true)
}

// correct sends the commands that make answering members agree with the
// record, confirming leadership before each.
func (c *Coordinator) correct(group string, rec rules.Record, st map[string]rules.Status) {
	st = rules.Settled(st, c.sentTimes(rec))
	c.applyCorrections(group, rec, rules.Corrections(rec, st), c.confirmLeader, func(addr string, args []string) error {
		p := c.prober(addr)
		if p == nil {
			return errors.New("not pinged")
		}
		return p.send(args...)
	})
}

// applyCorrections sends each action's command, confirming leadership
// before every one: a leader that loses its majority in the middle stops
// there, and sends nothing more from a record a newer leader may have
// replaced. A member of an older build that refuses YIELD gets plain
// REPLICAOF. It returns how many commands were sent.
func (c *Coordinator) applyCorrections(group string, rec rules.Record, actions []rules.Action, confirm func() bool, send func(addr string, args []string) error) int {
	sent := 0
	for _, a := range actions {
		if !confirm() {
			return sent
		}
		args := a.Args
		err := send(a.Member.Address, args)
		sent++
		if plain, ok := a.WithoutYield(); ok && errors.Is(err, errSyntax) {
			// A member of an older build does not know YIELD.
			if !confirm() {
				return sent
			}
			args = plain
			err = send(a.Member.Address, args)
			sent++
		}
		if err != nil {
			c.log.Warn("correcting a member failed", "group", group, "member", a.Member.Address, "command", strings.Join(args, " "), "err", err)
			if a.Demote && confirm() {
				// A second primary that cannot be demoted is held from
				// writing instead (a switchover's old primary whose
				// REPLICAOF fails), for as long as a switchover's pause,
				// again at every round while it still fails.
				if perr := send(a.Member.Address, rules.PauseArgs(rules.SwitchoverPause(c.downAfter()))); perr == nil {
					c.log.Warn("paused the writes of a member that answers as a primary and could not be demoted", "group", group, "member", a.Member.Address)
				}
			}
			continue
		}
		c.log.Info("corrected a member", "group", group, "member", a.Member.Address, "command", strings.Join(args, " "))
		if a.Demote {
			c.hub.publish("+convert-to-slave", instanceEvent("slave", group, a.Member.Address, rec.Primary))
		}
	}
	return sent
}

// errNoSuchMaster is Sentinel's answer for an unknown group name.
var errNoSuchMaster = errReply("No such master with that name")

// forget is COORDINATOR FORGET group host:port: the member leaves the
// group for good and is never discovered again. The primary and members
// the configuration lists cannot be forgotten.
func (c *Coordinator) forget(group, addr string) error {
	if err := c.leaderCheck(); err != nil {
		return err
	}
	rec, ok := c.fsm.get(group)
	switch {
	case !ok:
		return errNoSuchMaster
	case !rules.HasMember(rec.Members, addr):
		return errReply("%s is not a member of %s", addr, group)
	case addr == rec.Primary:
		return errReply("%s is the primary of %s: fail it over first", addr, group)
	case c.fsm.inFile(group, addr):
		return errReply("%s is listed in the configuration file: remove it there and restart the coordinators", addr)
	}
	return c.propose(rules.Entry{Op: rules.OpForget, Group: group, Primary: addr})
}
