package coordinator

import (
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// Committed sequences: every coordinator folds what each ping reports
// into what it knows of each group (rules.FoldCommitted); the leader
// records the rises through Raft at most once a second, so coordinators
// that all restart still wait for a replica holding them.

// noteCommitted folds the members' reports into what this coordinator
// knows of the group.
func (c *Coordinator) noteCommitted(group string, rec rules.Record, st map[string]rules.Status) {
	c.knownMu.Lock()
	defer c.knownMu.Unlock()
	c.known[group] = rules.FoldCommitted(c.known[group], rec.Stale, st)
}

// committed is what a failover must keep: per shard, the larger of the
// recorded and the known value.
func (c *Coordinator) committed(group string, rec rules.Record) []uint64 {
	c.knownMu.Lock()
	defer c.knownMu.Unlock()
	return rules.MaxEach(rec.Committed, c.known[group])
}

// forgetKnown drops what this coordinator learned of a group's committed
// values, once an unclean promotion dropped the recorded ones.
func (c *Coordinator) forgetKnown(group string) {
	c.knownMu.Lock()
	defer c.knownMu.Unlock()
	c.known[group] = nil
}

// recordCommitted is the leader's task that writes rises through Raft:
// at most once a second, one entry for all groups, only the shards that
// rose.
func (c *Coordinator) recordCommitted() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if !c.isLeader() || !c.ready() {
			continue
		}
		rises := map[string]map[int]uint64{}
		for _, g := range c.cfg.Groups {
			rec, _ := c.fsm.get(g.Name)
			if r := rules.Rises(rec.Committed, c.committed(g.Name, rec)); r != nil {
				rises[g.Name] = r
			}
		}
		if len(rises) == 0 || !c.confirmLeader() {
			continue
		}
		if err := c.propose(rules.Entry{Op: rules.OpCommitted, Committed: rises}); err != nil {
			c.log.Warn("recording committed sequences failed", "err", err)
		}
	}
}
