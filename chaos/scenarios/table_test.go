package scenarios

import (
	"fmt"
	"testing"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/coordinator"
	"github.com/ruvio/ruvio/nemesis"
)

// Every cell of every system is a valid scenario a backend can lay out,
// which `chaos analyze` and `gate` find again by its name.
func TestCellsAreScenarios(t *testing.T) {
	n := 0
	for _, sys := range Systems {
		for _, shape := range nemesis.TableShapes {
			if !sys.Runs(shape) {
				continue
			}
			for _, p := range sys.Protections() {
				sc := Cell(sys, shape, p, Timing{})
				n++
				if err := sc.Topology.CheckReplication(); err != nil {
					t.Fatalf("%s: %v", sc.Name, err)
				}
				if err := sc.Topology.CheckCoordinators(); err != nil {
					t.Fatalf("%s: %v", sc.Name, err)
				}
				got, ok := Get(sc.Name)
				if !ok || got.Name != sc.Name || (got.Expect.MaxLost == nil) != (sc.Expect.MaxLost == nil) {
					t.Fatalf("Get(%s) = %v", sc.Name, ok)
				}
				if _, listed := registry[sc.Name]; listed {
					t.Fatalf("%s is in the registry", sc.Name)
				}
			}
		}
	}
	if n != 7*9+5*8 {
		t.Fatalf("%d cells", n)
	}
	if _, ok := Get("table.ruvio.kill.nothing"); ok {
		t.Fatal("an unknown protection resolves")
	}
}

// The ruvio lease fits the coordinators' rule at the table's settings:
// the topology is checked by the coordinator's own Validate.
func TestRuvioLeaseCellValidates(t *testing.T) {
	topo := Ruvio{}.Topology(Protection{Name: "lease", Lease: true}, DefaultTiming)
	if _, err := topo.CoordinatorTOML("c1", coordinatorLayout(topo)); err != nil {
		t.Fatal(err)
	}
}

// What the documentation promises, cell by cell, for the rows the
// narrative names.
func TestRuvioPromises(t *testing.T) {
	prot := map[string]Protection{}
	for _, p := range (Ruvio{}).Protections() {
		prot[p.Name] = p
	}
	cases := []struct {
		shape nemesis.Shape
		prot  string
		want  string
	}{
		{nemesis.ShapeKill, "none", "loses writes"},
		{nemesis.ShapeWithReplica, "replicas1", "loses writes"},
		{nemesis.ShapeWithDurableReplica, "replicas1", "0 lost"},
		{nemesis.ShapeWithReplica, "replicas-r", "0 lost"},
		{nemesis.ShapeWithReplica, "mr1", "loses writes"},
		{nemesis.ShapeWithReplica, "mr-r", "acks end <= 2100 ms after the fault (min-replicas-max-lag + 0.1 s)"},
		{nemesis.ShapeFromCoordinators, "mr1", "acks end <= 2100 ms after the promotion (min-replicas-max-lag + 0.1 s)"},
		{nemesis.ShapeIsolated, "lease", "no ack after promotion; acks end <= 900 ms after the fault (L + 0.1 s)"},
		{nemesis.ShapePause, "lease", "loses writes"},
		{nemesis.ShapeLeaderCut, "none", "0 lost"},
		{nemesis.ShapeLeaderCut, "lease", "0 lost"},
		{nemesis.ShapeSlow, "lease+replicas-r", "0 lost; no ack after promotion"},
	}
	for _, c := range cases {
		if got := (Ruvio{}).Promise(c.shape, prot[c.prot], DefaultTiming).String(); got != c.want {
			t.Errorf("%s / %s: %q, want %q", c.shape.Name, c.prot, got, c.want)
		}
	}
	e := (Ruvio{}).Promise(nemesis.ShapeIsolated, prot["lease"], DefaultTiming).Expect()
	if e.Lease == nil || *e.Lease.MaxAcksAfterPromotion != 0 || *e.Lease.MaxOldAckInFaultMs != 900 || e.MaxLost != nil {
		t.Fatalf("expectations %+v", e)
	}
}

func coordinatorLayout(topo topology.Topology) topology.CoordinatorLayout {
	l := topology.CoordinatorLayout{Listen: "127.0.0.5:7000", DataDir: "/tmp/unused", Secret: "s",
		Peers:   map[string]string{"c1": "127.0.0.5:7000", "c2": "127.0.0.1:9001", "c3": "127.0.0.1:9002"},
		Members: map[string]coordinator.Member{}}
	for i, n := range topo.DataNodes() {
		l.Members[n] = coordinator.Member{Address: fmt.Sprintf("127.0.0.1:80%02d", i), Replication: fmt.Sprintf("127.0.0.1:90%02d", i)}
	}
	return l
}
