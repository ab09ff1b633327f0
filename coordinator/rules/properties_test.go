package rules

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Property tests of the safety rules, over arbitrary entries and
// observations (not only the ones a coordinator would produce).

var (
	md      = Member{Address: "d:6379", Replication: "d:26379"}
	pool    = []Member{ma, mb, mc, md}
	groups  = []string{"main", "other", "nope"}
	config  = map[string][]Member{"main": {ma, mb}, "other": {mc}}
	genTime = time.Unix(2000, 0)
)

func genEntry(t *rapid.T) Entry {
	e := Entry{
		Op:         rapid.SampledFrom([]string{OpPrimary, OpCommitted, OpAddMember, OpForget, "bogus"}).Draw(t, "op"),
		Group:      rapid.SampledFrom(groups).Draw(t, "group"),
		GroupEpoch: rapid.Uint64Range(0, 6).Draw(t, "epoch"),
		Unclean:    rapid.Bool().Draw(t, "unclean"),
	}
	if rapid.Bool().Draw(t, "has primary") {
		e.Primary = rapid.SampledFrom(pool).Draw(t, "primary").Address
	}
	if rapid.Bool().Draw(t, "has member") {
		m := rapid.SampledFrom(pool).Draw(t, "member")
		e.Member = &m
	}
	if e.Op == OpCommitted {
		e.Committed = map[string]map[int]uint64{}
		for _, g := range rapid.SliceOfN(rapid.SampledFrom(groups), 0, 3).Draw(t, "committed groups") {
			e.Committed[g] = rapid.MapOfN(rapid.IntRange(0, 3), rapid.Uint64Range(0, 100), 0, 3).Draw(t, "shards")
		}
	}
	return e
}

func TestGroupEpochOnlyGrows(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := NewState(config)
		for i, e := range rapid.SliceOfN(rapid.Custom(genEntry), 1, 40).Draw(t, "entries") {
			next, _ := Apply(s, e)
			for g, before := range s {
				after := next[g]
				if after.GroupEpoch < before.GroupEpoch {
					t.Fatalf("entry %d %+v: group %s epoch %d -> %d", i, e, g, before.GroupEpoch, after.GroupEpoch)
				}
				if before.Primary != "" && after.Primary != before.Primary && after.GroupEpoch <= before.GroupEpoch {
					t.Fatalf("entry %d %+v: group %s primary changed without a new group epoch", i, e, g)
				}
			}
			if len(next) != len(s) {
				t.Fatalf("entry %d %+v: groups %d -> %d", i, e, len(s), len(next))
			}
			s = next
		}
	})
}

func genStatus(t *rapid.T, label string) Status {
	s := Status{OK: rapid.Bool().Draw(t, label+" ok"), At: genTime.Add(-time.Duration(rapid.IntRange(0, 5).Draw(t, label+" age")) * time.Second)}
	for i := range rapid.IntRange(1, 2).Draw(t, label+" shards") {
		_ = i
		s.Shards = append(s.Shards, ShardStatus{
			Role:       rapid.SampledFrom([]string{"master", "slave"}).Draw(t, label+" role"),
			Syncing:    rapid.Float64Range(0, 1).Draw(t, label+" syncing") < 0.1,
			WalDurable: rapid.Uint64Range(0, 50).Draw(t, label+" durable"),
		})
	}
	return s
}

func genVotes(t *rapid.T, label string, voters []int) map[int]bool {
	v := map[int]bool{}
	for _, id := range append(voters, 99) { // 99 is not a voter
		switch rapid.IntRange(0, 2).Draw(t, label) {
		case 1:
			v[id] = true
		case 2:
			v[id] = false
		}
	}
	return v
}

