// Package repl holds a shard's replication decisions and wire format as pure code, no sockets:
// where logs fork, continue or full copy, replication epoch fencing, the write gates, the stream codec.
package repl

import (
	"fmt"
	"slices"
)

// EpochStart says that a stretch of a shard's history begins at FirstSeq:
// a node starts a new replication epoch whenever it becomes a writer, and
// a new stretch of the same epoch the first time it writes after a start,
// since a restart may have lost records it had already sent. A shard's
// history lists its stretches in increasing order (first sequences
// increase, epochs never decrease).
//
// ID is drawn at random where the stretch began, so two nodes that began
// a stretch of the same epoch at the same sequence (two forks, or the
// same primary before and after a restart that lost records) are still
// told apart. 0 is the ID of a stretch recorded by a release that drew
// none.
type EpochStart struct {
	Epoch, FirstSeq, ID uint64
}

// Position is a record's place: its replication epoch and sequence. The zero Position
// is an empty log.
type Position struct {
	Epoch, Seq uint64
}

// Primary is what a primary shard knows when a replica connects.
type Primary struct {
	History []EpochStart
	// Last is the primary's last record; OldestLogged is the first
	// sequence its log still holds (records before it survive only in a
	// snapshot).
	Last         Position
	OldestLogged uint64
	// Forgotten are the IDs of stretches the primary held before a
	// restart that kept none of its records (the memory profile), until
	// it takes a full copy or is told to go on without them.
	Forgotten []uint64
}

// Plan is the primary's answer to a replica's handshake.
type Plan struct {
	// Continue: stream records from From; otherwise a full copy, unless
	// Lost is set.
	Continue bool
	From     uint64
	// Lost counts the replica's records the primary lost (Behind): no
	// full copy, which would drop them from the replica too; the primary
	// refuses the replica and stops taking writes.
	Lost uint64
	// Reason explains the choice for the logs.
	Reason string
}

// epochEnd returns the last sequence of epoch i of h on a log whose last
// record is last: the record before the next epoch's first one.
func epochEnd(h []EpochStart, i int, last uint64) uint64 {
	if i+1 < len(h) {
		return h[i+1].FirstSeq - 1
	}
	return last
}

// Replica is what a replica presents in its handshake: its history
// (replication epochs and their first sequences) and the sequence of its last record.
type Replica struct {
	History []EpochStart
	Last    uint64
}

// Decide chooses between continuing a replica from its own log and a full
// copy: CONTINUE from the next sequence when the
// replica's whole log is a prefix of the primary's (its history agrees
// with the primary's up to its last record, so it wrote nothing after the
// point where the primary forked) and the primary still holds every
// record after it; otherwise FULL. Comparing whole histories rather than
// the last record's epoch alone also catches two nodes that forked the
// same epoch number, and a primary that lost records it had sent in a
// restart and wrote others at their sequences (a new stretch).
func Decide(p Primary, r Replica) Plan {
	fork := ForkPoint(p.History, p.Last.Seq, r.History, r.Last)
	if lost := Behind(p, r); lost > 0 {
		return Plan{Lost: lost, Reason: fmt.Sprintf("the replica holds records %d-%d of a stretch of the primary's own history that the primary no longer has: it restarted with less", fork+1, r.Last)}
	}
	if lost := Forgotten(p, r); lost > 0 {
		return Plan{Lost: lost, Reason: fmt.Sprintf("the replica holds records %d-%d of a stretch the primary held before a restart that kept none of its records", fork+1, r.Last)}
	}
	if fork < r.Last {
		return Plan{Reason: fmt.Sprintf("the replica's log (up to %d) leaves the primary's history after %d: it wrote after the fork", r.Last, fork)}
	}
	next := r.Last + 1
	if next <= p.Last.Seq && next < p.OldestLogged {
		return Plan{Reason: fmt.Sprintf("the primary's log starts at %d, after the replica's next record %d", p.OldestLogged, next)}
	}
	return Plan{Continue: true, From: next, Reason: fmt.Sprintf("continuing from %d", next)}
}

