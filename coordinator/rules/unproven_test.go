package rules

import (
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// With unclean_failover every failover a majority agrees on promotes a
// replica as long as one answers and is not loading: the best holder of
// every committed record when there is one, else the best of all, also
// one lacking recorded committed sequences. The promotion is recorded as
// unclean exactly when the promoted replica lacks committed records, and
// applying it drops the committed values.
func TestUncleanFailoverAlwaysPromotesTheBestReplica(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genObservation(t)
		o.Unclean = true
		o.Silent, o.Ended = yesVotes(len(o.Voters)), yesVotes(len(o.Voters))
		d := Failover(o)
		any, anyOK := PickCandidate(o.Record, o.Statuses, nil, o.Now, o.DownAfter)
		clean, cleanOK := PickCandidate(o.Record, o.Statuses, o.Committed, o.Now, o.DownAfter)
		want := any
		if cleanOK {
			want = clean
		}
		if !anyOK {
			if d.Outcome != NoCandidate {
				t.Fatalf("no replica answers, yet %+v", d)
			}
			return
		}
		if d.Outcome != Promote || d.Candidate != want {
			t.Fatalf("unclean_failover: %+v, want a promotion of %s (committed %v, statuses %+v)", d, want.Address, o.Committed, o.Statuses)
		}
		fresh := o.Statuses[d.Candidate.Address]
		p, err := Recheck(o, d, fresh, false)
		if err != nil {
			t.Fatalf("recheck of an unchanged candidate: %v", err)
		}
		lacks := !Holds(fresh, o.Committed)
		if p.Entry.Unclean != lacks || (p.Lacks != "") != lacks {
			t.Fatalf("promotion of %s lacking=%v recorded unclean=%v (%q)", d.Candidate.Address, lacks, p.Entry.Unclean, p.Lacks)
		}
		s := NewState(map[string][]Member{"main": o.Record.Members})
		s["main"] = o.Record.Copy()
		s, res := Apply(s, p.Entry)
		if res.Err != nil || s["main"].Primary != d.Candidate.Address || res.Unclean != lacks {
			t.Fatalf("applying %+v: %+v", p.Entry, res)
		}
		if lacks && s["main"].Committed != nil {
			t.Fatalf("an unclean promotion kept the committed values %v", s["main"].Committed)
		}
	})
}

// The concrete case: the only answering replica lacks the recorded
// committed sequence (the recorded value, none learned), and with
// unclean_failover it is promoted, recorded unclean, every time.
func TestUncleanFailoverPromotesAReplicaLackingTheRecordedSequence(t *testing.T) {
	for round := 0; round < 3; round++ {
		o := obs()
		o.Record.Committed = []uint64{40}
		o.Committed = o.Record.Committed
		o.Silent, o.Ended, o.Unclean = yesVotes(3), yesVotes(3), true
		delete(o.Statuses, mc.Address)
		d := Failover(o)
		if d.Outcome != Promote || d.Candidate != mb {
			t.Fatalf("round %d: %+v", round, d)
		}
		p, err := Recheck(o, d, o.Statuses[mb.Address], false)
		if err != nil || !p.Entry.Unclean || p.Lacks != "shard 0: records 11-40" {
			t.Fatalf("round %d: %+v %v", round, p, err)
		}
		o.Unclean = false
		if d := Failover(o); d.Outcome != NoCandidate {
			t.Fatalf("without unclean_failover: %+v", d)
		}
	}
}

// FORCE is refused while the primary answers the leader, whatever the
// other coordinators voted and whatever the replicas hold.
func TestForceIsRefusedWhileThePrimaryAnswersTheLeader(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genObservation(t)
		o.LeaderHears = true
		if rapid.Bool().Draw(t, "every vote yes") {
			o.Silent, o.Ended = yesVotes(len(o.Voters)), yesVotes(len(o.Voters))
		}
		if d := Force(o); d.Outcome != PrimaryAnswers || d.Err == nil {
			t.Fatalf("FORCE while the leader hears %s: %+v", o.Record.Primary, d)
		}
	})
}

