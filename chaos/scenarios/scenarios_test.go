package scenarios

import (
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
)

func TestEveryTopologyIsValid(t *testing.T) {
	figureOf := map[string]string{} // docs/figures.md has one row per ID
	for _, sc := range All() {
		if err := errors.Join(sc.Topology.CheckReplication(), sc.Topology.CheckCoordinators()); err != nil {
			t.Errorf("%s: %v", sc.Name, err)
		}
		for _, w := range sc.Workloads {
			if w.Node != "" && sc.Topology.ReplicationRole(w.Node) == "" {
				t.Errorf("%s pins a workload to %q, no data node of its group", sc.Name, w.Node)
			}
		}
		if sc.ClientsOnPrimary && sc.Topology.Primary() == "" {
			t.Errorf("%s sends clients to the primary of a topology that has none", sc.Name)
		}
		for _, f := range sc.Figures {
			if f.ID == "" || f.Value == nil {
				t.Errorf("%s: figure %+v cannot be read", sc.Name, f)
			}
			if other, ok := figureOf[f.ID]; ok {
				t.Errorf("figure %s is both %s's and %s's", f.ID, other, sc.Name)
			}
			figureOf[f.ID] = sc.Name
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
			if sc.Topology.ReplicationRole(st.Target) != topology.RoleReplica {
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

// The coordinator scenarios' schedules say what their notes promise at
// the default length: a 30 s freeze, a hold of at least 30 s after the
// failover, the primary back before the coordinators in minority, and
// FORCE while the cut lasts.
func TestCoordinatorSchedules(t *testing.T) {
	steps := func(name string) ([]nemesis.Step, Scenario) {
		sc, ok := Get(name)
		if !ok {
			t.Fatalf("no scenario %s", name)
		}
		if len(sc.Topology.Coordinators()) == 0 && name != "durable-manual" {
			t.Fatalf("%s runs no coordinators", name)
		}
		return sc.Schedule(rand.New(rand.NewPCG(1, 1)), sc.Duration), sc
	}
	if st, _ := steps("stall"); len(st) != 1 || st[0].Kind != nemesis.Pause || st[0].For != 30*time.Second {
		t.Errorf("stall: %+v", st)
	}
	st, sc := steps("coord-partition")
	if len(st) != 2 || st[0].Kind != nemesis.Partition || st[1].Kind != nemesis.Kill || st[1].Target != "n1" ||
		sc.Duration-st[1].At-2*time.Second < 30*time.Second || st[0].At+st[0].For < st[1].At+st[1].For {
		t.Errorf("coord-partition leaves no 30 s hold under the partition: %+v", st)
	}
	st, _ = steps("minority")
	if len(st) != 3 || st[0].Target != nemesis.Follower || st[1].Target != nemesis.Leader ||
		st[2].At+st[2].For >= st[0].At+st[0].For || st[2].At <= st[0].At {
		t.Errorf("minority: %+v", st)
	}
	st, _ = steps("durable-partition")
	if len(st) != 3 || st[2].Kind != nemesis.Force || st[2].At <= st[1].At || st[2].At >= st[1].At+st[1].For {
		t.Errorf("durable-partition does not FORCE during the cut: %+v", st)
	}
	if st, _ := steps("leader"); len(st) != 2 || st[0].Target != nemesis.Leader || st[1].Target != "n1" || st[0].At != st[1].At {
		t.Errorf("leader: %+v", st)
	}
}

// machine-stall freezes every process of its topology at one instant for
// longer than down_after_ms, and resumes the primary last, within
// down_after_ms of the coordinators: a coordinator that counted its own
// frozen time as silence would then find the primary down while the
// replicas answer.
func TestMachineStallFreezesEveryProcessAndResumesThePrimaryLast(t *testing.T) {
	sc, ok := Get("machine-stall")
	if !ok {
		t.Fatal("no scenario machine-stall")
	}
	downAfter := time.Duration(sc.Topology.DownAfterMs()) * time.Millisecond
	for _, d := range []time.Duration{sc.Duration, 6 * time.Second} {
		steps := sc.Schedule(rand.New(rand.NewPCG(1, 1)), d)
		ends := map[string]time.Duration{}
		for _, st := range steps {
			if st.Kind != nemesis.Pause || st.At != steps[0].At || st.For <= 2*downAfter {
				t.Fatalf("duration %v: %+v is not a pause of more than twice down_after_ms at the first step's instant", d, st)
			}
			ends[st.Target] = st.At + st.For
		}
		if len(ends) != len(sc.Topology.Nodes) {
			t.Fatalf("duration %v: pauses %v, want every one of %d processes", d, ends, len(sc.Topology.Nodes))
		}
		last := ends["n1"]
		for name, end := range ends {
			if name != "n1" && end >= last {
				t.Errorf("duration %v: %s resumes at %v, not before the primary (%v)", d, name, end, last)
			}
		}
		for _, c := range sc.Topology.Coordinators() {
			if last-ends[c] >= downAfter || ends[c] <= ends["n2"] {
				t.Errorf("duration %v: coordinator %s resumes at %v: want after the replicas (%v) and within down_after_ms of the primary (%v)",
					d, c, ends[c], ends["n2"], last)
			}
		}
		if last > d {
			t.Errorf("duration %v: the primary resumes at %v, after the run's end", d, last)
		}
	}
}

// The nightly workflow runs every scenario of the registry, and only
// those (its matrix is a list typed by hand).
func TestNightlyRunsEveryScenario(t *testing.T) {
	b, err := os.ReadFile("../../.github/workflows/nightly.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, list, found := strings.Cut(string(b), "scenario: [")
	list, _, closed := strings.Cut(list, "]")
	if !found || !closed {
		t.Fatal("nightly.yml: no matrix of scenarios")
	}
	var listed []string
	for _, name := range strings.Split(list, ",") {
		listed = append(listed, strings.TrimSpace(name))
	}
	var registry []string
	for _, sc := range All() {
		registry = append(registry, sc.Name)
	}
	slices.Sort(listed)
	slices.Sort(registry)
	if !slices.Equal(listed, registry) {
		t.Errorf("nightly.yml runs %v\nthe registry holds %v", listed, registry)
	}
}