// Behind counts the replica's records that the primary lost: records
// after the fork point that lie in a stretch both histories share, which
// the primary's copy of ends earlier, when the primary did not fork a
// newer epoch after that stretch. That is a primary that restarted with
// less than it had sent (memory, snapshot, a machine crash under
// everysec): its history ends with that stretch, or goes on in the same
// epoch under a restart mark. A full copy would drop those records from
// the replica too. When the primary forked a newer epoch after the
// stretch (a failover), the replica's extra records were never the new
// primary's: 0, and the replica takes a full copy as usual.
func Behind(p Primary, r Replica) uint64 {
	fork := ForkPoint(p.History, p.Last.Seq, r.History, r.Last)
	if fork >= r.Last {
		return 0
	}
	j := -1 // the replica's stretch holding record fork+1
	for i, e := range r.History {
		if e.FirstSeq <= fork+1 {
			j = i
		}
	}
	if j < 0 || j >= len(p.History) {
		return 0
	}
	for i := 0; i <= j; i++ {
		if p.History[i] != r.History[i] {
			return 0
		}
	}
	if j+1 < len(p.History) && p.History[j+1].Epoch != p.History[j].Epoch {
		return 0
	}
	return r.Last - fork
}

// Forgotten counts the replica's records the primary lost in a restart
// that kept nothing, not even its history (the memory profile): records
// after the fork point in a stretch whose ID the primary noted before the
// restart (Primary.Forgotten) and its history no longer holds. Such a
// primary would otherwise look new, and a full copy would empty the
// replica. Stretches without an ID (0) are never matched.
func Forgotten(p Primary, r Replica) uint64 {
	if len(p.Forgotten) == 0 {
		return 0
	}
	fork := ForkPoint(p.History, p.Last.Seq, r.History, r.Last)
	if fork >= r.Last {
		return 0
	}
	for i, e := range r.History {
		if e.ID == 0 || !slices.Contains(p.Forgotten, e.ID) || slices.ContainsFunc(p.History, func(s EpochStart) bool { return s.ID == e.ID }) {
			continue
		}
		if end := epochEnd(r.History, i, r.Last); end >= e.FirstSeq && end > fork {
			return r.Last - fork
		}
	}
	return 0
}

// ForkPoint is the last sequence two histories share: the end of the
// longest common prefix of stretches (epoch, first sequence and ID all
// equal), cut at the earlier of the two ends. Records after it on either
// side are divergent.
func ForkPoint(a []EpochStart, aLast uint64, b []EpochStart, bLast uint64) uint64 {
	var fork uint64
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			// The later epoch started at different places (or is a
			// different epoch): the shared part ends before both starts.
			return min(fork, min(a[i].FirstSeq, b[i].FirstSeq)-1)
		}
		fork = min(epochEnd(a, i, aLast), epochEnd(b, i, bLast))
	}
	return fork
}

// NextEpoch is the replication epoch REPLICAOF NO ONE starts: larger than any the
// node has seen.
func NextEpoch(seen ...uint64) uint64 {
	var m uint64
	for _, e := range seen {
		m = max(m, e)
	}
	return m + 1
}

// Fence is what a node does when the other side of a replication link
// presents its replication epoch.
type Fence int

const (
	// Accept: go on.
	Accept Fence = iota
	// RefuseOlderPrimary: a replica that follows epoch E refuses a
	// primary whose epoch is older.
	RefuseOlderPrimary
	// StopWrites: a primary that sees a replica of a newer epoch has been
	// replaced and stops taking writes.
	StopWrites
)

// ReplicaSeesPrimary decides whether a replica that has followed epoch
// followed may follow a primary at epoch primaryEpoch. yield (REPLICAOF
// ... YIELD) makes a node that forked a newer epoch of its own follow the
// named primary anyway.
func ReplicaSeesPrimary(followed, primaryEpoch uint64, yield bool) Fence {
	if primaryEpoch < followed && !yield {
		return RefuseOlderPrimary
	}
	return Accept
}

// PrimarySeesReplica decides what a primary at epoch own does when a
// replica presents epoch replicaEpoch. A replica that yields never
// fences the primary it was told to follow.
func PrimarySeesReplica(own, replicaEpoch uint64, replicaYields bool) Fence {
	if replicaEpoch > own && !replicaYields {
		return StopWrites
	}
	return Accept
}
