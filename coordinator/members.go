package coordinator

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/hashicorp/raft"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// Coordinator membership. Raft's configuration is the record of
// who the coordinators are: majorities count its voters, INFO lists it,
// and COORDINATOR ADD / REMOVE change it on the leader. A coordinator
// started with join = true does not bootstrap: it waits to be added,
// catches up as a non-voter, then votes.

// coordinatorInfo is one recorded coordinator.
type coordinatorInfo struct {
	ID    int
	Addr  string
	Voter bool
}

// recorded returns the coordinators Raft's configuration lists, by id.
func (c *Coordinator) recorded() []coordinatorInfo {
	f := c.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	var out []coordinatorInfo
	for _, s := range f.Configuration().Servers {
		id, _ := strconv.Atoi(string(s.ID))
		out = append(out, coordinatorInfo{ID: id, Addr: string(s.Address), Voter: s.Suffrage == raft.Voter})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// voterIDs are the ids of the recorded voters; before Raft's
// configuration can be read, those of peers (or this coordinator alone).
func (c *Coordinator) voterIDs() []int {
	var ids []int
	for _, s := range c.recorded() {
		if s.Voter {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) > 0 {
		return ids
	}
	for _, p := range c.peers {
		ids = append(ids, p.ID)
	}
	if len(ids) == 0 {
		ids = []int{c.cfg.ID}
	}
	return ids
}

// voters is the number of recorded voters (at least 1).
func (c *Coordinator) voters() int { return len(c.voterIDs()) }

// addrOf is how this coordinator reaches coordinator id: its own peers
// entry, else the recorded address.
func (c *Coordinator) addrOf(id int, recorded string) string {
	for _, p := range c.peers {
		if p.ID == id {
			return p.Addr
		}
	}
	return recorded
}

// warnIfPeersDiffer logs once when the peers list does not match the
// record; the record is what counts.
func (c *Coordinator) warnIfPeersDiffer() {
	rec := c.recorded()
	if len(rec) == 0 {
		return
	}
	var have, want []int
	for _, s := range rec {
		have = append(have, s.ID)
	}
	for _, p := range c.peers {
		want = append(want, p.ID)
	}
	if differ, recorded, listed := rules.PeersDiffer(have, want); differ {
		c.log.Warn("peers differs from the recorded coordinators: using the record", "peers", listed, "recorded", recorded)
	}
}

// addCoordinator is COORDINATOR ADD id host:port on the leader: the new
// coordinator joins as a non-voter, and becomes a voter once it has
// caught up; OK once that is committed, within 30 s.
func (c *Coordinator) addCoordinator(id int, addr string) error {
	if err := c.leaderCheck(); err != nil {
		return err
	}
	if c.cfg.PrimaryLeaseMs != 0 {
		return errReply("COORDINATOR ADD is refused while the primary lease is on")
	}
	for _, s := range c.recorded() {
		if s.ID == id {
			return errReply("coordinator %d is already recorded at %s", id, s.Addr)
		}
	}
	if err := c.checkJoining(id, addr); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	sid, sa := raft.ServerID(strconv.Itoa(id)), raft.ServerAddress(addr)
	c.recordedAddrs.Store(sid, sa) // dialled from the start, peers lists it or not
	if err := c.raft.AddNonvoter(sid, sa, 0, time.Until(deadline)).Error(); err != nil {
		return errReply("adding coordinator %d: %v", id, err)
	}
	c.log.Info("coordinator added as a non-voter; waiting for it to catch up", "id", id, "addr", addr)
	target := c.raft.LastIndex()
	cl := c.dialCoordinator(addr, time.Second, 1)
	defer cl.Close()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		txt, err := cl.Do(ctx, "COORDINATOR", "STATUS").Text()
		cancel()
		if err == nil {
			if infotext.Uint(infotext.Parse(txt), "applied_index") >= target {
				break
			}
		}
		if time.Now().After(deadline) {
			return errReply("coordinator %d did not catch up within 30 s; it stays a non-voter (COORDINATOR REMOVE %d takes it out)", id, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !c.confirmLeader() {
		return errNoMajority
	}
	if err := c.raft.AddVoter(sid, sa, 0, time.Until(deadline)).Error(); err != nil {
		return errReply("making coordinator %d a voter: %v", id, err)
	}
	c.log.Info("coordinator added as a voter", "id", id, "addr", addr)
	return nil
}

// checkJoining asks the coordinator at addr (COORDINATOR STATUS) whether
// it is coordinator id running with join = true: one that is not would
// propose its peers as a membership of its own, so it is refused.
func (c *Coordinator) checkJoining(id int, addr string) error {
	cl := c.dialCoordinator(addr, c.commandTimeout(), 1)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), c.commandTimeout())
	defer cancel()
	txt, err := cl.Do(ctx, "COORDINATOR", "STATUS").Text()
	if err != nil {
		return errReply("cannot ask the coordinator at %s whether it runs with join = true: %v", addr, err)
	}
	if err := rules.JoinRefusal(infotext.Parse(txt), id, addr); err != nil {
		return errReply("%v", err)
	}
	return nil
}

// removeCoordinator is COORDINATOR REMOVE id on the leader.
func (c *Coordinator) removeCoordinator(id int) error {
	if err := c.leaderCheck(); err != nil {
		return err
	}
	if c.cfg.PrimaryLeaseMs != 0 {
		return errReply("COORDINATOR REMOVE is refused while the primary lease is on")
	}
	found := false
	for _, s := range c.recorded() {
		found = found || s.ID == id
	}
	if !found {
		return errReply("coordinator %d is not recorded", id)
	}
	if err := c.raft.RemoveServer(raft.ServerID(strconv.Itoa(id)), 0, 30*time.Second).Error(); err != nil {
		return errReply("removing coordinator %d: %v", id, err)
	}
	c.log.Info("coordinator removed", "id", id)
	return nil
}

// errNoLeader is what a coordinator that knows of no leader, and did not
// lead itself, answers the leader's commands.
var errNoLeader = errReply("no coordinator leads yet (an election is running, or this coordinator cannot reach a majority of coordinators); try again")

// leaderCheck refuses a command on a follower (naming the leader) or on a
// leader that cannot confirm its majority.
func (c *Coordinator) leaderCheck() error {
	if err := c.fsm.stopped(); err != nil {
		return errReply("this coordinator stopped following the coordinators' log (%v): upgrade it", err)
	}
	if !c.isLeader() {
		if id := c.leaderID(); id != "" && id != c.idString() {
			return errReply("not the leader; send it to coordinator %s", id)
		}
		// No leader is known: a leader cut off from the others (the
		// library may have stepped it down already), or an election.
		// Never an empty id.
		c.conf.confirm() // logs the cut-off warning once when it led
		if c.conf.lostMajority() {
			return errNoMajority
		}
		return errNoLeader
	}
	if !c.ready() || !c.confirmLeader() {
		return errNoMajority
	}
	return nil
}
