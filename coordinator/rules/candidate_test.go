package rules

import (
	"strings"
	"testing"
	"time"
)

var (
	ma = Member{Address: "a:6379", Replication: "a:26379"}
	mb = Member{Address: "b:6379", Replication: "b:26379"}
	mc = Member{Address: "c:6379", Replication: "c:26379"}
)

// Silence counts from the coordinator's own start when it has not heard
// the member yet.
func TestSilentCountsFromTheCoordinatorsStart(t *testing.T) {
	start := time.Unix(1000, 0)
	d := 3 * time.Second
	cases := []struct {
		name  string
		heard time.Time
		now   time.Time
		want  bool
	}{
		{"never heard, just started", time.Time{}, start.Add(time.Second), false},
		{"never heard, down_after since start", time.Time{}, start.Add(d), true},
		{"heard before start counts from start", start.Add(-time.Hour), start.Add(2 * time.Second), false},
		{"heard recently", start.Add(10 * time.Second), start.Add(12 * time.Second), false},
		{"silent for exactly down_after", start.Add(10 * time.Second), start.Add(13 * time.Second), true},
	}
	for _, c := range cases {
		if got := Silent(c.heard, start, c.now, d); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}

// The leader looks at the primary when it falls silent, then often while
// the other coordinators' votes arrive, then only at each round; the
// others look once, when it falls silent.
func TestLookAgainWhenThePrimaryFallsSilent(t *testing.T) {
	base := time.Unix(1000, 0)
	ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }
	cases := []struct {
		name                  string
		silentFrom, now, next time.Time
		interval              time.Duration
		want                  time.Time
		wantOK                bool
		follower              bool
	}{
		{"silence comes before the next round", ms(150), ms(0), ms(200), 200 * time.Millisecond, ms(150), true, false},
		{"silence comes after the next round", ms(450), ms(0), ms(200), 200 * time.Millisecond, time.Time{}, false, false},
		{"silence comes with the next round", ms(200), ms(0), ms(200), 200 * time.Millisecond, time.Time{}, false, false},
		{"just silent: a tenth of an interval on", ms(150), ms(150), ms(200), 200 * time.Millisecond, ms(170), true, false},
		{"just silent, the round sooner", ms(150), ms(150), ms(160), 200 * time.Millisecond, time.Time{}, false, false},
		{"silent for most of an interval", ms(150), ms(330), ms(1000), 200 * time.Millisecond, ms(350), true, false},
		{"silent for more than an interval", ms(150), ms(340), ms(1000), 200 * time.Millisecond, time.Time{}, false, false},
		{"a short interval looks every 10 ms", ms(0), ms(0), ms(1000), 50 * time.Millisecond, ms(10), true, false},
		{"a long interval looks every tenth", ms(0), ms(0), ms(1000), 500 * time.Millisecond, ms(50), true, false},
		{"a follower looks when the primary falls silent", ms(150), ms(0), ms(200), 200 * time.Millisecond, ms(150), true, true},
		{"a follower does not look again", ms(150), ms(150), ms(350), 200 * time.Millisecond, time.Time{}, false, true},
	}
	for _, c := range cases {
		at, ok := LookAgain(c.silentFrom, c.now, c.next, c.interval, !c.follower)
		if ok != c.wantOK || (ok && !at.Equal(c.want)) {
			t.Errorf("%s: %v %v, want %v %v", c.name, at.Sub(base), ok, c.want.Sub(base), c.wantOK)
		}
	}
}

// Down only when a majority, the leader included, is silent.
func TestDownOnlyWhenAMajorityIsSilent(t *testing.T) {
	cases := []struct{ silent, voters int }{{1, 1}, {2, 3}, {3, 5}, {3, 4}}
	for _, c := range cases {
		if Tally(ids(c.voters), yesVotes(c.silent)) != VoteWon || Tally(ids(c.voters), yesVotes(c.silent-1)) == VoteWon {
			t.Errorf("%d of %d", c.silent, c.voters)
		}
	}
}