// A member is heard only when every shard answers (Status.OK): a primary
// with one shard down goes silent like a dead one and is failed over; a
// replica with a shard down is never the candidate; a member answering on
// some shards is left as it is, and pointed at the agreed primary once all
// its shards answer.
func TestAMemberWithAShardDown(t *testing.T) {
	start := time.Unix(1000, 0)
	heard := time.Unix(1990, 0)
	now := heard.Add(3 * time.Second)
	// The prober records heard only when every shard answered: a primary
	// answering on shard 0 alone keeps its last heard time, and is silent
	// after down_after like one that answers nothing.
	if !Silent(heard, start, now, 3*time.Second) {
		t.Fatal("a primary unheard for down_after is silent")
	}
	partial := func(role string, durable ...uint64) Status {
		s := status(role, durable...)
		s.OK, s.Err = false, "shard 1: connection refused"
		return s
	}
	o := obs()
	o.Statuses[ma.Address] = partial("master", 5, 5)
	o.Statuses[mb.Address] = status("slave", 10, 10)
	o.Statuses[mc.Address] = partial("slave", 90, 90) // most history, one shard down
	o.Silent, o.Ended = yesVotes(3), yesVotes(3)
	d := Failover(o)
	if d.Outcome != Promote || d.Candidate != mb {
		t.Fatalf("a primary with a shard down: %+v (want b promoted, c has a shard down)", d)
	}
	o.Unclean = true
	if d := Failover(o); d.Candidate != mb {
		t.Fatalf("unclean_failover promoted a replica with a shard down: %+v", d)
	}
	if d := Force(o); d.Candidate != mb {
		t.Fatalf("FORCE promoted a replica with a shard down: %+v", d)
	}
	if _, err := Recheck(o, Decision{Outcome: Promote, Candidate: mc}, partial("slave", 90, 90), true); err == nil {
		t.Fatal("a candidate whose shard went down when looked at again was promoted")
	}
	o.Statuses[mb.Address] = partial("slave", 10, 10)
	if d := Failover(o); d.Outcome != NoCandidate {
		t.Fatalf("only replicas with a shard down: %+v", d)
	}

	// After the failover to b: a (the old primary, still a master on its
	// answering shard) and c (following a) are left alone while a shard
	// of theirs is down, and corrected once all answer.
	rec := Record{Primary: mb.Address, GroupEpoch: 5, Members: []Member{ma, mb, mc}}
	st := map[string]Status{
		ma.Address: partial("master", 5, 5),
		mb.Address: status("master", 10, 10),
		mc.Address: partial("slave", 90, 90),
	}
	if got := Corrections(rec, st); len(got) != 0 {
		t.Fatalf("members answering on some shards were changed: %+v", got)
	}
	st[ma.Address] = status("master", 5, 5)
	st[mc.Address] = status("slave", 90, 90) // follows a:26379
	want := []Action{
		{Member: ma, Args: []string{"REPLICAOF", "b", "26379", "YIELD"}, Demote: true},
		{Member: mc, Args: []string{"REPLICAOF", "b", "26379", "YIELD"}},
	}
	if got := Corrections(rec, st); !reflect.DeepEqual(got, want) {
		t.Fatalf("once every shard answers:\n got %+v\nwant %+v", got, want)
	}
	// The agreed primary with a shard down is not told anything either.
	st[mb.Address] = partial("slave", 10, 10)
	for _, a := range Corrections(rec, st) {
		if a.Member == mb {
			t.Fatalf("the primary answering on some shards was sent %v", a.Args)
		}
	}
}

// Majorities count the voters given (the recorded coordinators), not
// how many coordinators some list names: with 5 recorded voters, the 2
// silent votes that would win among 3 do not fail over, and 3 of 5 do.
func TestMajoritiesCountTheRecordedVoters(t *testing.T) {
	o := obs()
	o.Voters = ids(5)
	o.Silent, o.Ended = yesVotes(2), yesVotes(2)
	if d := Failover(o); d.Outcome != Stay {
		t.Fatalf("2 of 5 recorded voters: %+v", d)
	}
	o.Silent, o.Ended = yesVotes(3), yesVotes(2)
	if d := Failover(o); d.Outcome != LeaseRuns {
		t.Fatalf("3 silent, 2 ended of 5: %+v", d)
	}
	o.Ended = yesVotes(3)
	if d := Failover(o); d.Outcome != Promote {
		t.Fatalf("3 of 5: %+v", d)
	}
	// Votes from coordinators that are not recorded voters count for
	// nothing: 3 recorded voters, yes from 2 others and 1 voter.
	o.Voters = []int{1, 2, 3}
	o.Silent = map[int]bool{1: true, 4: true, 5: true}
	o.Ended = o.Silent
	if d := Failover(o); d.Outcome != Stay || d.SilentVotes != 1 {
		t.Fatalf("yes from non-voters: %+v", d)
	}
}

// Holds and Lacking agree: a shard a status does not report holds
// nothing, which is enough where nothing was committed, so a clean
// failover is not refused for a zero it cannot lack, and an unclean one
// is recorded unclean exactly when records are lacking.
func TestHoldsAgreesWithLacking(t *testing.T) {
	one := status("slave", 7)
	for _, c := range []struct {
		committed []uint64
		holds     bool
	}{{nil, true}, {[]uint64{7}, true}, {[]uint64{8}, false}, {[]uint64{7, 0}, true}, {[]uint64{7, 1}, false}} {
		if got := Holds(one, c.committed); got != c.holds || (Lacking(one, c.committed) == "") != c.holds {
			t.Errorf("committed %v: Holds %v, Lacking %q", c.committed, got, Lacking(one, c.committed))
		}
	}
}
