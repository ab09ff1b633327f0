package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/ruvio/ruvio/chaos/upgrade"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Upgrade scenarios: the coordinated group (n1 primary, n2 n3 replicas,
// durability always, min-replicas-to-write 1, three coordinators) taken to
// an upgraded build by one of the two procedures of docs/operations.md
// while durable writes go on. The upgraded build is this source built
// again with another version string, which is enough to run and time the
// procedure; a release whose replication handshake changed would also
// refuse the replicas' link to the old primary in between, which this
// cannot show.

func noSchedule(*rand.Rand, time.Duration) []nemesis.Step { return nil }

func unavailableMs(s check.Summary) *int64 { return s.UnavailableMs }

const noteUpgrade = "The procedure's steps are the observations of kind upgrade in the report, each with its time; the fault " +
	"table holds the whole procedure as one entry (kind upgrade) and, for Way A, the old primary's stop (kind kill), from " +
	"which failover_ms runs. Writes are CLIENT DURABILITY REPLICAS 1 set adds: none may be lost. unavailable_ms is the " +
	"longest stretch without an acknowledged write across the procedure: the paused writes."

func init() {
	register(Scenario{
		Name: "upgrade-a",
		Summary: "Way A under durable writes: stop writes, wait for the replicas, restart them upgraded, stop the primary, " +
			"start it upgraded as a replica",
		Topology:         coordinatedGroup(),
		Backend:          "local", // restarts nodes on another binary
		Workloads:        []workloads.Spec{durableSet()},
		ClientsOnPrimary: true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule:  noSchedule,
		Procedure: upgrade.WayA,
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true,
			Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			lostFigure("F15a", "Way A: acknowledged writes lost", "0"),
			msFigure("F15b", "Way A: old primary stopped -> first write on the promoted replica", "<= 1200", failoverMs),
			msFigure("F15c", "Way A: writes paused in all (step 1 to the first write on the new primary)", "<= 2100", unavailableMs),
		},
		Notes: []string{noteCoordinated, noteUpgrade,
			"Step 1 is CONFIG SET min-replicas-to-write 3 on the primary (more than its two replicas), step 2 waits until " +
				"every shard's wal_durable_sequence is the primary's wal_last_sequence on every node, step 3 restarts n2 and n3 " +
				"on the upgraded binary, step 4 stops n1 and waits for the coordinators to promote a replica, step 5 starts n1 " +
				"upgraded as a replica of the new primary. The run fails unless every node then reports the upgraded version " +
				"and n1 came back with its configured min-replicas-to-write (1), not step 1's."},
	})
	register(Scenario{
		Name:             "upgrade-b",
		Summary:          "Way B under durable writes: stop the replicas, then the primary; start the primary upgraded, then the replicas",
		Topology:         coordinatedGroup(),
		Backend:          "local", // restarts nodes on another binary
		Workloads:        []workloads.Spec{durableSet()},
		ClientsOnPrimary: true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule:  noSchedule,
		Procedure: upgrade.WayB,
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true,
			Failovers: i64(0), EpochRise: i64(0)},
		Figures: []Figure{
			lostFigure("U2a", "Way B: acknowledged writes lost", "0"),
			msFigure("U2b", "Way B: writes stopped (the whole group's restart)", "report", unavailableMs),
		},
		Notes: []string{noteCoordinated, noteUpgrade,
			"The replicas stop first and the primary last, and the primary starts first: with no replica up the " +
				"coordinators change nothing, so the group keeps its primary and its epoch (failovers 0)."},
	})
}
