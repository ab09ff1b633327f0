package scenarios

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/coordinator"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
)

// layout is a coordinator layout for the lease topology, enough for
// CoordinatorTOML to validate.
func layout(t *testing.T, topo topology.Topology) topology.CoordinatorLayout {
	l := topology.CoordinatorLayout{Listen: "127.0.0.1:7001", DataDir: t.TempDir(), Secret: "s",
		Peers: map[string]string{}, Members: map[string]coordinator.Member{}}
	for i, c := range topo.Coordinators() {
		l.Peers[c] = "127.0.0.1:" + strconv.Itoa(7001+i)
	}
	for i, n := range topo.DataNodes() {
		l.Members[n] = coordinator.Member{Address: "127.0.0.1:" + strconv.Itoa(8001+i), Replication: "127.0.0.1:" + strconv.Itoa(9001+i)}
	}
	return l
}

// The lease scenarios run the F6/F7 settings: ping 500, down
// 3000, and with the lease on primary_lease_ms 2000 at 10 % drift in
// every coordinator.toml, which the coordinator's own Validate accepts,
// and primary-lease yes with coordinators 1,2,3 on every data node.
func TestLeaseTopologies(t *testing.T) {
	for _, on := range []bool{false, true} {
		topo := leaseGroup(on)
		if err := topo.CheckCoordinators(); err != nil {
			t.Fatal(err)
		}
		b, err := topo.CoordinatorTOML("c2", layout(t, topo))
		if err != nil {
			t.Fatalf("lease %v: %v", on, err)
		}
		var cfg coordinator.Config
		if _, err := toml.Decode(string(b), &cfg); err != nil {
			t.Fatal(err)
		}
		wantLease := map[bool]int{false: 0, true: 2000}[on]
		if cfg.PingIntervalMs != 500 || cfg.DownAfterMs != 3000 || cfg.PrimaryLeaseMs != wantLease || cfg.PrimaryLeaseDriftPercent != 10 {
			t.Fatalf("lease %v: coordinator.toml %+v", on, cfg)
		}
		for _, n := range topo.Nodes {
			if n.Role == topology.RoleCoordinator {
				continue
			}
			got := n.Env["RUVIO_PRIMARY_LEASE"] == "yes" && n.Env["RUVIO_PRIMARY_LEASE_COORDINATORS"] == "1,2,3"
			if got != on || n.Env["RUVIO_MIN_REPLICAS_TO_WRITE"] != "1" {
				t.Fatalf("lease %v: %s env %v", on, n.Name, n.Env)
			}
		}
	}
}

// The split brain cuts every link between {n1, n2} and {n3, c1, c2, c3},
// both ways, and nothing else: the clients keep every node.
func TestSplitBrainShape(t *testing.T) {
	st := splitBrain(rand.New(rand.NewPCG(1, 1)), 20*time.Second)
	cut := map[topology.Link]bool{}
	for _, l := range st.Links {
		cut[l] = true
	}
	for _, a := range []string{"n1", "n2"} {
		for _, b := range []string{"n3", "c1", "c2", "c3"} {
			if !cut[topology.Link{From: a, To: b}] || !cut[topology.Link{From: b, To: a}] {
				t.Fatalf("%s <-> %s not cut: %v", a, b, st.Links)
			}
		}
	}
	if len(st.Links) != 16 || st.Kind != nemesis.Partition || st.At < 5*time.Second || st.At >= 5500*time.Millisecond ||
		st.For != 10*time.Second {
		t.Fatalf("step %+v", st)
	}
}

// Every lease scenario measures the lease; the gated ones demand no
// acknowledged write after the refusal or the promotion; the stall draws
// 1.5 - 2.5 s; the clock scenarios skew before the cut and reset after
// the heal.
func TestLeaseScenarios(t *testing.T) {
	for _, name := range []string{"lease-off", "lease-on", "lease-clock", "lease-clock-beyond", "lease-stall"} {
		sc, ok := Get(name)
		if !ok || !sc.Lease || !sc.AcceptLoss {
			t.Fatalf("%s: %+v", name, sc)
		}
		gated := name == "lease-on" || name == "lease-clock"
		if e := sc.Expect.Lease; gated != (e != nil && *e.MaxAcksAfterRefusal == 0 && *e.MaxAcksAfterPromotion == 0) ||
			gated != (sc.Expect.MaxTwoWriterMs != nil && *sc.Expect.MaxTwoWriterMs == 0) {
			t.Fatalf("%s: expectations %+v", name, sc.Expect)
		}
	}
	stall, _ := Get("lease-stall")
	seen := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 50; seed++ {
		steps := stall.Schedule(rand.New(rand.NewPCG(seed, 1)), stall.Duration)
		if len(steps) != 1 || steps[0].Kind != nemesis.Pause || steps[0].Target != "n1" ||
			steps[0].For < 1500*time.Millisecond || steps[0].For >= 2500*time.Millisecond {
			t.Fatalf("seed %d: %+v", seed, steps)
		}
		seen[steps[0].For] = true
	}
	if len(seen) < 10 {
		t.Fatalf("the stall hardly varies with the seed: %v", seen)
	}
	for _, name := range []string{"lease-clock", "lease-clock-beyond"} {
		sc, _ := Get(name)
		d := sc.Duration
		var cut nemesis.Step
		var clocks []nemesis.Step
		for _, st := range sc.Schedule(rand.New(rand.NewPCG(1, 1)), d) {
			if st.Kind == nemesis.Clock {
				clocks = append(clocks, st)
			} else {
				cut = st
			}
		}
		if cut.Kind != nemesis.Partition || len(clocks) == 0 || clocks[0].Target != "n1" {
			t.Fatalf("%s: clocks %+v cut %+v", name, clocks, cut)
		}
		for _, c := range clocks {
			if c.At >= cut.At || c.At+c.For <= cut.At+cut.For {
				t.Fatalf("%s: clock %+v does not cover the partition %+v", name, c, cut)
			}
		}
	}
}

// F6 and F7 read their numbers from a run's summary, and say so when the
// run has none.
func TestLeaseFigures(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	s := check.Summary{Lost: 104, TwoWriterMs: n(0), Lease: &check.LeaseResult{FirstRefusalMs: n(1561), PromotionMs: n(3346),
		PromotionAfterRefusalMs: n(1785), AcksAfterRefusal: 0, AcksAfterPromotion: 3, OldLastAckAfterPromotionMs: n(-1813)}}
	want := map[string]float64{"F6": 104, "F6w": 0, "F6o": -1813, "F6a": 3, "F7": 1561, "F7p": 3346, "F7r": 1785, "F7l": 104,
		"F7a": 0, "F7w": 0}
	seen := 0
	for _, name := range []string{"lease-off", "lease-on"} {
		sc, _ := Get(name)
		for _, f := range sc.Figures {
			v, ok := f.Value(s)
			if !ok || v != want[f.ID] {
				t.Errorf("%s %s = %v %v, want %v", name, f.ID, v, ok, want[f.ID])
			}
			if _, ok := f.Value(check.Summary{}); ok && f.ID != "F6" && f.ID != "F7l" {
				t.Errorf("%s %s reads a number from a run without lease figures", name, f.ID)
			}
			seen++
		}
	}
	if seen != len(want) {
		t.Fatalf("%d figures, want %d", seen, len(want))
	}
}
