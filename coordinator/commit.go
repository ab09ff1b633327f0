package coordinator

import (
	"fmt"
	"strings"
	"time"
)

// Committed sequences (C-COMMIT). Every coordinator learns, on each ping,
// the replication_committed_sequence each member reports per shard and
// keeps the highest; the leader records rises through Raft at most once a
// second. A failover promotes only a replica holding every known
// committed record, unless an operator says otherwise.

// noteCommitted folds the members' reports into what this coordinator
// knows of the group. Reports at or below a value an unclean failover
// dropped are ignored.
func (c *Coordinator) noteCommitted(group string, rec Record, st map[string]Status) {
	c.knownMu.Lock()
	defer c.knownMu.Unlock()
	k := c.known[group]
	for _, s := range st {
		if !s.OK {
			continue
		}
		for i, sh := range s.Shards {
			if i < len(rec.Stale) && sh.Committed <= rec.Stale[i] {
				continue
			}
			for len(k) <= i {
				k = append(k, 0)
			}
			k[i] = max(k[i], sh.Committed)
		}
	}
	c.known[group] = k
}

// committed is what a failover must keep: per shard, the larger of the
// recorded and the known value.
func (c *Coordinator) committed(group string, rec Record) []uint64 {
	c.knownMu.Lock()
	defer c.knownMu.Unlock()
	return maxEach(rec.Committed, c.known[group])
}

func maxEach(a, b []uint64) []uint64 {
	out := make([]uint64, max(len(a), len(b)))
	for i := range out {
		if i < len(a) {
			out[i] = a[i]
		}
		if i < len(b) {
			out[i] = max(out[i], b[i])
		}
	}
	return out
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
			for i, v := range c.committed(g.Name, rec) {
				if i >= len(rec.Committed) || v > rec.Committed[i] {
					if rises[g.Name] == nil {
						rises[g.Name] = map[int]uint64{}
					}
					rises[g.Name][i] = v
				}
			}
		}
		if len(rises) == 0 || !c.confirmLeader() {
			continue
		}
		if err := c.propose(entry{Op: "committed", Committed: rises}); err != nil {
			c.log.Warn("recording committed sequences failed", "err", err)
		}
	}
}

// lacking describes, per shard, the committed records s does not hold.
func lacking(s Status, committed []uint64) string {
	var parts []string
	for i, v := range committed {
		var have uint64
		if i < len(s.Shards) {
			have = s.Shards[i].WalDurable
		}
		if have < v {
			parts = append(parts, fmt.Sprintf("shard %d: records %d-%d", i, have+1, v))
		}
	}
	return strings.Join(parts, "; ")
}

// shortReplicas names, for the warning of a failover that waits, what each
// answering replica lacks.
func shortReplicas(rec Record, st map[string]Status, committed []uint64) string {
	var parts []string
	for _, m := range rec.Members {
		if s := st[m.Address]; m.Address != rec.Primary && s.OK {
			if l := lacking(s, committed); l != "" {
				parts = append(parts, m.Address+" lacks "+l)
			}
		}
	}
	if len(parts) == 0 {
		return "no replica answers"
	}
	return strings.Join(parts, ", ")
}
