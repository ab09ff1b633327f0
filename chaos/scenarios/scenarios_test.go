package scenarios

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos"
	"github.com/ruvio/ruvio/nemesis"
)

func TestEveryTopologyIsValid(t *testing.T) {
	for _, sc := range All() {
		if err := sc.Topology.CheckReplication(); err != nil {
			t.Errorf("%s: %v", sc.Name, err)
		}
		if sc.ClientsOnPrimary && sc.Topology.Primary() == "" {
			t.Errorf("%s sends clients to the primary of a topology that has none", sc.Name)
		}
		for _, f := range sc.Figures {
			if f.ID == "" || f.Value == nil {
				t.Errorf("%s: figure %+v cannot be read", sc.Name, f)
			}
		}
	}
}

// replica-flap faults the replicas only, each both ways, never two at
// once, within the run.
func TestReplicaFlapFaultsOnlyReplicas(t *testing.T) {
	sc, _ := Get("replica-flap")
	for seed := uint64(1); seed <= 20; seed++ {
		d := sc.Duration
		steps := sc.Schedule(rand.New(rand.NewPCG(seed, 1)), d)
		seen := map[string]bool{}
		for i, st := range steps {
			if sc.Topology.ReplicationRole(st.Target) != chaos.RoleReplica {
				t.Fatalf("seed %d: step %+v is not on a replica", seed, st)
			}
			if st.At+st.For > d || i > 0 && st.At < steps[i-1].At+steps[i-1].For {
				t.Fatalf("seed %d: step %d %+v overlaps or runs past %v", seed, i, st, d)
			}
			seen[st.Kind+" "+st.Target] = true
		}
		for _, want := range []string{"kill n2", "kill n3", "pause n2", "pause n3"} {
			if !seen[want] {
				t.Fatalf("seed %d: no %s in %+v", seed, want, steps)
			}
		}
	}
}

// failover-manual kills the primary once, and the old primary is back
// with load still running.
func TestFailoverManualKillsThePrimaryOnce(t *testing.T) {
	sc, _ := Get("failover-manual")
	for _, d := range []time.Duration{6 * time.Second, sc.Duration} {
		steps := sc.Schedule(rand.New(rand.NewPCG(1, 1)), d)
		if len(steps) != 1 || steps[0].Kind != nemesis.Kill || steps[0].Target != sc.Topology.Primary() {
			t.Fatalf("%v: steps %+v", d, steps)
		}
		if end := steps[0].At + steps[0].For; end > d*3/4 || steps[0].At < d/4 {
			t.Fatalf("%v: the kill window %v-%v leaves too little load before or after", d, steps[0].At, end)
		}
	}
	if !sc.AcceptLoss || sc.Expect.MaxLost != nil || !sc.Expect.RequireConverged {
		t.Fatalf("failover-manual must tolerate loss and require convergence: %+v", sc.Expect)
	}
}
