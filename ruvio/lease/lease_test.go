package lease

import (
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"
)

const ms = time.Millisecond

var three = Policy{Coordinators: []int{1, 2, 3}}

func grant(c int, epoch uint64, start, length time.Duration) Grant {
	return Grant{Coordinator: c, Voters: 3, Epoch: epoch, Start: start, Length: length}
}

// Grants, epochs, majorities and the margin.
func TestTable(t *testing.T) {
	var tb Table
	if st := tb.Check(0); st.Holds {
		t.Fatal("no grants: a writer must refuse")
	}
	tb.Apply(grant(1, 5, 0, 2000*ms), 10*ms, false, three)
	if st := tb.Check(100 * ms); st.Holds || st.Grants != 1 {
		t.Fatalf("one of three: %+v", st)
	}
	tb.Apply(grant(2, 5, 200*ms, 2000*ms), 250*ms, false, three)
	st := tb.Check(300 * ms)
	if !st.Holds || st.Grants != 2 || st.Remaining != 1700*ms {
		t.Fatalf("two of three: %+v", st)
	}
	// The majority's grants must run for more than 300 ms more.
	if st := tb.Check(1700 * ms); st.Holds || st.Remaining != 300*ms {
		t.Fatalf("at the margin: %+v", st)
	}
	if err := tb.Apply(grant(3, 4, 300*ms, 2000*ms), 350*ms, false, three); !errors.Is(err, ErrOlderEpoch) {
		t.Fatalf("older epoch while a newer grant runs: %v", err)
	}
	if err := tb.Apply(grant(3, 6, 400*ms, 2000*ms), 450*ms, false, three); err != nil {
		t.Fatal(err)
	}
	if st := tb.Check(500 * ms); st.Holds || st.Grants != 1 {
		t.Fatalf("a newer epoch drops the older grants: %+v", st)
	}
	// Once every grant ended, an older epoch is taken again.
	if err := tb.Apply(grant(1, 1, 5000*ms, 2000*ms), 5000*ms, false, three); err != nil {
		t.Fatalf("older epoch after the grants ended: %v", err)
	}
	if err := tb.Apply(grant(1, 9, 0, 2000*ms), 0, true, three); !errors.Is(err, ErrReplica) {
		t.Fatalf("a replica: %v", err)
	}
	for _, g := range []Grant{
		{Coordinator: 4, Voters: 3, Epoch: 9, Length: time.Second},
		{Coordinator: 1, Voters: 5, Epoch: 9, Length: time.Second},
		{Coordinator: 1, Voters: 300, Epoch: 9, Length: time.Second},
	} {
		if err := tb.Apply(g, 0, false, three); err == nil {
			t.Errorf("%+v accepted", g)
		}
	}
}

// The majority counts against the largest voters count a running grant of
// the current epoch names.
func TestMajorityOfLargestVoters(t *testing.T) {
	var tb Table
	five := Policy{Coordinators: []int{1, 2, 3, 4, 5}}
	for c := 1; c <= 2; c++ {
		g := grant(c, 1, 0, 2000*ms)
		g.Voters = 5
		if err := tb.Apply(g, 0, false, five); err != nil {
			t.Fatal(err)
		}
	}
	if tb.Check(0).Holds {
		t.Fatal("two of five")
	}
	g := grant(3, 1, 0, 2000*ms)
	g.Voters = 5
	tb.Apply(g, 0, false, five)
	if !tb.Check(0).Holds {
		t.Fatal("three of five")
	}
}

func TestStretched(t *testing.T) {
	if got := Stretched(2000*ms, 10); got != 2645*ms {
		t.Fatalf("Stretched(2000, 10) = %v", got)
	}
	if got := Stretched(1000*ms, 0); got != 1200*ms {
		t.Fatalf("Stretched(1000, 0) = %v", got)
	}
}

// The safety inequality: for clock rates within the drift
// bound and any message delays, a node's grant always ends (in real time)
// before the coordinator that granted it reports it ended. The coordinator
// measures the grant's age from when BEGIN's answer arrived, which is no
// earlier than the node's BEGIN instant, on its own clock.
func TestLeaseEndsBeforeTheCoordinatorSaysSo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		drift := rapid.IntRange(0, 50).Draw(t, "drift")
		lease := time.Duration(rapid.IntRange(100, 60000).Draw(t, "lease_ms")) * ms
		bound := float64(drift) / 100
		rateNode := 1 + (rapid.Float64Range(-1, 1).Draw(t, "node")*bound)*0.999999
		rateCoord := 1 + (rapid.Float64Range(-1, 1).Draw(t, "coord")*bound)*0.999999
		// Real times, in seconds: BEGIN sent, noted by the node, answer back.
		sent := rapid.Float64Range(0, 100).Draw(t, "sent")
		noted := sent + rapid.Float64Range(0, 5).Draw(t, "to node")
		answered := noted + rapid.Float64Range(0, 5).Draw(t, "back")
		// The node's lease clock advances rateNode per real second.
		nodeEnd := noted + lease.Seconds()/rateNode
		// The coordinator reports ended once its clock measured the
		// stretched lease from the answer.
		coordEnded := answered + Stretched(lease, drift).Seconds()/rateCoord
		if nodeEnd >= coordEnded {
			t.Fatalf("node lease ends at %.6f s, coordinator reports it ended at %.6f s (rates %.4f/%.4f, drift %d%%)",
				nodeEnd, coordEnded, rateNode, rateCoord, drift)
		}
	})
}
