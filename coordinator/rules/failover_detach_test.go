package rules

import (
	"strings"
	"testing"
	"time"
)

// detachedStatus is the ping of a member detached with REPLICAOF NO ONE
// (an older build): a primary, the last sequence per shard (fork record
// included), durable as far.
func detachedStatus(last ...uint64) Status {
	s := Status{OK: true, At: time.Unix(2000, 0)}
	for _, l := range last {
		s.Shards = append(s.Shards, ShardStatus{Role: "master", WalLast: l, WalDurable: l})
	}
	return s
}

// ruvioDetached is the ping of a member detached with RUVIO DETACH: still a
// replica, the last sequence per shard, durable as far, no fork record.
func ruvioDetached(last ...uint64) Status {
	s := detachedStatus(last...)
	for i := range s.Shards {
		s.Shards[i].Role = "slave"
	}
	return s
}

// Replicas detached with RUVIO DETACH have no fork record; with a member of
// an older build detached with REPLICAOF NO ONE, its fork record is not
// something it received.
func TestChooseDetachedCountsForkRecordsByHowEachWasDetached(t *testing.T) {
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc, md}}
	cases := []struct {
		name     string
		detached map[string]Status
		want     Member
		covers   bool
		short    string
	}{
		{"RUVIO DETACH: the further one", map[string]Status{mb.Address: ruvioDetached(10), mc.Address: ruvioDetached(12)}, mc, true, ""},
		{"RUVIO DETACH: one record apart is short", map[string]Status{mb.Address: ruvioDetached(12, 3), mc.Address: ruvioDetached(11, 4)}, mb, false, "shard 1: records 4-4 held by c:6379"},
		{"older build level with its fork record left out", map[string]Status{mb.Address: ruvioDetached(10), mc.Address: detachedStatus(11)}, mb, true, ""},
		{"older build one ahead", map[string]Status{mb.Address: ruvioDetached(10), mc.Address: detachedStatus(12)}, mc, true, ""},
		{"older build one behind", map[string]Status{mb.Address: ruvioDetached(10), mc.Address: detachedStatus(10)}, mb, true, ""},
		{"mixed on two shards: none covers", map[string]Status{mb.Address: ruvioDetached(10, 5), mc.Address: detachedStatus(12, 5)}, mb, false, "shard 0: records 11-11 held by c:6379"},
	}
	for _, c := range cases {
		got, ok := ChooseDetached(rec, c.detached, nil, false)
		if !ok || got.Member != c.want || got.Covers != c.covers || (c.short == "") != (got.Short == "") || !strings.Contains(got.Short, c.short) {
			t.Errorf("%s: %+v ok %v, want %v covers %v short %q", c.name, got, ok, c.want.Address, c.covers, c.short)
		}
	}
}

// What a member's refusal of RUVIO DETACH means: whether the leader falls
// back to REPLICAOF NO ONE, and whether it warns.
func TestClassifyDetachRefusal(t *testing.T) {
	cases := []struct {
		reply          string
		want           DetachRefusal
		fallback, warn bool
	}{
		{"ERR unknown subcommand 'detach'. Try RUVIO HELP.", DetachUnknown, true, true},
		{"ERR unknown command 'RUVIO', with args beginning with: 'DETACH' ", DetachUnknown, true, true},
		{"ERR RUVIO DETACH: this node is not a replica (it is a primary or standalone): there is nothing to detach from", DetachNotReplica, true, false},
		{"NOPERM User coord has no permissions to run the 'ruvio|detach' command", DetachOther, true, true},
		{"LOADING Redis is loading the dataset in memory", DetachLoading, false, false},
	}
	for _, c := range cases {
		got := ClassifyDetachRefusal(c.reply)
		if got != c.want || got.Fallback() != c.fallback || got.Warn() != c.warn {
			t.Errorf("%q: %v fallback %v warn %v, want %v %v %v", c.reply, got, got.Fallback(), got.Warn(), c.want, c.fallback, c.warn)
		}
	}
}