// ids is voters 1..n.
func ids(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// yesVotes is yes from voters 1..n, and no answer from the others.
func yesVotes(n int) map[int]bool {
	v := map[int]bool{}
	for i := 1; i <= n; i++ {
		v[i] = true
	}
	return v
}

func status(role string, durable ...uint64) Status {
	s := Status{OK: true, At: time.Unix(2000, 0)}
	for _, d := range durable {
		s.Shards = append(s.Shards, ShardStatus{Role: role, WalDurable: d, MasterAddr: "a:26379", LinkUp: true})
	}
	return s
}

// The candidate answers, is not loading, holds every committed record and
// the most history; ties go to the member listed first.
func TestPickCandidate(t *testing.T) {
	now := time.Unix(2000, 500)
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc}}
	loading := status("slave", 90)
	loading.Shards[0].Syncing = true
	stale := status("slave", 500)
	stale.At = time.Unix(1990, 0)
	cases := []struct {
		name      string
		st        map[string]Status
		committed []uint64
		want      string
	}{
		{"most history wins", map[string]Status{mb.Address: status("slave", 10, 20), mc.Address: status("slave", 15, 20)}, nil, mc.Address},
		{"tie goes to the first listed", map[string]Status{mb.Address: status("slave", 30), mc.Address: status("slave", 30)}, nil, mb.Address},
		{"loading replica skipped", map[string]Status{mb.Address: loading, mc.Address: status("slave", 10)}, nil, mc.Address},
		{"a replica not heard lately skipped", map[string]Status{mb.Address: stale, mc.Address: status("slave", 10)}, nil, mc.Address},
		{"the primary itself is never the candidate", map[string]Status{ma.Address: status("master", 999)}, nil, ""},
		{"no replica answers", map[string]Status{mb.Address: {}, mc.Address: {}}, nil, ""},
		{"committed records required", map[string]Status{mb.Address: status("slave", 100), mc.Address: status("slave", 60)}, []uint64{80}, mb.Address},
		{"nobody holds the committed records", map[string]Status{mb.Address: status("slave", 50), mc.Address: status("slave", 60)}, []uint64{80}, ""},
	}
	for _, c := range cases {
		m, ok := PickCandidate(rec, c.st, c.committed, now, 3*time.Second)
		got := ""
		if ok {
			got = m.Address
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// The commands that make members agree with the record.
func TestCorrections(t *testing.T) {
	rec := Record{Primary: mb.Address, Members: []Member{ma, mb, mc}}
	follows := func(addr string) Status {
		s := status("slave", 1)
		s.Shards[0].MasterAddr = addr
		return s
	}
	fenced := status("master", 1)
	fenced.Shards[0].FencedBy = 7
	twoShards := status("master", 1, 1)
	twoShards.Shards[1].Role = "slave"
	cases := []struct {
		name string
		st   map[string]Status
		want string
	}{
		{"all agree", map[string]Status{ma.Address: follows("b:26379"), mb.Address: status("master", 1), mc.Address: follows("b:26379")}, ""},
		{"just promoted: the new primary still a replica, the others follow the old",
			map[string]Status{mb.Address: follows("a:26379"), mc.Address: follows("a:26379")},
			"b:6379 REPLICAOF NO ONE|c:6379 REPLICAOF b 26379 YIELD"},
		{"an old primary back as a primary is demoted", map[string]Status{ma.Address: status("master", 5), mb.Address: status("master", 1), mc.Address: follows("b:26379")},
			"a:6379 REPLICAOF b 26379 YIELD demote"},
		{"a fenced primary gets a new epoch", map[string]Status{mb.Address: fenced}, "b:6379 REPLICAOF NO ONE"},
		{"members that do not answer are left alone", map[string]Status{mb.Address: status("master", 1)}, ""},
		{"a primary with one shard a replica is fixed", map[string]Status{mb.Address: twoShards}, "b:6379 REPLICAOF NO ONE"},
		{"a port written differently is the same address", map[string]Status{mb.Address: status("master", 1), mc.Address: follows("b:026379")}, ""},
	}
	for _, c := range cases {
		var got []string
		for _, a := range Corrections(rec, c.st) {
			s := a.Member.Address + " " + strings.Join(a.Args, " ")
			if a.Demote {
				s += " demote"
			}
			got = append(got, s)
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, g, c.want)
		}
	}
}

// The first record is the only member answering as a primary.
func TestFirstMaster(t *testing.T) {
	rec := Record{Members: []Member{ma, mb, mc}}
	if m, ok := FirstMaster(rec, map[string]Status{ma.Address: status("master", 1), mb.Address: status("slave", 1)}); !ok || m != ma {
		t.Fatal("one master")
	}
	if _, ok := FirstMaster(rec, map[string]Status{ma.Address: status("master", 1), mb.Address: status("master", 1)}); ok {
		t.Fatal("two masters must wait")
	}
	if _, ok := FirstMaster(rec, map[string]Status{mb.Address: status("slave", 1)}); ok {
		t.Fatal("no master must wait")
	}
}
