package coordinator

import (
	"net"
	"strconv"
	"time"
)

// The coordinator's decisions as pure functions over what the pings
// learned: when a member counts as silent, when a primary is down, which
// replica to promote, and which commands bring members in line with the
// record. The I/O around them is in group.go.

// ShardStatus is what one shard of a member answered.
type ShardStatus struct {
	Role       string // "master" or "slave"
	MasterAddr string // for a replica: the replication address it follows (host:port)
	LinkUp     bool
	Syncing    bool // loading a full copy
	Epoch      uint64
	WalLast    uint64
	WalDurable uint64
	Committed  uint64
	FencedBy   uint64
	// Replicas lists the client addresses (ip:port) of the replicas a
	// primary shard reports (slaveN lines).
	Replicas []string
}

// Status is one ping of a member. OK means every shard answered.
type Status struct {
	OK     bool
	At     time.Time
	RunID  string
	Shards []ShardStatus
	Err    string
}

// Role is shard 0's role, "" when the member did not answer.
func (s Status) Role() string {
	if !s.OK || len(s.Shards) == 0 {
		return ""
	}
	return s.Shards[0].Role
}

// History is the sum of wal_durable_sequence over the shards: how much of
// the history the member holds.
func (s Status) History() uint64 {
	var n uint64
	for _, sh := range s.Shards {
		n += sh.WalDurable
	}
	return n
}

// Loading reports whether any shard is still copying its primary.
func (s Status) Loading() bool {
	for _, sh := range s.Shards {
		if sh.Syncing {
			return true
		}
	}
	return false
}

// Silent reports whether a member last heard at lastHeard (zero: never)
// has been silent for downAfter at now, counting a coordinator that has
// not heard it yet as silent only since its own start (C-FO-2: restarting
// the coordinators does not fail over a primary that answers).
func Silent(lastHeard, start, now time.Time, downAfter time.Duration) bool {
	from := lastHeard
	if from.Before(start) {
		from = start
	}
	return now.Sub(from) >= downAfter
}

// Majority is the number of voters that make a majority.
func Majority(voters int) int { return voters/2 + 1 }

// DownByMajority reports whether silent votes (the leader's own
// included) make a majority of voters.
func DownByMajority(silent, voters int) bool { return silent >= Majority(voters) }

// PickCandidate chooses the member to promote: one that answers (heard
// within downAfter), is not the recorded primary, is not loading a full
// copy, holds every committed record (committed[i] per shard, when
// given), and holds the most history; ties go to the member listed
// first (C-FO-3). ok is false when none qualifies.
func PickCandidate(rec Record, st map[string]Status, committed []uint64, now time.Time, downAfter time.Duration) (Member, bool) {
	var best Member
	var bestHist uint64
	found := false
	for _, m := range rec.Members {
		s, ok := st[m.Address]
		if !ok || m.Address == rec.Primary || !s.OK || now.Sub(s.At) >= downAfter || s.Loading() {
			continue
		}
		if !holdsCommitted(s, committed) {
			continue
		}
		if h := s.History(); !found || h > bestHist {
			best, bestHist, found = m, h, true
		}
	}
	return best, found
}

func holdsCommitted(s Status, committed []uint64) bool {
	for i, c := range committed {
		if i >= len(s.Shards) || s.Shards[i].WalDurable < c {
			return false
		}
	}
	return true
}

// Action is one command that brings a member in line with the record.
type Action struct {
	Member Member
	// Args is the command: REPLICAOF NO ONE, or REPLICAOF host port YIELD.
	Args []string
	// Demote marks a member that answered as a primary and is made a
	// replica: its clients are told to leave (+convert-to-slave).
	Demote bool
}

// replicaOf is REPLICAOF naming a replication address.
func replicaOf(replication string) []string {
	host, port, _ := net.SplitHostPort(replication)
	return []string{"REPLICAOF", host, port, "YIELD"}
}

// Corrections lists the commands that make every answering member agree
// with the record: the primary a primary on every shard, every other
// member a replica of the primary's replication address (C-FO-5). A
// member whose shards did not all answer is left alone until they do.
func Corrections(rec Record, st map[string]Status) []Action {
	var primary Member
	found := false
	for _, m := range rec.Members {
		if m.Address == rec.Primary {
			primary, found = m, true
		}
	}
	if !found {
		return nil
	}
	var out []Action
	if s := st[primary.Address]; s.OK {
		for _, sh := range s.Shards {
			if sh.Role != "master" || sh.FencedBy != 0 {
				out = append(out, Action{Member: primary, Args: []string{"REPLICAOF", "NO", "ONE"}})
				break
			}
		}
	}
	for _, m := range rec.Members {
		s := st[m.Address]
		if m.Address == primary.Address || !s.OK {
			continue
		}
		demote, repoint := false, false
		for _, sh := range s.Shards {
			switch {
			case sh.Role == "master":
				demote = true
			case !sameAddr(sh.MasterAddr, primary.Replication):
				repoint = true
			}
		}
		if demote || repoint {
			out = append(out, Action{Member: m, Args: replicaOf(primary.Replication), Demote: demote})
		}
	}
	return out
}

// sameAddr compares two host:port strings, the port numerically.
func sameAddr(a, b string) bool {
	ah, ap, err1 := net.SplitHostPort(a)
	bh, bp, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	an, _ := strconv.Atoi(ap)
	bn, _ := strconv.Atoi(bp)
	return ah == bh && an == bn
}

// firstMaster returns the only answering member that reports itself a
// primary, for the first record (C-START: while none or several do, the
// coordinators wait).
func firstMaster(rec Record, st map[string]Status) (Member, bool) {
	var only Member
	n := 0
	for _, m := range rec.Members {
		if s := st[m.Address]; s.OK && s.Role() == "master" {
			only = m
			n++
		}
	}
	return only, n == 1
}
