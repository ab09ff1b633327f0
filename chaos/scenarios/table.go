package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// The partition table: every fault shape of nemesis.TableShapes against
// every protection a system has, one cell (a generated scenario) each,
// on one group of a primary, two replicas and three coordinators.

// Protection is one column of the table: what guards acknowledged
// writes. A system offers the ones it has.
type Protection struct {
	// Name is the column's key in cell names ("mr1", "lease+replicas-r").
	Name string
	// Title is the column's heading.
	Title string
	// MinReplicas is min-replicas-to-write.
	MinReplicas int
	// Lease turns the primary lease on (ruvio).
	Lease bool
	// Durable is k of CLIENT DURABILITY REPLICAS k (ruvio); Wait is k of
	// WAIT k after every write (Redis).
	Durable, Wait int
}

// Timing is a table run's durations and the settings every cell shares.
// The zero value of a field takes DefaultTiming's.
type Timing struct {
	// Duration is a cell's faulty phase, Settle the quiet time after it;
	// the fault starts At and lasts Hold (PauseHold for the SIGSTOP
	// shape, which must outlast DownAfterMs).
	Duration, Settle, At, Hold, PauseHold time.Duration
	// PingMs and DownAfterMs are the coordinators' ping_interval_ms and
	// down_after_ms (Sentinel's down-after-milliseconds); LeaseMs is
	// primary_lease_ms in the lease columns; MaxLagS min-replicas-max-lag.
	PingMs, DownAfterMs, LeaseMs, MaxLagS int
}

// DefaultTiming keeps a cell to about half a minute with start and
// checks. The lease must fit the coordinators' rule: 800 ms at 10 %
// drift is 1178 ms stretched, plus 200 ms, within down_after_ms 1500.
var DefaultTiming = Timing{Duration: 14 * time.Second, Settle: 2 * time.Second, At: 3 * time.Second, Hold: 7 * time.Second,
	PauseHold: 3 * time.Second, PingMs: 200, DownAfterMs: 1500, LeaseMs: 800, MaxLagS: 2}

