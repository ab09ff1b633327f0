package coordinator

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/lease"
)

// The coordinators' side of the primary lease. Every ping_interval_ms
// each coordinator renews the lease of the member its own record names
// as primary, on the group's own task and connection. Before a failover
// the leader asks every coordinator (COORDINATOR LEASE) whether it hears
// the primary and whether its last grant has aged past the stretched
// lease; one that answers "ended" grants that member no more until the
// leader confirms the record still names it. A coordinator that just
// started counts every lease as granted at its start and grants nothing
// until the leader confirmed the primary.

// leaseBook is one coordinator's grants and promises.
type leaseBook struct {
	mu sync.Mutex
	// granted is when this coordinator last granted each (group, member)
	// a lease: its monotonic clock (clock.MonoNow, which the chaos clock
	// nemesis skews) when BEGIN's answer arrived, which is no earlier
	// than the node's BEGIN instant. The data node holds the lease on
	// CLOCK_BOOTTIME; the coordinator measures it on the monotonic clock.
	granted map[[2]string]time.Duration
	// confirmed lists the (group, member) pairs the leader confirmed
	// since this coordinator last reported their lease ended (or
	// started); only those get grants.
	confirmed map[[2]string]bool
	start     time.Duration
	// grants counts the grants this coordinator sent, for its metrics.
	grants atomic.Uint64
}

func newLeaseBook() *leaseBook {
	return &leaseBook{granted: map[[2]string]time.Duration{}, confirmed: map[[2]string]bool{}, start: clock.MonoNow()}
}

func (c *Coordinator) leaseOn() bool { return c.cfg.PrimaryLeaseMs > 0 }

func (c *Coordinator) leaseLen() time.Duration {
	return time.Duration(c.cfg.PrimaryLeaseMs) * time.Millisecond
}

// leaseEnded answers the leader's question for (group, member): whether
// this coordinator's last grant has aged past the stretched lease by its
// own settings. Answering "ended" is a promise not to grant again until
// the leader confirms the member, so the promise is taken under the same
// lock as the answer.
func (c *Coordinator) leaseEnded(group, member string) bool {
	b := c.leases
	b.mu.Lock()
	defer b.mu.Unlock()
	k := [2]string{group, member}
	last, ok := b.granted[k]
	if !ok {
		last = b.start
	}
	ended := rules.LeaseEnded(c.leaseOn(), last, clock.MonoNow(), lease.Stretched(c.leaseLen(), c.cfg.PrimaryLeaseDriftPercent))
	if ended {
		delete(b.confirmed, k)
	}
	return ended
}

// leaseVotes asks every voter, this one included, the lease question for
// the group's primary: the votes, by coordinator id, of those that no
// longer hear it and of those whose lease ended. A coordinator that does
// not answer in time is absent from both.
func (c *Coordinator) leaseVotes(group, member string) (silent, ended map[int]bool) {
	silent = map[int]bool{c.cfg.ID: c.silent(member)}
	ended = map[int]bool{c.cfg.ID: c.leaseEnded(group, member)}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range c.others.list() {
		if !p.voter.Load() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), c.confirmWindow())
			defer cancel()
			v, err := p.cl.Do(ctx, "COORDINATOR", "LEASE", group, member).Int64Slice()
			if err != nil || len(v) != 2 {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			silent[p.ID] = v[0] == 0
			ended[p.ID] = v[1] == 1
		}()
	}
	wg.Wait()
	return silent, ended
}

// groupLock returns the lock held while the leader decides a group's
// failover; a confirmation waits for it, so it is answered only after
// any failover being decided is recorded.
func (c *Coordinator) groupLock(group string) *sync.Mutex {
	c.groupLocksMu.Lock()
	defer c.groupLocksMu.Unlock()
	m, ok := c.groupLocks[group]
	if !ok {
		m = &sync.Mutex{}
		c.groupLocks[group] = m
	}
	return m
}

// confirmPrimary is the leader's answer to COORDINATOR CONFIRM: whether
// the record still names member as the group's primary, given only after
// any failover being decided is recorded and with a confirmed majority.
func (c *Coordinator) confirmPrimary(group, member string) bool {
	if !c.isLeader() || !c.ready() {
		return false
	}
	l := c.groupLock(group)
	l.Lock()
	defer l.Unlock()
	rec, ok := c.fsm.get(group)
	return ok && rec.Primary == member && c.confirmLeader()
}

// renewLeases is a group's lease task on every coordinator.
func (c *Coordinator) renewLeases(group string) {
	t := time.NewTicker(c.pingInterval())
	defer t.Stop()
	var cl *redis.Client
	var clAddr string
	defer func() {
		if cl != nil {
			cl.Close()
		}
	}()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		rec, ok := c.fsm.get(group)
		if !ok || rec.Primary == "" || c.fsm.stopped() != nil {
			continue // a coordinator that stopped following the log grants nothing
		}
		// A primary with a shard this coordinator cannot reach gets no
		// grant: the lease must not outlive what the majority hears.
		if p := c.prober(rec.Primary); p == nil || !p.latest.Load().OK || c.silent(rec.Primary) {
			continue
		}
		k := [2]string{group, rec.Primary}
		c.leases.mu.Lock()
		confirmed := c.leases.confirmed[k]
		c.leases.mu.Unlock()
		if !confirmed {
			if !c.askConfirm(group, rec.Primary) {
				continue
			}
			c.leases.mu.Lock()
			c.leases.confirmed[k] = true
			c.leases.mu.Unlock()
		}
		if cl == nil || clAddr != rec.Primary {
			if cl != nil {
				cl.Close()
			}
			cl = c.dialNode(rec.Primary, time.Second, 1)
			clAddr = rec.Primary
		}
		c.grantOnce(cl, group, rec)
	}
}

// grantOnce is one renewal: BEGIN, then GRANT for the record's group
// epoch, waiting at most 1 s for each answer.
func (c *Coordinator) grantOnce(cl *redis.Client, group string, rec rules.Record) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tok, err := cl.Do(ctx, "RUVIO", "LEASE", "BEGIN").Int64()
	if err != nil {
		return
	}
	// Counted as granted from here, before GRANT is sent: a GRANT whose
	// answer is lost may still have been taken.
	k := [2]string{group, rec.Primary}
	c.leases.mu.Lock()
	if !c.leases.confirmed[k] {
		c.leases.mu.Unlock()
		return // reported ended meanwhile: keep the promise
	}
	c.leases.granted[k] = clock.MonoNow()
	c.leases.grants.Add(1)
	c.leases.mu.Unlock()
	err = cl.Do(ctx, "RUVIO", "LEASE", "GRANT", tok, c.cfg.ID, c.voters(), rec.GroupEpoch, c.cfg.PrimaryLeaseMs).Err()
	if err != nil && c.leaseWarned.CompareAndSwap(false, true) {
		c.log.Warn("the primary refused a lease grant", "group", group, "primary", rec.Primary, "err", err)
	}
}

// askConfirm asks the leader (or this coordinator, when it leads) whether
// the record still names member.
func (c *Coordinator) askConfirm(group, member string) bool {
	if c.isLeader() {
		return c.confirmPrimary(group, member)
	}
	id, _ := strconv.Atoi(c.leaderID())
	for _, p := range c.others.list() {
		if p.ID != id {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.confirmWindow())
		defer cancel()
		v, err := p.cl.Do(ctx, "COORDINATOR", "CONFIRM", group, member).Int()
		return err == nil && v == 1
	}
	return false
}
