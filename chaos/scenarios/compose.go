package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Compose scenarios: the repository's deploy/compose.failover.yml brought
// up as it is (chaos/compose), three data nodes and three coordinators
// with the file's own settings: durability everysec, ping_interval_ms 500,
// down_after_ms 3000.

// composeFile is the file's services: ruvio-1 its primary, ruvio-2 and
// ruvio-3 its replicas, coordinator-1..3. The backend checks the names
// against the file; the settings here only describe it to the reports.
func composeFile() topology.Topology {
	t := topology.Topology{Coordination: topology.CoordinatorSettings{PingIntervalMs: 500, DownAfterMs: 3000}}
	t.Nodes = []topology.NodeSpec{
		{Name: "ruvio-1", Role: topology.RoleNode},
		{Name: "ruvio-2", Role: topology.RoleNode, ReplicaOf: "ruvio-1"},
		{Name: "ruvio-3", Role: topology.RoleNode, ReplicaOf: "ruvio-1"},
	}
	for _, c := range []string{"coordinator-1", "coordinator-2", "coordinator-3"} {
		t.Nodes = append(t.Nodes, topology.NodeSpec{Name: c, Role: topology.RoleCoordinator})
	}
	return t
}

// composeLoad is the durable set and register workloads: CLIENT
// DURABILITY REPLICAS 1, so no acknowledged write may be lost. With
// everysec a replica holds a write on disk within a second, which bounds
// each durable write's wait.
func composeLoad() []workloads.Spec {
	return []workloads.Spec{durableSet(), durableRegister()}
}

const noteCompose = "The harness brings up deploy/compose.failover.yml itself with docker-compose (no copy of it), with an " +
	"image built from this build's binary and fresh secrets, and kills its containers with docker kill. The file's " +
	"coordinators ping every 500 ms and fail over after 3000 ms of silence; the nodes run durability everysec. " +
	"Clients ask the coordinators for the primary, which they name by container name; the harness dials the " +
	"container's address. Writes use CLIENT DURABILITY REPLICAS 1: none may be lost."

func init() {
	register(Scenario{
		Name:             "compose",
		Summary:          "the Compose file's primary container killed: a new primary, the old one back as a replica",
		Topology:         composeFile(),
		Backend:          "compose",
		Workloads:        composeLoad(),
		ClientsOnPrimary: true,
		Duration:         24 * time.Second, Settle: 3 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{{Kind: nemesis.Kill, Target: "ruvio-1", At: d / 4, For: d / 2}}
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{msFigure("F14", "Compose file: primary container killed -> first write on the new primary (down_after_ms 3000)",
			"<= 4000 (down_after_ms + 2 ping intervals)", failoverMs)},
		Notes: []string{noteCompose,
			"ruvio-1's container is killed a quarter into the run and started again at three quarters, on its volume: the " +
				"coordinators point it at the new primary, and the convergence check requires it to hold every write."},
	})
	register(Scenario{
		Name:             "compose-leader",
		Summary:          "the Compose file's coordinator leader killed, then the primary container: the other two fail over",
		Topology:         composeFile(),
		Backend:          "compose",
		Workloads:        composeLoad(),
		ClientsOnPrimary: true,
		Duration:         24 * time.Second, Settle: 3 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{
				{Kind: nemesis.Kill, Target: nemesis.Leader, At: d / 4, For: d / 2},
				{Kind: nemesis.Kill, Target: "ruvio-1", At: d / 4, For: d / 2},
			}
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{msFigure("F14b", "Compose file: coordinator leader killed too -> first write on the new primary (down_after_ms 3000)",
			"<= 4000 (down_after_ms + 2 ping intervals)", failoverMs)},
		Notes: []string{noteCompose,
			"The coordinator leader's container is killed, and ruvio-1's right after it: the two coordinators left elect a " +
				"leader, which fails the group over. The failover time runs from the primary's kill."},
	})
}
