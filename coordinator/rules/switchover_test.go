package rules

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// A switchover needs the leader to hear the primary, and takes the replica
// with the most history among those streaming from it on every shard and
// holding every committed record.
func TestSwitchover(t *testing.T) {
	linkDown := status("slave", 50)
	linkDown.Shards[0].LinkUp = false
	elsewhere := status("slave", 50)
	elsewhere.Shards[0].MasterAddr = "b:26379"
	loading := status("slave", 50)
	loading.Shards[0].Syncing = true
	detached := status("slave", 50)
	detached.Shards[0].MasterAddr = ":0"
	cases := []struct {
		name          string
		change        func(*Observation)
		want          Outcome
		cand, errText string
	}{
		{"most history", func(o *Observation) {}, Promote, mc.Address, ""},
		{"the leader does not hear the primary", func(o *Observation) { o.LeaderHears = false }, PrimarySilent, "",
			"the primary a:6379 does not answer this leader: the automatic failover promotes a replica once a majority no longer hears it (COORDINATOR FAILOVER main FORCE does at once)"},
		{"no primary recorded", func(o *Observation) { o.Record.Primary = "" }, NoCandidate, "", "the group main has no primary recorded yet"},
		{"a replica whose link is down is passed over", func(o *Observation) { o.Statuses[mc.Address] = linkDown }, Promote, mb.Address, ""},
		{"so is one following another node", func(o *Observation) { o.Statuses[mc.Address] = elsewhere }, Promote, mb.Address, ""},
		{"so is one loading a full copy", func(o *Observation) { o.Statuses[mc.Address] = loading }, Promote, mb.Address, ""},
		{"so is a detached one", func(o *Observation) { o.Statuses[mc.Address] = detached }, Promote, mb.Address, ""},
		{"so is one lacking committed records", func(o *Observation) {
			o.Statuses[mb.Address] = status("slave", 30)
			o.Statuses[mc.Address] = status("slave", 20)
			o.Committed = []uint64{25}
		}, Promote, mb.Address, ""},
		{"none streams", func(o *Observation) { o.Statuses = map[string]Status{mb.Address: linkDown, mc.Address: elsewhere} }, NoCandidate, "",
			"no replica follows the primary with its link up on every shard"},
		{"none holds the committed records: FORCE's case, not a switchover's", func(o *Observation) { o.Committed, o.Unclean = []uint64{99}, true }, NoCandidate, "",
			"none that follows the primary holds every committed record (b:6379 lacks shard 0: records 11-99, c:6379 lacks shard 0: records 21-99)"},
	}
	for _, c := range cases {
		o := obs()
		o.LeaderHears = true
		c.change(&o)
		d := Switchover(o)
		errText := ""
		if d.Err != nil {
			errText = d.Err.Error()
		}
		if d.Outcome != c.want || d.Candidate.Address != c.cand || errText != c.errText {
			t.Errorf("%s: %v %q %q, want %v %q %q", c.name, d.Outcome, d.Candidate.Address, errText, c.want, c.cand, c.errText)
		}
	}
}

// Every shard of the candidate holds at least the paused primary's last
// record, or it has not caught up.
func TestCaughtUp(t *testing.T) {
	node := func(last ...uint64) Status {
		s := Status{OK: true}
		for _, l := range last {
			s.Shards = append(s.Shards, ShardStatus{WalLast: l})
		}
		return s
	}
	cases := []struct {
		primary, cand Status
		ok            bool
		short         string
	}{
		{node(10, 20), node(10, 20), true, ""},
		{node(10, 20), node(10, 25), true, ""},
		{node(10, 20), node(9, 20), false, "shard 0: 9 of 10"},
		{node(10, 20), node(10), false, "shard 1: 0 of 20"},
		{node(10), Status{}, false, "a ping was not answered"},
		{func() Status { s := node(10, 20); s.Shards[1].WritesInFlight = 2; return s }(), node(10, 20), false, "2 writes in flight on the primary"},
	}
	for _, c := range cases {
		ok, short := CaughtUp(c.primary, c.cand)
		if ok != c.ok || short != c.short {
			t.Errorf("CaughtUp(%v, %v) = %v %q, want %v %q", c.primary, c.cand, ok, short, c.ok, c.short)
		}
	}
}

func TestSwitchoverPauseAndBudget(t *testing.T) {
	if p := SwitchoverPause(3 * time.Second); p != 6*time.Second || SwitchoverBudget(p) != 3*time.Second {
		t.Fatalf("pause %v budget %v for down_after 3 s", p, SwitchoverBudget(p))
	}
	if p := SwitchoverPause(300 * time.Millisecond); p != 2*time.Second {
		t.Fatalf("pause %v for down_after 300 ms", p)
	}
	if got := strings.Join(PauseArgs(1500*time.Millisecond), " "); got != "CLIENT PAUSE 1500 WRITE" {
		t.Fatal(got)
	}
	if !reflect.DeepEqual(UnpauseArgs(), []string{"CLIENT", "UNPAUSE"}) {
		t.Fatal(UnpauseArgs())
	}
}