func genObservation(t *rapid.T) Observation {
	rec := Record{Primary: ma.Address, GroupEpoch: rapid.Uint64Range(1, 9).Draw(t, "epoch"), Members: pool,
		Committed: rapid.SliceOfN(rapid.Uint64Range(0, 50), 0, 2).Draw(t, "recorded committed")}
	st := map[string]Status{}
	for _, m := range pool {
		if rapid.Bool().Draw(t, m.Address+" pinged") {
			st[m.Address] = genStatus(t, m.Address)
		}
	}
	voters := rapid.SampledFrom([][]int{{1}, {1, 2, 3}, {1, 2, 3, 4}, {1, 2, 3, 4, 5}}).Draw(t, "voters")
	learned := rapid.SliceOfN(rapid.Uint64Range(0, 50), 0, 2).Draw(t, "learned committed")
	return Observation{
		Group: "main", Record: rec, Statuses: st, Committed: MaxEach(rec.Committed, learned),
		Now: genTime, DownAfter: 3 * time.Second, Voters: voters,
		Silent: genVotes(t, "silent", voters), Ended: genVotes(t, "ended", voters),
		LeaderHears: rapid.Bool().Draw(t, "leader hears"), Unclean: rapid.Bool().Draw(t, "unclean allowed"),
	}
}

func TestACleanFailoverNeverPromotesAReplicaLackingACommittedRecord(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genObservation(t)
		force := rapid.Bool().Draw(t, "force")
		d := Failover(o)
		if force {
			d = Force(o)
		}
		if d.Outcome != Promote {
			return
		}
		fresh := o.Statuses[d.Candidate.Address]
		if rapid.Bool().Draw(t, "changed since") {
			fresh = genStatus(t, "fresh")
		}
		p, err := Recheck(o, d, fresh, force)
		if err != nil {
			return
		}
		if p.Entry.Primary == o.Record.Primary || p.Entry.GroupEpoch != o.Record.GroupEpoch+1 {
			t.Fatalf("promotion %+v of record %+v", p.Entry, o.Record)
		}
		if !p.Entry.Unclean && (!Holds(fresh, o.Record.Committed) || !Holds(fresh, o.Committed)) {
			t.Fatalf("clean promotion of %s lacking committed records: %+v vs %v", p.Entry.Primary, fresh, o.Committed)
		}
		if p.Entry.Unclean && !force && !o.Unclean {
			t.Fatalf("an unclean promotion without FORCE or unclean_failover: %+v", p)
		}
	})
}

func TestAMinorityOfVotesNeverFailsOver(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := genObservation(t)
		if Yes(o.Voters, o.Silent) >= Majority(len(o.Voters)) && Yes(o.Voters, o.Ended) >= Majority(len(o.Voters)) {
			return
		}
		if d := Failover(o); d.Outcome == Promote {
			t.Fatalf("promoted %s with %d silent and %d ended of %d voters", d.Candidate.Address, d.SilentVotes, d.EndedVotes, len(o.Voters))
		}
		if Yes(o.Voters, o.Ended) < Majority(len(o.Voters)) {
			if d := Force(o); d.Outcome == Promote {
				t.Fatalf("FORCE promoted %s while a majority's lease runs", d.Candidate.Address)
			}
		}
	})
}

// A snapshot restored over the same configuration gives the state the log
// built. The log here forgets no member the file lists: a coordinator
// refuses that FORGET, and listing a forgotten member in the file is how
// it is taken back, so restoring over such a file re-lists it.
func TestSnapshotThenRestoreGivesTheSameState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := NewState(config)
		for _, e := range rapid.SliceOfN(rapid.Custom(genEntry), 0, 30).Draw(t, "entries") {
			if e.Op == OpForget && HasMember(config[e.Group], e.Primary) {
				continue
			}
			s, _ = Apply(s, e)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var snap State
		if err := json.Unmarshal(b, &snap); err != nil {
			t.Fatal(err)
		}
		got := Restore(NewState(config), snap, config)
		if len(got) != len(s) {
			t.Fatalf("groups %v, want %v", got, s)
		}
		for g, r := range s {
			if !reflect.DeepEqual(norm(got[g]), norm(r)) {
				t.Fatalf("%s: %+v, want %+v", g, got[g], r)
			}
		}
	})
}