// WithDefaults fills t's zero fields from DefaultTiming.
func (t Timing) WithDefaults() Timing {
	d := DefaultTiming
	pick := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	pick(&t.Duration, d.Duration)
	pick(&t.Settle, d.Settle)
	pick(&t.At, d.At)
	pick(&t.Hold, d.Hold)
	pick(&t.PauseHold, d.PauseHold)
	for _, f := range []struct {
		v   *int
		def int
	}{{&t.PingMs, d.PingMs}, {&t.DownAfterMs, d.DownAfterMs}, {&t.LeaseMs, d.LeaseMs}, {&t.MaxLagS, d.MaxLagS}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return t
}

// Promise is what the documentation says of a cell: no acknowledged
// write lost, no acknowledgement by the old primary after the promotion,
// the old primary's acknowledgements after the fault ending within
// WindowMs. None of them: it loses writes, and the count is reported.
type Promise struct {
	NoLoss              bool
	NoAckAfterPromotion bool
	// WindowMs bounds the old primary's last acknowledged write after
	// the fault began, or after the promotion with WindowFromPromotion
	// (0: no bound); WindowWhy names the bound.
	WindowMs            int64
	WindowFromPromotion bool
	WindowWhy           string
}

// Any says the cell promises something `chaos gate` can hold it to.
func (p Promise) Any() bool { return p.NoLoss || p.NoAckAfterPromotion || p.WindowMs > 0 }

// String is the promise as the table prints it.
func (p Promise) String() string {
	var parts []string
	if p.NoLoss {
		parts = append(parts, "0 lost")
	}
	if p.NoAckAfterPromotion {
		parts = append(parts, "no ack after promotion")
	}
	if p.WindowMs > 0 {
		from := "the fault"
		if p.WindowFromPromotion {
			from = "the promotion"
		}
		parts = append(parts, fmt.Sprintf("acks end <= %d ms after %s (%s)", p.WindowMs, from, p.WindowWhy))
	}
	if len(parts) == 0 {
		return "loses writes"
	}
	return strings.Join(parts, "; ")
}

// Expect is the promise as `chaos gate` thresholds.
func (p Promise) Expect() check.Expectations {
	e := check.Expectations{MinAcknowledged: 1}
	if p.NoLoss {
		e.MaxLost = i64(0)
	}
	if p.NoAckAfterPromotion || p.WindowMs > 0 {
		e.Lease = &check.LeaseExpectations{}
		if p.NoAckAfterPromotion {
			e.Lease.MaxAcksAfterPromotion = i64(0)
		}
		switch {
		case p.WindowMs > 0 && p.WindowFromPromotion:
			e.Lease.MaxOldAckAfterPromotionMs = i64(p.WindowMs)
		case p.WindowMs > 0:
			e.Lease.MaxOldAckInFaultMs = i64(p.WindowMs)
		}
	}
	return e
}

// System is a system under test the table measures: how it is started
// (its topology, which the backends know how to run), the protections it
// has, how its clients find the primary, and what its documentation
// promises. A third system joins the table by implementing it and
// being listed in Systems (and taught to the backends through
// topology.Topology.System).
type System interface {
	// Name is the system's key in cell names and its column group.
	Name() string
	// Protections are its columns.
	Protections() []Protection
	// Topology is the group (n1 primary, n2 n3 replicas, c1 c2 c3
	// coordinators) guarded by p.
	Topology(p Protection, t Timing) topology.Topology
	// Workload is a set workload of clients clients at rate adds a
	// second each, with p's per-connection protection; the runner
	// points it at the primary the coordinators name.
	Workload(p Protection, clients int, rate float64) workloads.Spec
	// FindsPrimary says how its clients find the primary.
	FindsPrimary() string
	// Runs says whether it can carry out shape (a system whose
	// coordinators elect no leader cannot run a shape that names one).
	Runs(shape nemesis.Shape) bool
	// Settings are its settings, one line each, for the table's header.
	Settings(t Timing) []string
	// Promise is what its documentation says of shape under p.
	Promise(shape nemesis.Shape, p Protection, t Timing) Promise
}

// Systems are the systems the table measures, in column order.
var Systems = []System{Ruvio{}, Redis{}}

// SystemByName finds a system.
func SystemByName(name string) (System, bool) {
	for _, s := range Systems {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}

// tableGroup is the group every cell acts on.
var tableGroup = nemesis.Group{Primary: "n1", Replicas: []string{"n2", "n3"}, Coordinators: []string{"c1", "c2", "c3"}}

// tableReplicas is r, the replicas in the group.
const tableReplicas = 2

// CellName is the scenario name of a cell: table.<system>.<shape>.<protection>.
func CellName(sys, shape, protection string) string {
	return "table." + sys + "." + shape + "." + protection
}

// Cell is the scenario of one cell.
func Cell(sys System, shape nemesis.Shape, p Protection, t Timing) Scenario {
	t = t.WithDefaults()
	promise := sys.Promise(shape, p, t)
	hold := t.Hold
	if shape.Name == nemesis.ShapePause.Name {
		hold = t.PauseHold
	}
	return Scenario{
		Name:     CellName(sys.Name(), shape.Name, p.Name),
		Summary:  fmt.Sprintf("partition table, %s: %s, protected by %s", sys.Name(), shape.Title, p.Title),
		Topology: sys.Topology(p, t),
		Workloads: []workloads.Spec{
			sys.Workload(p, 4, 100),
			pinned(sys.Workload(p, 2, 50), tableGroup.Primary),
			transactional(sys.Workload(p, 2, 50)),
		},
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Lease:            true,
		Duration:         t.Duration, Settle: t.Settle,
		Schedule: func(*rand.Rand, time.Duration) []nemesis.Step {
			return shape.Steps(tableGroup, t.At, hold)
		},
		Expect: promise.Expect(),
		Notes: []string{
			fmt.Sprintf("A cell of the partition table (docs/partition-table.md): %s under %s, %s. %s.",
				shape.Title, sys.Name(), p.Title, sys.FindsPrimary()),
			"Two set workloads run: one following the primary the coordinators name (4 clients, 100 adds a second each), " +
				"one pinned to the old primary n1 (2 clients, 50 a second each), so the report sees what n1 acknowledges " +
				"after the fault and after the promotion. The clients reach every node throughout.",
			"A list-append transaction workload follows the primary too (2 clients, 50 transactions a second each); " +
				"its anomalies (reports/elle) are counted and tolerated like the loss: the cell measures them.",
			"The documentation promises: " + promise.String() + ". `chaos gate` holds the run to that and nothing else; " +
				"a cell promised to lose writes passes with its loss reported.",
		},
	}
}

// transactional is s as the list-append transaction workload, with the
// same protection and the same way to the primary.
func transactional(s workloads.Spec) workloads.Spec {
	s.Kind = workloads.KindAppend
	return s
}

func pinned(s workloads.Spec, node string) workloads.Spec {
	s.Node = node
	return s
}

// cellByName resolves a cell's scenario name at the default timing, for
// `chaos analyze` and `gate` of saved results.
func cellByName(name string) (Scenario, bool) {
	parts := strings.SplitN(name, ".", 4)
	if len(parts) != 4 || parts[0] != "table" {
		return Scenario{}, false
	}
	sys, ok := SystemByName(parts[1])
	if !ok {
		return Scenario{}, false
	}
	shape, ok := nemesis.ShapeByName(parts[2])
	if !ok {
		return Scenario{}, false
	}
	for _, p := range sys.Protections() {
		if p.Name == parts[3] {
			return Cell(sys, shape, p, DefaultTiming), true
		}
	}
	return Scenario{}, false
}

// Ruvio is ruvio with its coordinators.
type Ruvio struct{}

// Name is "ruvio".
func (Ruvio) Name() string { return "ruvio" }

// Protections are ruvio's columns: none, min-replicas-to-write 1 and r,
// the primary lease, CLIENT DURABILITY REPLICAS 1 and r, and the lease
// with REPLICAS r.
func (Ruvio) Protections() []Protection {
	r := tableReplicas
	return []Protection{
		{Name: "none", Title: "min-replicas-to-write 0"},
		{Name: "mr1", Title: "min-replicas-to-write 1", MinReplicas: 1},
		{Name: "mr-r", Title: "min-replicas-to-write r", MinReplicas: r},
		{Name: "lease", Title: "primary lease L", Lease: true},
		{Name: "replicas1", Title: "CLIENT DURABILITY REPLICAS 1", Durable: 1},
		{Name: "replicas-r", Title: "REPLICAS r", Durable: r},
		{Name: "lease+replicas-r", Title: "lease + REPLICAS r", Lease: true, Durable: r},
	}
}

// Topology is n1 n2 n3 (durability always, two shards) and c1 c2 c3.
func (Ruvio) Topology(p Protection, t Timing) topology.Topology {
	topo := replicatedGroup()
	for i := range topo.Nodes {
		env := map[string]string{
			"RUVIO_MIN_REPLICAS_TO_WRITE": strconv.Itoa(p.MinReplicas),
			"RUVIO_MIN_REPLICAS_MAX_LAG":  strconv.Itoa(t.MaxLagS),
		}
		if p.Lease {
			env["RUVIO_PRIMARY_LEASE"] = "yes"
			env["RUVIO_PRIMARY_LEASE_COORDINATORS"] = "1,2,3"
		}
		topo.Nodes[i].Env = env
	}
	for _, c := range tableGroup.Coordinators {
		topo.Nodes = append(topo.Nodes, topology.NodeSpec{Name: c, Role: topology.RoleCoordinator, Args: []string{"coordinator"}})
	}
	topo.Coordination = topology.CoordinatorSettings{PingIntervalMs: t.PingMs, DownAfterMs: t.DownAfterMs}
	if p.Lease {
		topo.Coordination.PrimaryLeaseMs = t.LeaseMs
	}
	return topo
}

// Workload sets CLIENT DURABILITY REPLICAS on every connection.
func (Ruvio) Workload(p Protection, clients int, rate float64) workloads.Spec {
	return workloads.Spec{Kind: workloads.KindSet, Clients: clients, Keys: 4, Rate: rate, Durable: p.Durable}
}

// FindsPrimary: SENTINEL MASTER on every coordinator.
func (Ruvio) FindsPrimary() string {
	return "Clients find the primary by asking every coordinator SENTINEL MASTER main and taking the highest config-epoch"
}

// Runs every shape.
func (Ruvio) Runs(nemesis.Shape) bool { return true }

// Settings are the nodes' and coordinators' settings of the table.
func (Ruvio) Settings(t Timing) []string {
	return []string{
		"data nodes: durability always, 2 shards, min-replicas-max-lag " + strconv.Itoa(t.MaxLagS) + " s, min-replicas-to-write per column",
		fmt.Sprintf("coordinators: 3, ping_interval_ms %d, down_after_ms %d; lease columns: primary_lease_ms L = %d, primary_lease_drift_percent 10",
			t.PingMs, t.DownAfterMs, t.LeaseMs),
		"clients: CLIENT DURABILITY REPLICAS k per column (TIMEOUT 3/4 of the 500 ms client timeout)",
	}
}

// Promise is what docs/lease.md, docs/replication.md and the coordinator
// documentation say of each shape (see docs/partition-table.md, Promises).
func (Ruvio) Promise(shape nemesis.Shape, p Protection, t Timing) Promise {
	var pr Promise
	lagBound := int64(t.MaxLagS*1000 + 100)
	leaseBound := int64(t.LeaseMs + 100)
	switch {
	case p.Durable >= tableReplicas:
		// Every replica holds every acknowledged write: whichever is
		// promoted has it.
		pr.NoLoss = true
	case p.Durable >= 1:
		// Lost only where the replicas holding the writes are cut off
		// with the primary while the coordinators still count the one
		// they reach as complete.
		pr.NoLoss = shape.Name != nemesis.ShapeWithReplica.Name
	case shape.Name == nemesis.ShapeLeaderCut.Name:
		// The group is not touched: the majority keeps the primary.
		pr.NoLoss = true
	}
	if p.Lease {
		if shape.Name != nemesis.ShapePause.Name && shape.Name != nemesis.ShapeLeaderCut.Name {
			// A stalled primary may apply what was queued on resuming,
			// with no fixed bound; every other shape that takes the
			// primary away ends its lease before the promotion (cutting
			// the leader off takes nothing from the group).
			pr.NoAckAfterPromotion = true
		}
		if shape.CutsPrimary && shape.Name != nemesis.ShapeOneWay.Name {
			pr.WindowMs, pr.WindowWhy = leaseBound, "L + 0.1 s"
		}
	}
	if pr.WindowMs == 0 && p.MinReplicas > 0 && p.Durable == 0 {
		// min-replicas-to-write refuses within the lag of losing the
		// replicas it needs: every one when the primary is cut from
		// them, one when it keeps one and r are needed.
		loses := shape.Name == nemesis.ShapeIsolated.Name || shape.Name == nemesis.ShapeFromCoordinators.Name
		if shape.KeepsReplica && p.MinReplicas >= tableReplicas {
			loses = true
		}
		if loses {
			pr.WindowMs, pr.WindowWhy = lagBound, "min-replicas-max-lag + 0.1 s"
			// Cut from the coordinators only, its replicas acknowledge it
			// until they are pointed at the new primary.
			pr.WindowFromPromotion = shape.Name == nemesis.ShapeFromCoordinators.Name
		}
	}
	return pr
}

// Redis is Debian's redis-server 7 with three redis-sentinels.
type Redis struct{}

// Name is "redis".
func (Redis) Name() string { return "redis" }

// Protections are the ones Redis has: none, min-replicas-to-write 1 and
// r, WAIT 1 and WAIT r.
func (Redis) Protections() []Protection {
	r := tableReplicas
	return []Protection{
		{Name: "none", Title: "min-replicas-to-write 0"},
		{Name: "mr1", Title: "min-replicas-to-write 1", MinReplicas: 1},
		{Name: "mr-r", Title: "min-replicas-to-write r", MinReplicas: r},
		{Name: "wait1", Title: "WAIT 1", Wait: 1},
		{Name: "wait-r", Title: "WAIT r", Wait: r},
	}
}

// redisDirectives are the data nodes' redis.conf lines besides the
// addresses the backend writes: appendfsync always, the closest to
// ruvio's durability always.
func redisDirectives(p Protection, t Timing) []string {
	return []string{
		"appendonly yes", "appendfsync always", `save ""`, "repl-diskless-sync-delay 0",
		"min-replicas-to-write " + strconv.Itoa(p.MinReplicas),
		"min-replicas-max-lag " + strconv.Itoa(t.MaxLagS),
	}
}

// Topology is n1 n2 n3 (redis-server) and c1 c2 c3 (redis-sentinel).
func (Redis) Topology(p Protection, t Timing) topology.Topology {
	node := func(name, primary string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, ReplicaOf: primary, Args: redisDirectives(p, t)}
	}
	topo := topology.Topology{System: topology.SystemRedis, Shards: 1,
		Nodes:        []topology.NodeSpec{node("n1", ""), node("n2", "n1"), node("n3", "n1")},
		Coordination: topology.CoordinatorSettings{DownAfterMs: t.DownAfterMs}}
	for _, c := range tableGroup.Coordinators {
		topo.Nodes = append(topo.Nodes, topology.NodeSpec{Name: c, Role: topology.RoleCoordinator, Args: []string{"coordinator"}})
	}
	return topo
}

// Workload sends WAIT k after every write.
func (Redis) Workload(p Protection, clients int, rate float64) workloads.Spec {
	return workloads.Spec{Kind: workloads.KindSet, Clients: clients, Keys: 4, Rate: rate, Wait: p.Wait}
}

// FindsPrimary: SENTINEL MASTER on every Sentinel.
func (Redis) FindsPrimary() string {
	return "Clients find the primary by asking every Sentinel SENTINEL MASTER main and taking the highest config-epoch"
}

// Runs every shape but the ones naming a coordinator leader: Sentinels
// elect one only for the length of a failover.
func (Redis) Runs(shape nemesis.Shape) bool { return !shape.NeedsLeader }

// Settings are the redis.conf and sentinel.conf settings of the table.
func (Redis) Settings(t Timing) []string {
	return []string{
		"redis-server: " + strings.Join(redisDirectives(Protection{}, t)[:4], ", ") +
			", min-replicas-max-lag " + strconv.Itoa(t.MaxLagS) + ", min-replicas-to-write per column, defaults otherwise",
		fmt.Sprintf("redis-sentinel: 3, quorum 2, down-after-milliseconds %d, defaults otherwise (failover-timeout 180000, parallel-syncs 1)",
			t.DownAfterMs),
		"clients: WAIT k after every write per column (timeout 3/4 of the 500 ms client timeout; a short count is not an acknowledgement)",
	}
}

// Promise: Redis documents its replication as asynchronous, min-replicas
// as limiting the window rather than closing it, and WAIT as not making
// the system strongly consistent: no cell is promised anything.
func (Redis) Promise(nemesis.Shape, Protection, Timing) Promise { return Promise{} }
