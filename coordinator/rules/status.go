package rules

import "time"

// ShardStatus is what one shard of a member answered to a ping.
type ShardStatus struct {
	Role       string // "master" or "slave"
	MasterAddr string // for a replica: the replication address it follows (host:port)
	LinkUp     bool
	Syncing    bool // loading a full copy
	// ReplicationEpoch is the shard's own epoch (INFO replication
	// epoch), not the group epoch of the record.
	ReplicationEpoch uint64
	WalLast          uint64
	WalDurable       uint64
	Committed        uint64
	// FencedBy is the replication epoch that fenced this shard (0: none).
	FencedBy uint64
	// LostRecords is what a replica showed this primary lost in a
	// restart (INFO replication_lost_records; 0: none): such a primary
	// takes no writes, and the leader promotes a replica instead.
	LostRecords uint64
	// WritesInFlight counts the node's writes that passed CLIENT PAUSE's
	// check and have not finished (INFO writes_in_flight), read before
	// the sequences: while paused, 0 means the log stands still.
	WritesInFlight uint64
	// Replicas lists the client addresses (ip:port) of the replicas a
	// primary shard reports (slaveN lines).
	Replicas []string
}

// Status is one ping of a member. OK means every shard answered.
type Status struct {
	OK bool
	// At is when the answer came, Asked when the ping was sent.
	At     time.Time
	Asked  time.Time
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

// Follows reports whether s answered as a replica on every shard.
func (s Status) Follows() bool {
	if !s.OK || len(s.Shards) == 0 {
		return false
	}
	for _, sh := range s.Shards {
		if sh.Role != "slave" {
			return false
		}
	}
	return true
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
// has been silent for downAfter at now. A coordinator that has not heard
// it yet counts the silence only from its own start, so restarting the
// coordinators does not fail over a primary that answers.
func Silent(lastHeard, start, now time.Time, downAfter time.Duration) bool {
	return !now.Before(SilentFrom(lastHeard, start, downAfter))
}

// SilentFrom is the moment from which Silent holds, unless the member
// answers again before it.
func SilentFrom(lastHeard, start time.Time, downAfter time.Duration) time.Time {
	from := lastHeard
	if from.Before(start) {
		from = start
	}
	return from.Add(downAfter)
}

// LookAgain says whether, and when, a coordinator looks at a group's
// primary between two ping rounds, so that it notes the primary's silence
// (+sdown) and, on the leader, decides a failover when the primary falls
// silent rather than up to a ping interval later. silentFrom is
// SilentFrom for the primary on this coordinator, and nextRound the start
// of the next ping round.
//
// Before silentFrom, the answer is silentFrom itself, when it comes
// before the next round. From silentFrom on, the other coordinators'
// votes are still arriving: each falls silent within about a ping
// interval of this one, as each pings on its own schedule. So for one
// ping interval the leader looks again every tenth of an interval (at
// least 10 ms), then only at each round; another coordinator has no
// decision to make and waits for the round.
func LookAgain(silentFrom, now, nextRound time.Time, interval time.Duration, leader bool) (time.Time, bool) {
	if now.Before(silentFrom) {
		return silentFrom, silentFrom.Before(nextRound)
	}
	if !leader {
		return time.Time{}, false
	}
	at := now.Add(max(interval/10, 10*time.Millisecond))
	if at.After(silentFrom.Add(interval)) || !at.Before(nextRound) {
		return time.Time{}, false
	}
	return at, true
}