// Every answering member but the recorded primary is detached; one silent
// for down_after, or not answering, is not.
func TestDetachTargets(t *testing.T) {
	now := time.Unix(2000, 500)
	d := time.Second
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc, md}}
	old := status("slave", 5)
	old.At = now.Add(-d)
	cases := []struct {
		name string
		st   map[string]Status
		want []Member
	}{
		{"both replicas answer", map[string]Status{ma.Address: status("master", 9), mb.Address: status("slave", 5), mc.Address: status("slave", 3)}, []Member{mb, mc}},
		{"one does not answer", map[string]Status{mb.Address: {Err: "i/o timeout"}, mc.Address: status("slave", 3)}, []Member{mc}},
		{"one last heard down_after ago", map[string]Status{mb.Address: old, mc.Address: status("slave", 3)}, []Member{mc}},
		{"one never pinged", map[string]Status{mc.Address: status("slave", 3), md.Address: status("slave", 1)}, []Member{mc, md}},
		{"none", map[string]Status{ma.Address: status("master", 9)}, nil},
	}
	for _, c := range cases {
		got := DetachTargets(rec, c.st, now, d, "")
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
	}
}

// The promoted replica covers every other detached one on every shard; it
// need not be the one that held the most history before it was detached.
func TestChooseDetached(t *testing.T) {
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc, md}}
	loading := detachedStatus(50)
	loading.Shards[0].Syncing = true
	cases := []struct {
		name      string
		detached  map[string]Status
		committed []uint64
		unclean   bool
		want      Member
		covers    bool
		short     string // a part of Short
		none      bool
	}{
		{"the further one", map[string]Status{mb.Address: detachedStatus(10), mc.Address: detachedStatus(12)}, nil, false, mc, true, "", false},
		{"equal: listed first", map[string]Status{mb.Address: detachedStatus(12), mc.Address: detachedStatus(12)}, nil, false, mb, true, "", false},
		{"covers on both shards", map[string]Status{mb.Address: detachedStatus(10, 7), mc.Address: detachedStatus(10, 8)}, nil, false, mc, true, "", false},
		{"more history but short on one shard: none covers, most history wins", map[string]Status{mb.Address: detachedStatus(20, 3), mc.Address: detachedStatus(10, 8)}, nil, false, mb, false, "shard 1: records 3-7 held by c:6379", false},
		{"covering beats more history", map[string]Status{mb.Address: detachedStatus(20, 3), mc.Address: detachedStatus(20, 3), md.Address: detachedStatus(20, 4)}, nil, false, md, true, "", false},
		{"the old primary is never chosen", map[string]Status{ma.Address: detachedStatus(99), mb.Address: detachedStatus(5)}, nil, false, mb, true, "", false},
		{"a loading one is never chosen, and what it holds still counts", map[string]Status{mb.Address: loading, mc.Address: detachedStatus(12)}, nil, false, mc, false, "records 12-49 held by b:6379", false},
		{"lacking committed records", map[string]Status{mb.Address: detachedStatus(10)}, []uint64{11}, false, Member{}, false, "", true},
		{"lacking committed records, unclean", map[string]Status{mb.Address: detachedStatus(10)}, []uint64{11}, true, mb, true, "", false},
		{"only the one holding the committed records", map[string]Status{mb.Address: detachedStatus(10), mc.Address: detachedStatus(12)}, []uint64{11}, false, mc, true, "", false},
		{"a member that does not answer is not detached", map[string]Status{mb.Address: {Err: "i/o timeout"}}, nil, false, Member{}, false, "", true},
		{"nothing detached", nil, nil, false, Member{}, false, "", true},
	}
	for _, c := range cases {
		got, ok := ChooseDetached(rec, c.detached, c.committed, c.unclean)
		if ok == c.none {
			t.Errorf("%s: ok %v", c.name, ok)
			continue
		}
		if !ok {
			continue
		}
		if got.Member != c.want || got.Covers != c.covers || (c.short == "") != (got.Short == "") || !strings.Contains(got.Short, c.short) {
			t.Errorf("%s: %+v, want %v covers %v short %q", c.name, got, c.want.Address, c.covers, c.short)
		}
	}
}

