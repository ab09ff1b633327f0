package repl

import (
	"fmt"
	"time"
)

// GateInterval is how often a primary checks its write-safety gates
// (min-replicas-to-write, and the primary lease), never per command.
const GateInterval = 100 * time.Millisecond

// GoodReplicas counts the replicas whose last acknowledgement (Unix ms in
// ackAtMs) is at most maxLagS seconds old at nowMs. Counting in
// milliseconds rather than Redis's whole seconds keeps the promise that a
// refusal begins within maxLag + 0.1 s of the last needed acknowledgement.
func GoodReplicas(ackAtMs []int64, nowMs int64, maxLagS int) int {
	n := 0
	for _, t := range ackAtMs {
		if nowMs-t <= int64(maxLagS)*1000 {
			n++
		}
	}
	return n
}

// RefuseWrites reports whether a primary with good replicas must refuse
// writes under min-replicas-to-write minReplicas (0: never).
func RefuseWrites(minReplicas, good int) bool {
	return minReplicas > 0 && good < minReplicas
}

// NextExpiry is the first instant after nowMs (Unix ms) at which one of
// the replicas acknowledged at ackAtMs stops counting as good, or 0 when
// none will: the gate checks again then, so a refusal does not wait for
// the next tick.
func NextExpiry(ackAtMs []int64, nowMs int64, maxLagS int) int64 {
	var next int64
	for _, t := range ackAtMs {
		if at := t + int64(maxLagS)*1000 + 1; at > nowMs && (next == 0 || at < next) {
			next = at
		}
	}
	return next
}

// The refusals of the gates, in Redis's words where Redis has them.
const (
	ErrLoading      = "LOADING Redis is loading the dataset in memory"
	ErrReadOnly     = "READONLY You can't write against a read only replica."
	ErrNoReplicas   = "NOREPLICAS Not enough good replicas to write."
	ErrLeaseExpired = "NOREPLICAS Primary lease expired: too few coordinators renewed it."
)

// Gates is what the gates look at for one command: the command's kind
// and the node's state. LeaseExpired and TooFewReplicas are what the last
// GateInterval check found on the shards the command writes to (any
// shard, for a write without keys), not a check per command.
type Gates struct {
	// Write: the command changes data. RunsWhileLoading: it is allowed
	// while a shard loads a full copy.
	Write, RunsWhileLoading bool
	// Loading: a shard of the node is loading a full copy.
	Loading bool
	// Read: the command reads keys (and does not write).
	Read bool
	// Replica: the node is a replica.
	Replica bool
	// FencedBy is the replication epoch of a replica that showed this
	// primary was replaced, or 0.
	FencedBy uint64
	// LostRecords counts the records a replica showed this primary lost
	// in a restart, or 0.
	LostRecords uint64
	// LeaseExpired: primary-lease is on and too few coordinators'
	// grants run. TooFewReplicas: fewer good replicas than
	// min-replicas-to-write.
	LeaseExpired, TooFewReplicas bool
}

// Refusal is the error a command gets instead of running, or "". The
// order is the promise: LOADING for any command not allowed while
// loading; MASTERDOWN for a read on a primary that lost records a replica
// holds (its data lacks writes it acknowledged); then, for writes only, READONLY on a replica, READONLY on a
// primary that was replaced or lost records a replica holds, the expired
// primary lease, and NOREPLICAS last.
func Refusal(g Gates) string {
	switch {
	case g.Loading && !g.RunsWhileLoading:
		return ErrLoading
	case g.Read && g.LostRecords != 0:
		return fmt.Sprintf("MASTERDOWN This primary restarted without %d records a replica holds. It serves no reads: promote that replica, or send REPLICAOF NO ONE here to go on without them.", g.LostRecords)
	case !g.Write:
		return ""
	case g.Replica:
		return ErrReadOnly
	case g.FencedBy != 0:
		return fmt.Sprintf("READONLY This primary was replaced: a replica follows epoch %d. It takes no more writes.", g.FencedBy)
	case g.LostRecords != 0:
		return fmt.Sprintf("READONLY This primary restarted without %d records a replica holds. It takes no more writes: promote that replica, or send REPLICAOF NO ONE here to go on without them.", g.LostRecords)
	case g.LeaseExpired:
		return ErrLeaseExpired
	case g.TooFewReplicas:
		return ErrNoReplicas
	}
	return ""
}
