// Package rules is what the coordinators decide, as pure functions over observations: the group
// record and its Raft transitions, failover, votes, leases, committed sequences; no I/O, no locks.
package rules

// Member is one data node of a group. Its fields carry no JSON tags on
// purpose: the Raft log and snapshots encode members as
// {"Address":...,"Replication":...}, and existing data dirs must restore.
type Member struct {
	// Address is the member's RESP address (shard 0's port), the one
	// clients use.
	Address string `toml:"address"`
	// Replication is its replication.listen base address, the one
	// REPLICAOF names.
	Replication string `toml:"replication"`
}

// Record is what the coordinators agree on for one group: which member is
// the primary, and the group epoch, which rises with every promotion.
//
// The group epoch is the coordinators' counter; a data node's shard has
// its own replication epoch, and Raft has its term: three different
// numbers.
type Record struct {
	Primary string `json:"primary"` // a member's Address; "" until first recorded
	// GroupEpoch counts the promotions recorded for the group; leases
	// are granted per group epoch.
	GroupEpoch uint64   `json:"epoch"`
	Members    []Member `json:"members"`
	// Committed is, per shard, the highest replication_committed_sequence
	// recorded: a clean failover waits for a replica holding it.
	Committed []uint64 `json:"committed,omitempty"`
	// Stale is, per shard, the committed value an unclean failover
	// dropped: reports at or below it are ignored until the new primary
	// commits past it.
	Stale []uint64 `json:"stale,omitempty"`
	// Forgotten members are never discovered again.
	Forgotten []string `json:"forgotten,omitempty"`
	// Moved lists the slot ranges moved into this group from another one,
	// in a cluster map (clustermap.go); absent in records without one.
	Moved []MovedRange `json:"moved,omitempty"`
	// Move is the newest slot move into this group (move.go), running
	// or ended; absent in records that never received one.
	Move *Move `json:"move,omitempty"`
}

// Copy is a deep copy, so a caller may keep or change it freely.
func (r Record) Copy() Record {
	c := r
	c.Members = append([]Member(nil), r.Members...)
	c.Committed = append([]uint64(nil), r.Committed...)
	c.Stale = append([]uint64(nil), r.Stale...)
	c.Forgotten = append([]string(nil), r.Forgotten...)
	c.Moved = append([]MovedRange(nil), r.Moved...)
	if r.Move != nil {
		mv := *r.Move
		mv.Starts = append([]uint64(nil), r.Move.Starts...)
		c.Move = &mv
	}
	return c
}

// HasMember reports whether ms lists a member at addr (exactly as
// recorded: records name members one way).
func HasMember(ms []Member, addr string) bool {
	for _, m := range ms {
		if m.Address == addr {
			return true
		}
	}
	return false
}

// primaryMember returns the member the record names as primary.
func (r Record) primaryMember() (Member, bool) {
	for _, m := range r.Members {
		if m.Address == r.Primary {
			return m, true
		}
	}
	return Member{}, false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