// The candidate is detached last, after every other reachable replica.
func TestDetachTargetsPutTheCandidateLast(t *testing.T) {
	now := time.Unix(2000, 500)
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc, md}}
	st := map[string]Status{mb.Address: status("slave", 5), mc.Address: status("slave", 3), md.Address: status("slave", 1)}
	cases := []struct {
		candidate string
		want      []Member
	}{
		{mb.Address, []Member{mc, md, mb}},
		{mc.Address, []Member{mb, md, mc}},
		{md.Address, []Member{mb, mc, md}},
		{"", []Member{mb, mc, md}},
		{"e:6379", []Member{mb, mc, md}}, // not a member: nothing moves
	}
	for _, c := range cases {
		got := DetachTargets(rec, st, now, time.Second, c.candidate)
		if len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] || got[2] != c.want[2] {
			t.Errorf("candidate %q: %v, want %v", c.candidate, got, c.want)
		}
	}
}

// The wait for the candidate ends early only when every shard it lags on
// has lost its link to the old primary.
func TestCatchUpBlocked(t *testing.T) {
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc, md}}
	following := func(up []bool, last ...uint64) Status {
		s := detachedStatus(last...)
		for i := range s.Shards {
			s.Shards[i].Role, s.Shards[i].LinkUp = "slave", up[i]
		}
		return s
	}
	down, up := false, true
	cases := []struct {
		name     string
		s        Status
		detached map[string]Status
		want     bool
	}{
		{"behind, link down", following([]bool{down}, 9), map[string]Status{mc.Address: detachedStatus(11)}, true},
		{"behind, link up: the primary may still stream", following([]bool{up}, 9), map[string]Status{mc.Address: detachedStatus(11)}, false},
		{"level, link down: nothing to wait for anyway", following([]bool{down}, 10), map[string]Status{mc.Address: detachedStatus(10)}, false},
		{"behind on shard 1 (down), shard 0 up and level", following([]bool{up, down}, 20, 2), map[string]Status{mc.Address: detachedStatus(11, 5)}, true},
		{"behind on both, shard 0 still up", following([]bool{up, down}, 5, 2), map[string]Status{mc.Address: detachedStatus(11, 5)}, false},
		{"behind the second detached one, link down", following([]bool{down}, 20), map[string]Status{mc.Address: detachedStatus(11), md.Address: detachedStatus(30)}, true},
		{"the candidate's ping not answered", Status{Err: "i/o timeout"}, map[string]Status{mc.Address: detachedStatus(4)}, false},
		{"a detached one that did not answer counts for nothing", following([]bool{down}, 1), map[string]Status{mc.Address: {Err: "i/o timeout"}}, false},
	}
	for _, c := range cases {
		if got := CatchUpBlocked(c.s, rec, c.detached); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A replica still streaming has caught up with a detached one once it
// holds the detached one's records before its fork record, on every shard.
func TestCatchUpShort(t *testing.T) {
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc, md}}
	streaming := func(last ...uint64) Status {
		s := detachedStatus(last...)
		for i := range s.Shards {
			s.Shards[i].Role = "slave"
		}
		return s
	}
	cases := []struct {
		name     string
		s        Status
		detached map[string]Status
		short    string // a part of the answer; "" for none
	}{
		{"level with the fork record left out", streaming(10), map[string]Status{mc.Address: detachedStatus(11)}, ""},
		{"ahead", streaming(20, 9), map[string]Status{mc.Address: detachedStatus(11, 3)}, ""},
		{"one behind", streaming(9), map[string]Status{mc.Address: detachedStatus(11)}, "shard 0: records 10-10 held by c:6379"},
		{"behind on the second shard only", streaming(20, 2), map[string]Status{mc.Address: detachedStatus(11, 5)}, "shard 1: records 3-4 held by c:6379"},
		{"behind the second of two", streaming(20), map[string]Status{mc.Address: detachedStatus(11), md.Address: detachedStatus(30)}, "records 21-29 held by d:6379"},
		{"a detached one that did not answer its ping counts for nothing", streaming(1), map[string]Status{mc.Address: {Err: "i/o timeout"}}, ""},
		{"nothing received anywhere", streaming(0), map[string]Status{mc.Address: detachedStatus(1)}, ""},
		{"the streaming one not answering is short", Status{Err: "i/o timeout"}, map[string]Status{mc.Address: detachedStatus(4)}, "records 1-3"},
	}
	for _, c := range cases {
		got := CatchUpShort(c.s, rec, c.detached)
		if (c.short == "") != (got == "") || !strings.Contains(got, c.short) {
			t.Errorf("%s: %q, want %q", c.name, got, c.short)
		}
	}
}
