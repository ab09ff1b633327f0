package repl

import (
	"testing"

	"pgregory.net/rapid"
)

func TestDecide(t *testing.T) {
	// The primary was a replica through epoch 1 (records 1-100), was
	// promoted and wrote epoch 2 from 101 to 150.
	p := Primary{History: []EpochStart{{1, 1, 0}, {2, 101, 0}}, Last: Position{2, 150}, OldestLogged: 1}
	one := []EpochStart{{1, 1, 0}}
	cases := []struct {
		name string
		p    Primary
		r    Replica
		cont bool
		from uint64
	}{
		{"empty replica, whole log kept", p, Replica{one, 0}, true, 1},
		{"replica behind in the old epoch", p, Replica{one, 60}, true, 61},
		{"old primary that wrote nothing after the fork", p, Replica{one, 100}, true, 101},
		{"old primary that wrote after the fork", p, Replica{one, 120}, false, 0},
		{"replica of the new epoch, behind", p, Replica{p.History, 140}, true, 141},
		{"replica up to date", p, Replica{p.History, 150}, true, 151},
		{"replica ahead of the primary in its epoch", p, Replica{p.History, 160}, false, 0},
		{"replica of an epoch the primary never had", p, Replica{[]EpochStart{{3, 1, 0}}, 10}, false, 0},
		{"same epoch number forked elsewhere", p, Replica{[]EpochStart{{1, 1, 0}, {2, 91, 0}}, 95}, false, 0},
		{"log before the replica's next record dropped", Primary{History: p.History, Last: p.Last, OldestLogged: 90}, Replica{one, 60}, false, 0},
		{"log dropped but replica continues where it starts", Primary{History: p.History, Last: p.Last, OldestLogged: 61}, Replica{one, 60}, true, 61},
		{"empty primary", Primary{History: one, OldestLogged: 1}, Replica{one, 0}, true, 1},
		// The primary restarted with records 131-150 lost and wrote
		// 131-160 again under a new ID: the replica holds records the
		// primary lost (Behind), neither continued nor copied.
		{"replica holding records a restart lost", Primary{History: []EpochStart{{1, 1, 0}, {2, 101, 0}, {2, 131, 7}}, Last: Position{2, 160}, OldestLogged: 1}, Replica{p.History, 150}, false, 0},
		{"replica behind the restart", Primary{History: []EpochStart{{1, 1, 0}, {2, 101, 0}, {2, 131, 7}}, Last: Position{2, 160}, OldestLogged: 1}, Replica{p.History, 130}, true, 131},
		{"two forks of the same epoch at the same sequence", p, Replica{[]EpochStart{{1, 1, 0}, {2, 101, 9}}, 120}, false, 0},
		{"a memory primary restarted empty", Primary{History: []EpochStart{{1, 1, 5}}, Last: Position{1, 80}, OldestLogged: 1}, Replica{[]EpochStart{{1, 1, 4}}, 60}, false, 0},
		{"fresh primary in a new epoch, fresh replica", Primary{History: []EpochStart{{2, 1, 0}}, OldestLogged: 1}, Replica{one, 0}, true, 1},
	}
	for _, c := range cases {
		got := Decide(c.p, c.r)
		if got.Continue != c.cont || got.From != c.from || got.Reason == "" {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
}

// Behind counts the replica's records the primary lost in a restart, and
// nothing when the replica's extra records are its own or an older
// epoch's that the primary forked away from.
func TestBehind(t *testing.T) {
	h := []EpochStart{{1, 1, 3}, {2, 101, 4}}
	cases := []struct {
		name string
		p    Primary
		r    Replica
		want uint64
	}{
		{"restarted, nothing written since", Primary{History: h, Last: Position{2, 120}}, Replica{h, 150}, 30},
		{"restarted and wrote under a restart mark", Primary{History: append(h[:2:2], EpochStart{2, 121, 9}), Last: Position{2, 200}}, Replica{h, 150}, 30},
		{"restarted from a snapshot at 40", Primary{History: []EpochStart{{1, 1, 3}}, Last: Position{1, 40}}, Replica{[]EpochStart{{1, 1, 3}}, 60}, 20},
		// A memory primary remembers nothing of its history: it cannot be
		// told from a new primary, and the replica takes a full copy.
		{"memory, restarted empty", Primary{History: []EpochStart{{1, 1, 0}}, Last: Position{1, 0}}, Replica{[]EpochStart{{1, 1, 3}}, 60}, 0},
		{"memory, restarted empty and wrote since", Primary{History: []EpochStart{{1, 1, 8}}, Last: Position{1, 40}}, Replica{[]EpochStart{{1, 1, 3}}, 60}, 0},
		{"a failover: the primary forked a newer epoch", Primary{History: append(h[:2:2], EpochStart{3, 121, 9}), Last: Position{3, 200}}, Replica{h, 150}, 0},
		{"the replica wrote in a stretch of its own", Primary{History: h, Last: Position{2, 150}}, Replica{append(h[:2:2], EpochStart{3, 141, 5}), 160}, 0},
		{"the replica is behind", Primary{History: h, Last: Position{2, 150}}, Replica{h, 120}, 0},
		{"up to date", Primary{History: h, Last: Position{2, 150}}, Replica{h, 150}, 0},
	}
	for _, c := range cases {
		if got := Behind(c.p, c.r); got != c.want {
			t.Errorf("%s: Behind = %d, want %d", c.name, got, c.want)
		}
		if plan := Decide(c.p, c.r); (plan.Lost > 0) != (c.want > 0) || (plan.Lost > 0 && plan.Continue) {
			t.Errorf("%s: Decide = %+v", c.name, plan)
		}
	}
}

func TestForgotten(t *testing.T) {
	old := []EpochStart{{1, 1, 3}, {2, 101, 4}}
	fresh := []EpochStart{{1, 1, 0}}
	cases := []struct {
		name string
		p    Primary
		r    Replica
		want uint64
	}{
		{"memory, restarted empty", Primary{History: fresh, Forgotten: []uint64{3, 4}}, Replica{old, 150}, 150},
		{"memory, restarted and wrote since", Primary{History: []EpochStart{{1, 1, 8}}, Last: Position{1, 40}, Forgotten: []uint64{3, 4}}, Replica{old, 150}, 150},
		{"only the older stretch noted", Primary{History: fresh, Forgotten: []uint64{3}}, Replica{old, 150}, 150},
		{"the replica holds nothing of the noted stretch", Primary{History: fresh, Forgotten: []uint64{4}}, Replica{old[:1], 100}, 0},
		{"nothing noted: a new primary", Primary{History: fresh}, Replica{old, 150}, 0},
		{"another primary's history", Primary{History: fresh, Forgotten: []uint64{7}}, Replica{old, 150}, 0},
		{"stretches without IDs never match", Primary{History: []EpochStart{{1, 1, 8}}, Last: Position{1, 40}, Forgotten: []uint64{0}}, Replica{[]EpochStart{{1, 1, 0}}, 50}, 0},
		{"the primary holds the stretch again (a full copy)", Primary{History: old, Last: Position{2, 150}, Forgotten: []uint64{3, 4}}, Replica{old, 150}, 0},
		{"an empty replica", Primary{History: fresh, Forgotten: []uint64{3}}, Replica{nil, 0}, 0},
	}
	for _, c := range cases {
		if got := Forgotten(c.p, c.r); got != c.want {
			t.Errorf("%s: Forgotten = %d, want %d", c.name, got, c.want)
		}
		if plan := Decide(c.p, c.r); plan.Lost != c.want || (plan.Lost > 0 && plan.Continue) {
			t.Errorf("%s: Decide = %+v", c.name, plan)
		}
	}
}

func TestForkPoint(t *testing.T) {
	cases := []struct {
		a     []EpochStart
		aLast uint64
		b     []EpochStart
		bLast uint64
		want  uint64
	}{
		{[]EpochStart{{1, 1, 0}}, 50, []EpochStart{{1, 1, 0}}, 80, 50},
		{[]EpochStart{{1, 1, 3}, {1, 41, 4}}, 50, []EpochStart{{1, 1, 3}}, 80, 40},
		{[]EpochStart{{1, 1, 3}, {1, 41, 4}}, 50, []EpochStart{{1, 1, 3}, {1, 41, 5}}, 80, 40},
		{[]EpochStart{{1, 1, 3}}, 50, []EpochStart{{1, 1, 4}}, 80, 0},
		{[]EpochStart{{1, 1, 0}, {2, 101, 0}}, 150, []EpochStart{{1, 1, 0}}, 120, 100},
		{[]EpochStart{{1, 1, 0}, {2, 101, 0}}, 150, []EpochStart{{1, 1, 0}, {3, 91, 0}}, 95, 90},
		{[]EpochStart{{1, 1, 0}, {2, 101, 0}}, 150, []EpochStart{{1, 1, 0}, {2, 101, 0}}, 130, 130},
		{nil, 0, []EpochStart{{1, 1, 0}}, 10, 0},
	}
	for _, c := range cases {
		if got := ForkPoint(c.a, c.aLast, c.b, c.bLast); got != c.want {
			t.Errorf("ForkPoint(%v@%d, %v@%d) = %d, want %d", c.a, c.aLast, c.b, c.bLast, got, c.want)
		}
	}
}

// stamp is the stretch of history a record was written in: its epoch
// and the ID drawn where the stretch began.
type stamp struct{ epoch, id uint64 }

// history derives a log's history from the stretch of each record.
func history(log []stamp) []EpochStart {
	var h []EpochStart
	for i, s := range log {
		if len(h) == 0 || h[len(h)-1].Epoch != s.epoch || h[len(h)-1].ID != s.id {
			h = append(h, EpochStart{Epoch: s.epoch, FirstSeq: uint64(i + 1), ID: s.id})
		}
	}
	return h
}

// Property: on logs built as a shared prefix and then independent writes,
// each side's in a stretch of its own (a fork to a new epoch, or a restart
// that goes on in the same epoch under a new ID) or in the shared last
// stretch, Decide continues exactly when the replica's log is a prefix of
// the primary's, and ForkPoint is the length of the common prefix.
func TestDecideMatchesPrefixModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var shared []stamp
		cur := stamp{1, 1}
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "shared"); i < n; i++ {
			switch rapid.IntRange(0, 9).Draw(t, "bump") {
			case 0:
				cur = stamp{cur.epoch + 1, cur.id + 1}
			case 1:
				cur = stamp{cur.epoch, cur.id + 1}
			}
			shared = append(shared, cur)
		}
		grow := func(label string, s stamp) []stamp {
			out := append([]stamp(nil), shared...)
			for i, n := 0, rapid.IntRange(0, 20).Draw(t, label); i < n; i++ {
				out = append(out, s)
			}
			return out
		}
		// The primary forked a new epoch or restarted (the same epoch, a
		// new ID); the replica either wrote nothing more, or wrote in a
		// stretch of its own (an old primary that went on, or one that
		// restarted), or kept writing in the shared stretch.
		next := cur.id + 1
		primary := grow("primary", stamp{cur.epoch + uint64(rapid.IntRange(0, 1).Draw(t, "primaryForks")), next})
		var replica []stamp
		switch rapid.IntRange(0, 3).Draw(t, "replicaKind") {
		case 0:
			replica = shared[:rapid.IntRange(0, len(shared)).Draw(t, "cut")]
		case 1:
			replica = grow("replicaOwn", stamp{cur.epoch + 2, next + 1})
		case 2:
			replica = grow("replicaRestarted", stamp{cur.epoch, next + 1})
		default:
			replica = grow("replicaSame", cur)
		}
		common := 0
		for common < len(primary) && common < len(replica) && primary[common] == replica[common] {
			common++
		}
		isPrefix := common == len(replica)
		var plast Position
		if len(primary) > 0 {
			plast = Position{Epoch: primary[len(primary)-1].epoch, Seq: uint64(len(primary))}
		}
		plan := Decide(Primary{History: history(primary), Last: plast, OldestLogged: 1}, Replica{history(replica), uint64(len(replica))})
		if plan.Continue != isPrefix {
			t.Fatalf("primary %v replica %v: continue=%v, prefix=%v (%s)", primary, replica, plan.Continue, isPrefix, plan.Reason)
		}
		if plan.Continue && plan.From != uint64(len(replica)+1) {
			t.Fatalf("continue from %d, want %d", plan.From, len(replica)+1)
		}
		if got := ForkPoint(history(primary), uint64(len(primary)), history(replica), uint64(len(replica))); got != uint64(common) {
			t.Fatalf("primary %v replica %v: fork %d, want %d", primary, replica, got, common)
		}
	})
}

func TestEpochFencing(t *testing.T) {
	if NextEpoch(3, 7, 5) != 8 || NextEpoch() != 1 {
		t.Fatal("NextEpoch")
	}
	if ReplicaSeesPrimary(5, 4, false) != RefuseOlderPrimary || ReplicaSeesPrimary(5, 4, true) != Accept ||
		ReplicaSeesPrimary(5, 5, false) != Accept || ReplicaSeesPrimary(5, 6, false) != Accept {
		t.Fatal("replica side")
	}
	if PrimarySeesReplica(4, 5, false) != StopWrites || PrimarySeesReplica(4, 5, true) != Accept ||
		PrimarySeesReplica(5, 5, false) != Accept || PrimarySeesReplica(5, 3, false) != Accept {
		t.Fatal("primary side")
	}
}
