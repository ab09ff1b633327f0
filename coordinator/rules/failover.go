package rules

import (
	"errors"
	"fmt"
	"time"
)

// The failover rule: a primary is failed over when a majority of the
// coordinators no longer hear it, then only once a majority report that
// their lease grants to it have ended, to the best replica that holds
// every committed record (or, when unclean promotions are allowed, the
// best one anyway), and only if that replica still answers when looked
// at once more.

// Observation is what the leader knows when it decides a group's
// failover: its own pings, and the other coordinators' answers.
type Observation struct {
	Group    string
	Record   Record
	Statuses map[string]Status // the latest ping of each member
	// Committed is, per shard, what a clean failover keeps: the larger of
	// the recorded and the learned committed sequence.
	Committed []uint64
	Now       time.Time
	DownAfter time.Duration
	// Voters are the ids of the recorded voting coordinators.
	Voters []int
	// Silent and Ended are the votes, by coordinator id (the leader's
	// own included): no longer hears the primary, and its last lease
	// grant to the primary has ended. A coordinator that did not answer
	// is absent from both.
	Silent map[int]bool
	Ended  map[int]bool
	// LeaderHears reports whether the leader itself still hears the
	// primary (FORCE is refused then).
	LeaderHears bool
	// Unclean allows promoting a replica lacking committed records
	// (unclean_failover; FORCE always does).
	Unclean bool
	// ProposeBy is a switchover's last instant to record the promotion
	// (zero: no limit): past it the old primary's pause may run out.
	ProposeBy time.Time
	// MustHold is, per shard, the last record of a switchover's paused
	// primary: the replica promoted must hold all of them (Lacks).
	MustHold []uint64
}

// Outcome is what a failover decision came to.
type Outcome int

const (
	// Stay: a majority still hears the primary (or has not said it
	// does not).
	Stay Outcome = iota
	// PrimaryAnswers: FORCE refused because the leader hears the primary.
	PrimaryAnswers
	// LeaseRuns: the primary is down, but a majority has not reported
	// its lease ended.
	LeaseRuns
	// NoCandidate: the primary is down and no replica may be promoted.
	NoCandidate
	// Promote: promote Candidate, once it is looked at again (Recheck).
	Promote
	// PrimarySilent: a switchover refused because the leader does not
	// hear the primary (the automatic failover's case, or FORCE's).
	PrimarySilent
)

// Decision is a failover decision.
type Decision struct {
	Outcome   Outcome
	Candidate Member
	// SilentVotes and EndedVotes count the yes votes, for the +odown
	// event and the logs.
	SilentVotes, EndedVotes int
	// Err says why nothing is promoted, for NoCandidate and the refusals.
	Err error
}

// ErrNoReplicaAnswers is the NoCandidate reason when no replica answers at all.
var ErrNoReplicaAnswers = errors.New("no replica answers")

// Failover decides the failover of a group whose primary the leader no
// longer hears.
func Failover(o Observation) Decision {
	d := Decision{SilentVotes: Yes(o.Voters, o.Silent), EndedVotes: Yes(o.Voters, o.Ended)}
	if Tally(o.Voters, o.Silent) != VoteWon {
		d.Outcome = Stay
		return d
	}
	if Tally(o.Voters, o.Ended) != VoteWon {
		d.Outcome = LeaseRuns
		return d
	}
	return pick(o, o.Unclean, d)
}

// Force decides COORDINATOR FAILOVER group FORCE: refused while the leader
// hears the primary or a majority's lease grants to it still run; then
// the best replica, even one lacking committed records. Without votes
// (nil maps) it answers PrimaryAnswers or LeaseRuns, so a caller may
// check the leader's own view before asking anyone.
func Force(o Observation) Decision {
	d := Decision{SilentVotes: Yes(o.Voters, o.Silent), EndedVotes: Yes(o.Voters, o.Ended)}
	if o.Record.Primary != "" && o.LeaderHears {
		d.Outcome = PrimaryAnswers
		d.Err = fmt.Errorf("the primary %s still answers this leader: FORCE only promotes a replica when it does not", o.Record.Primary)
		return d
	}
	if o.Record.Primary != "" && Tally(o.Voters, o.Ended) != VoteWon {
		d.Outcome = LeaseRuns
		d.Err = fmt.Errorf("the primary %s still holds a lease from a majority of coordinators: try again once it ends", o.Record.Primary)
		return d
	}
	return pick(o, true, d)
}

// Lacks describes, per shard, where s's log stops short of last[i] ("":
// it holds them all, or last is nil).
func Lacks(s Status, last []uint64) string {
	return shortfall(s, last, func(sh ShardStatus) uint64 { return sh.WalLast }, func(i int, have, want uint64) string {
		return fmt.Sprintf("shard %d: %d of %d", i, have, want)
	})
}

