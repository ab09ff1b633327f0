package repl

import (
	"testing"

	"pgregory.net/rapid"
)

func TestDecide(t *testing.T) {
	// The primary was a replica through epoch 1 (records 1-100), was
	// promoted and wrote epoch 2 from 101 to 150.
	p := Primary{History: []EpochStart{{1, 1}, {2, 101}}, Last: Position{2, 150}, OldestLogged: 1}
	one := []EpochStart{{1, 1}}
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
		{"replica of an epoch the primary never had", p, Replica{[]EpochStart{{3, 1}}, 10}, false, 0},
		{"same epoch number forked elsewhere", p, Replica{[]EpochStart{{1, 1}, {2, 91}}, 95}, false, 0},
		{"log before the replica's next record dropped", Primary{History: p.History, Last: p.Last, OldestLogged: 90}, Replica{one, 60}, false, 0},
		{"log dropped but replica continues where it starts", Primary{History: p.History, Last: p.Last, OldestLogged: 61}, Replica{one, 60}, true, 61},
		{"empty primary", Primary{History: one, OldestLogged: 1}, Replica{one, 0}, true, 1},
		{"fresh primary in a new epoch, fresh replica", Primary{History: []EpochStart{{2, 1}}, OldestLogged: 1}, Replica{one, 0}, true, 1},
	}
	for _, c := range cases {
		got := Decide(c.p, c.r)
		if got.Continue != c.cont || got.From != c.from || got.Reason == "" {
			t.Errorf("%s: %+v", c.name, got)
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
		{[]EpochStart{{1, 1}}, 50, []EpochStart{{1, 1}}, 80, 50},
		{[]EpochStart{{1, 1}, {2, 101}}, 150, []EpochStart{{1, 1}}, 120, 100},
		{[]EpochStart{{1, 1}, {2, 101}}, 150, []EpochStart{{1, 1}, {3, 91}}, 95, 90},
		{[]EpochStart{{1, 1}, {2, 101}}, 150, []EpochStart{{1, 1}, {2, 101}}, 130, 130},
		{nil, 0, []EpochStart{{1, 1}}, 10, 0},
	}
	for _, c := range cases {
		if got := ForkPoint(c.a, c.aLast, c.b, c.bLast); got != c.want {
			t.Errorf("ForkPoint(%v@%d, %v@%d) = %d, want %d", c.a, c.aLast, c.b, c.bLast, got, c.want)
		}
	}
}

// history derives a log's epoch history from the epoch of each record.
func history(log []uint64) []EpochStart {
	var h []EpochStart
	for i, e := range log {
		if len(h) == 0 || h[len(h)-1].Epoch != e {
			h = append(h, EpochStart{Epoch: e, FirstSeq: uint64(i + 1)})
		}
	}
	return h
}

// Property: on logs built as a shared prefix and then independent writes
// in fresh epochs, Decide continues exactly when the replica's log is a
// prefix of the primary's, and ForkPoint is the length of the common
// prefix.
func TestDecideMatchesPrefixModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var shared []uint64
		epoch := uint64(1)
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "shared"); i < n; i++ {
			if rapid.IntRange(0, 9).Draw(t, "bump") == 0 {
				epoch++
			}
			shared = append(shared, epoch)
		}
		grow := func(label string, from uint64) []uint64 {
			out := append([]uint64(nil), shared...)
			e := from
			for i, n := 0, rapid.IntRange(0, 20).Draw(t, label); i < n; i++ {
				out = append(out, e)
			}
			return out
		}
		// The primary forked epoch+1; the replica either wrote nothing
		// more, or wrote in its own epoch+2 (e.g. an old primary that went
		// on), or kept writing in the shared epoch.
		primary := grow("primary", epoch+1)
		var replica []uint64
		switch rapid.IntRange(0, 2).Draw(t, "replicaKind") {
		case 0:
			replica = shared[:rapid.IntRange(0, len(shared)).Draw(t, "cut")]
		case 1:
			replica = grow("replicaOwn", epoch+2)
		default:
			replica = grow("replicaSame", epoch)
		}
		common := 0
		for common < len(primary) && common < len(replica) && primary[common] == replica[common] {
			common++
		}
		isPrefix := common == len(replica)
		var plast Position
		if len(primary) > 0 {
			plast = Position{Epoch: primary[len(primary)-1], Seq: uint64(len(primary))}
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
