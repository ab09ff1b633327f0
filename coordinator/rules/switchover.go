package rules

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The switchover: moving a group's primary to a replica while the primary
// answers (SENTINEL FAILOVER, COORDINATOR FAILOVER group), without losing a
// write it acknowledged. The leader pauses the primary's writes (CLIENT
// PAUSE WRITE, which also stops its expiry, so its log stands still),
// waits until the chosen replica holds every record the primary has, then
// promotes it as a failover does (detach, promote, record, repoint) and
// points the old primary at it while its writes are still held. Writes
// that arrived during the pause never ran on the old primary; they fail
// when it closes its clients on becoming a replica, and the clients find
// the new primary.
//
// The pause is the only thing that keeps the old primary from writing
// until it is a replica, so everything up to the promotion's record must
// fit well inside it: the leader gives up, and lifts the pause, if the
// replica has not caught up within the first half of the pause, or if the
// record cannot be proposed before then.

// Switchover decides a switchover: refused when no primary is recorded or
// the leader does not hear it; otherwise the best replica that answers,
// streams from the primary on every shard, and holds every committed
// record.
func Switchover(o Observation) Decision {
	var d Decision
	if o.Record.Primary == "" {
		d.Outcome, d.Err = NoCandidate, fmt.Errorf("the group %s has no primary recorded yet", o.Group)
		return d
	}
	if !o.LeaderHears {
		d.Outcome = PrimarySilent
		d.Err = fmt.Errorf("the primary %s does not answer this leader: the automatic failover promotes a replica once a majority no longer hears it (COORDINATOR FAILOVER %s FORCE does at once)",
			o.Record.Primary, o.Group)
		return d
	}
	streaming := map[string]Status{}
	for addr, s := range o.Statuses {
		if Streams(s, o.Record) {
			streaming[addr] = s
		}
	}
	if len(streaming) == 0 {
		d.Outcome, d.Err = NoCandidate, errors.New("no replica follows the primary with its link up on every shard")
		return d
	}
	cand, ok := PickCandidate(o.Record, streaming, o.Committed, o.Now, o.DownAfter)
	if !ok {
		d.Outcome = NoCandidate
		d.Err = fmt.Errorf("none that follows the primary holds every committed record (%s)",
			ShortReplicas(o.Record, streaming, o.Committed))
		return d
	}
	d.Outcome, d.Candidate = Promote, cand
	return d
}

// Streams reports whether s, a replica, follows the recorded primary with
// its link up on every shard.
func Streams(s Status, rec Record) bool {
	if !s.OK || len(s.Shards) == 0 {
		return false
	}
	primary, found := rec.primaryMember()
	if !found {
		return false
	}
	for _, sh := range s.Shards {
		if sh.Role != "slave" || !sh.LinkUp || sh.Syncing || !SameAddr(sh.MasterAddr, primary.Replication) {
			return false
		}
	}
	return true
}

// CaughtUp reports whether the candidate holds every record the paused
// primary has, on every shard, and otherwise says where it lags. Writes
// still in flight on the primary (they passed the pause before it began)
// may add records: not caught up until they are done.
func CaughtUp(primary, cand Status) (bool, string) {
	if !primary.OK || !cand.OK {
		return false, "a ping was not answered"
	}
	var last []uint64
	for _, p := range primary.Shards {
		if p.WritesInFlight > 0 {
			return false, fmt.Sprintf("%d writes in flight on the primary", p.WritesInFlight)
		}
		last = append(last, p.WalLast)
	}
	short := Lacks(cand, last)
	return short == "", short
}

// SwitchoverPause is how long the leader pauses the primary's writes: two
// down_after_ms, at least 2 s. If the leader stops in the middle, writes
// wait no longer than that.
func SwitchoverPause(downAfter time.Duration) time.Duration {
	return max(2*downAfter, 2*time.Second)
}

// SwitchoverBudget is how long after sending the pause the leader may
// still propose the promotion: half the pause, the rest being left for
// the old primary's REPLICAOF to arrive before its writes resume.
func SwitchoverBudget(pause time.Duration) time.Duration { return pause / 2 }

// PauseArgs holds the primary's writes for d; UnpauseArgs lifts the
// pause.
func PauseArgs(d time.Duration) []string {
	return []string{"CLIENT", "PAUSE", strconv.FormatInt(max(d.Milliseconds(), 1), 10), "WRITE"}
}

// UnpauseArgs lifts a pause PauseArgs set.
func UnpauseArgs() []string { return []string{"CLIENT", "UNPAUSE"} }