// LostRecords is the most records a replica showed the member s, a
// primary, lost in a restart (0: none).
func LostRecords(s Status) uint64 {
	var n uint64
	for _, sh := range s.Shards {
		n = max(n, sh.LostRecords)
	}
	return n
}

// AfterLoss decides the failover of a primary that answers but restarted
// without records a replica holds (LostRecords): it stopped taking writes
// itself, so no coordinator is asked whether it hears it; the best
// replica holding every committed record is promoted, which keeps the
// records the primary lost.
func AfterLoss(o Observation) Decision {
	var d Decision
	if o.Record.Primary == "" || LostRecords(o.Statuses[o.Record.Primary]) == 0 {
		d.Outcome = Stay
		return d
	}
	return pick(o, o.Unclean, d)
}

func pick(o Observation, unclean bool, d Decision) Decision {
	cand, ok := PickCandidate(o.Record, o.Statuses, o.Committed, o.Now, o.DownAfter)
	if !ok && !unclean {
		d.Outcome = NoCandidate
		d.Err = fmt.Errorf("no answering replica holds every committed record (%s); COORDINATOR FAILOVER %s FORCE promotes the best one anyway",
			ShortReplicas(o.Record, o.Statuses, o.Committed), o.Group)
		return d
	}
	if !ok {
		if cand, ok = PickCandidate(o.Record, o.Statuses, nil, o.Now, o.DownAfter); !ok {
			d.Outcome, d.Err = NoCandidate, ErrNoReplicaAnswers
			return d
		}
	}
	d.Outcome, d.Candidate = Promote, cand
	return d
}

// Promotion is a decided failover ready to record.
type Promotion struct {
	Entry Entry
	// Lacks describes, per shard, the committed records the promoted
	// replica lacks ("" for a clean promotion): they are lost.
	Lacks string
}

// Recheck turns a Promote decision into the entry to record, given the
// candidate's status pinged once more: a replica that died with the
// primary, or started loading a full copy, is not promoted; neither is one
// that no longer holds every committed record unless unclean promotions
// are allowed (force, or o.Unclean).
func Recheck(o Observation, d Decision, fresh Status, force bool) (Promotion, error) {
	if d.Outcome != Promote {
		return Promotion{}, errors.New("no promotion was decided")
	}
	if !fresh.OK || fresh.Loading() {
		return Promotion{}, fmt.Errorf("the chosen replica %s no longer answers: choosing again next round", d.Candidate.Address)
	}
	lacks := Lacking(fresh, o.Committed)
	if lacks != "" && !force && !o.Unclean {
		return Promotion{}, fmt.Errorf("the chosen replica %s no longer holds every committed record (%s): choosing again next round", d.Candidate.Address, lacks)
	}
	e := Entry{Op: OpPrimary, Group: o.Group, Primary: d.Candidate.Address, GroupEpoch: o.Record.GroupEpoch + 1, Unclean: lacks != ""}
	if e.Unclean {
		// The values dropped are the ones this decision kept, also those
		// learned from the members and not recorded yet: every
		// coordinator ignores reports at or below them from now on.
		if dropped := Dropped(o.Committed); dropped != nil {
			e.Committed = map[string]map[int]uint64{o.Group: dropped}
		}
	}
	return Promotion{Entry: e, Lacks: lacks}, nil
}

// PickCandidate chooses the member to promote: one that answers (heard
// within downAfter), is not the recorded primary, is not loading a full
// copy, holds every committed record (committed[i] per shard, when
// given), and holds the most history; ties go to the member listed
// first. ok is false when none qualifies.
func PickCandidate(rec Record, st map[string]Status, committed []uint64, now time.Time, downAfter time.Duration) (Member, bool) {
	var best Member
	var bestHist uint64
	found := false
	for _, m := range rec.Members {
		s, ok := st[m.Address]
		if !ok || m.Address == rec.Primary || !s.OK || now.Sub(s.At) >= downAfter || s.Loading() {
			continue
		}
		if !Holds(s, committed) {
			continue
		}
		if h := s.History(); !found || h > bestHist {
			best, bestHist, found = m, h, true
		}
	}
	return best, found
}

// Holds reports whether s holds every committed record, per shard: a
// shard it does not report holds nothing, which is enough where nothing
// was committed (the same count as Lacking).
func Holds(s Status, committed []uint64) bool {
	for i, c := range committed {
		var have uint64
		if i < len(s.Shards) {
			have = s.Shards[i].WalDurable
		}
		if have < c {
			return false
		}
	}
	return true
}
