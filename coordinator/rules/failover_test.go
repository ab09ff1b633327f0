package rules

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// obs is an observation of group main, primary a, replicas b (history 10)
// and c (history 20), three voters, before any vote.
func obs() Observation {
	return Observation{
		Group:  "main",
		Record: Record{Primary: ma.Address, GroupEpoch: 4, Members: []Member{ma, mb, mc}},
		Statuses: map[string]Status{
			mb.Address: status("slave", 10),
			mc.Address: status("slave", 20),
		},
		Now: time.Unix(2000, 500), DownAfter: 3 * time.Second,
		Voters: []int{1, 2, 3},
	}
}

func TestFailover(t *testing.T) {
	yes2 := map[int]bool{1: true, 2: true}
	cases := []struct {
		name          string
		change        func(*Observation)
		want          Outcome
		cand, errText string
	}{
		{"nobody voted", func(o *Observation) {}, Stay, "", ""},
		{"only the leader is silent", func(o *Observation) { o.Silent, o.Ended = map[int]bool{1: true, 2: false}, yes2 }, Stay, "", ""},
		{"silent to a majority, lease runs", func(o *Observation) { o.Silent, o.Ended = yes2, map[int]bool{1: true} }, LeaseRuns, "", ""},
		{"silent and lease ended: most history", func(o *Observation) { o.Silent, o.Ended = yes2, yes2 }, Promote, mc.Address, ""},
		{"committed records decide", func(o *Observation) {
			o.Silent, o.Ended = yes2, yes2
			o.Statuses[mb.Address] = status("slave", 30)
			o.Statuses[mc.Address] = status("slave", 20, 5)
			o.Committed = []uint64{25}
		}, Promote, mb.Address, ""},
		{"nobody holds the committed records", func(o *Observation) {
			o.Silent, o.Ended = yes2, yes2
			o.Committed = []uint64{25}
		}, NoCandidate, "", "no answering replica holds every committed record (b:6379 lacks shard 0: records 11-25, c:6379 lacks shard 0: records 21-25); COORDINATOR FAILOVER main FORCE promotes the best one anyway"},
		{"unclean_failover takes the best one anyway", func(o *Observation) {
			o.Silent, o.Ended = yes2, yes2
			o.Committed, o.Unclean = []uint64{25}, true
		}, Promote, mc.Address, ""},
		{"no replica answers", func(o *Observation) {
			o.Silent, o.Ended = yes2, yes2
			o.Statuses, o.Unclean = nil, true
		}, NoCandidate, "", "no replica answers"},
	}
	for _, c := range cases {
		o := obs()
		c.change(&o)
		d := Failover(o)
		errText := ""
		if d.Err != nil {
			errText = d.Err.Error()
		}
		if d.Outcome != c.want || d.Candidate.Address != c.cand || errText != c.errText {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
}

func TestForce(t *testing.T) {
	yes2 := map[int]bool{1: true, 2: true}
	o := obs()
	o.LeaderHears = true
	if d := Force(o); d.Outcome != PrimaryAnswers || !strings.Contains(d.Err.Error(), "still answers this leader") {
		t.Fatalf("the leader hears the primary: %+v", d)
	}
	o.LeaderHears = false
	if d := Force(o); d.Outcome != LeaseRuns || !strings.Contains(d.Err.Error(), "still holds a lease") {
		t.Fatalf("no lease votes yet: %+v", d)
	}
	// FORCE needs no silent majority, only ended leases; and it takes a
	// replica lacking committed records.
	o.Ended, o.Committed = yes2, []uint64{100}
	if d := Force(o); d.Outcome != Promote || d.Candidate != mc {
		t.Fatalf("forced: %+v", d)
	}
	// With no primary recorded there is no lease to wait for.
	o = obs()
	o.Record.Primary = ""
	if d := Force(o); d.Outcome != Promote || d.Candidate != mc {
		t.Fatalf("no primary: %+v", d)
	}
}

func TestRecheck(t *testing.T) {
	o := obs()
	o.Committed = []uint64{15}
	d := Decision{Outcome: Promote, Candidate: mc}
	p, err := Recheck(o, d, status("slave", 20), false)
	if err != nil || p.Lacks != "" || !reflect.DeepEqual(p.Entry, Entry{Op: OpPrimary, Group: "main", Primary: mc.Address, GroupEpoch: 5}) {
		t.Fatalf("clean: %+v %v", p, err)
	}
	if _, err := Recheck(o, d, Status{}, false); err == nil || !strings.Contains(err.Error(), "no longer answers") {
		t.Fatalf("died with the primary: %v", err)
	}
	loading := status("slave", 20)
	loading.Shards[0].Syncing = true
	if _, err := Recheck(o, d, loading, false); err == nil {
		t.Fatal("a loading replica is not promoted")
	}
	if _, err := Recheck(o, d, status("slave", 9), false); err == nil || !strings.Contains(err.Error(), "no longer holds every committed record") {
		t.Fatalf("a clean failover to a replica that now lacks records: %v", err)
	}
	p, err = Recheck(o, d, status("slave", 9), true)
	if err != nil || !p.Entry.Unclean || p.Lacks != "shard 0: records 10-15" {
		t.Fatalf("forced: %+v %v", p, err)
	}
	o.Unclean = true
	if p, err = Recheck(o, d, status("slave", 9), false); err != nil || !p.Entry.Unclean {
		t.Fatalf("unclean_failover: %+v %v", p, err)
	}
	if _, err := Recheck(o, Decision{Outcome: Stay}, status("slave", 20), false); err == nil {
		t.Fatal("nothing decided, nothing to record")
	}
}

func TestWithoutYield(t *testing.T) {
	a := Action{Args: replicaOf("b:26379")}
	if plain, ok := a.WithoutYield(); !ok || strings.Join(plain, " ") != "REPLICAOF b 26379" {
		t.Fatal(plain, ok)
	}
	if _, ok := (Action{Args: []string{"REPLICAOF", "NO", "ONE"}}).WithoutYield(); ok {
		t.Fatal("REPLICAOF NO ONE has no YIELD")
	}
}

func TestSameAddr(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"b:26379", "b:26379", true},
		{"b:26379", "b:026379", true},
		{"b:26379", "c:26379", false},
		{"b:26379", "b:26380", false},
		{"10.0.0.1:1", "localhost:1", false}, // names are resolved where they are learnt, not here
		{"not an address", "not an address", true},
		{"not an address", "b:1", false},
	}
	for _, c := range cases {
		if got := SameAddr(c.a, c.b); got != c.want {
			t.Errorf("SameAddr(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// An unclean failover in the first second of durable writes, while the
// record holds no committed value yet: the values the leader had learned
// are dropped too, the stale reports replicas keep sending are ignored,
// and nothing is written back as a rise.
func TestAnUncleanFailoverBeforeAnyRecordDropsTheLearnedValues(t *testing.T) {
	s := NewState(map[string][]Member{"main": {ma, mb, mc}})
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "main", Primary: ma.Address, GroupEpoch: 4})
	o := obs()
	o.Record = s["main"].Copy()
	// Learned from the pings, not recorded yet.
	o.Committed = MaxEach(o.Record.Committed, []uint64{15})
	p, err := Recheck(o, Decision{Outcome: Promote, Candidate: mc}, status("slave", 9), true)
	if err != nil || !p.Entry.Unclean {
		t.Fatalf("forced: %+v %v", p, err)
	}
	s, res := Apply(s, p.Entry)
	if !res.Unclean || !reflect.DeepEqual(s["main"].Stale, []uint64{15}) || s["main"].Committed != nil {
		t.Fatalf("after the unclean promotion: %+v (unclean %v)", s["main"], res.Unclean)
	}
	// The old primary's replica still reports 15; the new primary reuses
	// sequences 10-15 and has committed 12 of them.
	st := map[string]Status{mb.Address: committedStatus(true, 15), mc.Address: committedStatus(true, 12)}
	known := FoldCommitted(nil, s["main"].Stale, st)
	if r := Rises(s["main"].Committed, MaxEach(s["main"].Committed, known)); r != nil {
		t.Fatalf("the dropped values come back as a rise: %v", r)
	}
	// Once the new primary commits past them they count again.
	st[mc.Address] = committedStatus(true, 16)
	known = FoldCommitted(known, s["main"].Stale, st)
	if r := Rises(s["main"].Committed, known); !reflect.DeepEqual(r, map[int]uint64{0: 16}) {
		t.Fatalf("a value past the dropped one: %v", r)
	}
}

// A primary that restarted without records a replica holds is replaced
// by the best replica holding every committed record, without votes.
func TestAfterLoss(t *testing.T) {
	lost := func(n ...uint64) Status {
		s := status("master", 5, 5)
		for i, v := range n {
			s.Shards[i].LostRecords = v
		}
		return s
	}
	cases := []struct {
		name   string
		change func(*Observation)
		want   Outcome
		cand   string
	}{
		{"the primary lost nothing", func(o *Observation) { o.Statuses[ma.Address] = lost(0, 0) }, Stay, ""},
		{"no primary recorded", func(o *Observation) { o.Statuses[ma.Address] = lost(3, 0); o.Record.Primary = "" }, Stay, ""},
		{"lost on one shard: the replica with the most history", func(o *Observation) { o.Statuses[ma.Address] = lost(0, 7) }, Promote, mc.Address},
		{"the committed records still decide", func(o *Observation) {
			o.Statuses[ma.Address] = lost(7, 0)
			o.Committed = []uint64{25}
		}, NoCandidate, ""},
	}
	for _, c := range cases {
		o := obs()
		c.change(&o)
		if d := AfterLoss(o); d.Outcome != c.want || d.Candidate.Address != c.cand {
			t.Errorf("%s: %v %q, want %v %q", c.name, d.Outcome, d.Candidate.Address, c.want, c.cand)
		}
	}
	if LostRecords(lost(2, 9)) != 9 || LostRecords(Status{}) != 0 {
		t.Fatal("LostRecords")
	}
}
