package scenarios

import (
	"time"

	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// The change stream across a failover (docs/changes.md): a consumer
// follows the primary's stream of each shard and keeps its own copy of
// the sets, resuming on the promoted replica from its cursor.

const noteChanges = "A change stream consumer (CHANGES SUBSCRIBE on each shard of the primary the coordinators record) " +
	"applies the set workload's adds as they stream, undoes what a [\"rewound\", cursor] takes back, and after the kill " +
	"subscribes again on the new primary from the last cursor it applied. At the end the harness writes a marker on each " +
	"shard and waits for every stream to deliver it; the consumer's sets are then held to the final reads (changes in " +
	"summary.json: resumes, rewinds, adds undone, values missing or extra)."

func init() {
	register(Scenario{
		Name: "changes",
		Summary: "loss's run (undurable adds, the primary SIGKILLed) with a change stream consumer following the primary: " +
			"it must end holding exactly the final sets, rewound past whatever the failover took back",
		Topology:         coordinatedGroup(),
		Workloads:        []workloads.Spec{{Kind: workloads.KindSet, Clients: 6, Keys: 4, Rate: 250}},
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Changes:          &workloads.ChangeSpec{},
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{changesFigure("CH1", "change stream consumer across a primary kill: values it holds that the final sets do not, or lacks",
			"values", "0, every run", func(c *check.ChangesResult) int64 { return c.Missing + c.Extra })},
		Notes: []string{noteCoordinated, noteChanges,
			"The adds are not durable: writes the primary acknowledged and streamed to the consumer just before the kill may " +
				"be on no replica. The consumer then resumes past the fork and must be rewound; missing or extra values are " +
				"violations, lost writes are not (as in loss)."},
	})
	register(Scenario{
		Name: "changes-partition",
		Summary: "partition's run (n1 cut from the coordinators only, still taking writes until it refuses them) with a change " +
			"stream consumer that stays on n1 until n1 is demoted: it is rewound past n1's writes after the fork",
		Topology:         coordinatedGroup(),
		Workloads:        partitionLoad(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Changes:          &workloads.ChangeSpec{},
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: cutPrimaryFromCoordinators,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{changesFigure("CH3", "change stream consumer on a primary cut from the coordinators: adds its rewinds took back",
			"adds", "report; the consumer ends holding the final sets (CH1's check)", func(c *check.ChangesResult) int64 { return c.Undone })},
		Notes: []string{noteCoordinated, noteChanges,
			"n1 is cut from the coordinators only: its clients and the consumer still reach it. The coordinators promote a " +
				"replica (which forks from n1's history where it stopped receiving) while n1 takes writes until min-replicas-to-write " +
				"makes it refuse them. The consumer keeps reading n1 until the partition heals and the coordinators demote n1, which " +
				"closes its connections; it then resumes on the new primary from a cursor past the fork, and must be rewound. " +
				"Missing or extra values are violations."},
	})
	register(Scenario{
		Name: "changes-committed",
		Summary: "durable's run (CLIENT DURABILITY REPLICAS 1, the primary SIGKILLed) with a consumer of committed changes: " +
			"it is never rewound, and ends holding every acknowledged add and nothing the final sets lack",
		Topology:         coordinatedGroup(),
		Workloads:        []workloads.Spec{durableSet()},
		ClientsOnPrimary: true,
		Changes:          &workloads.ChangeSpec{Committed: true},
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true,
			Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{changesFigure("CH2", "committed-changes consumer across a primary kill: rewinds", "rewinds", "0, every run",
			func(c *check.ChangesResult) int64 { return c.Rewinds })},
		Notes: []string{noteCoordinated, noteChanges,
			"The consumer subscribes with COMMITTED: it sees a record once a durable reply committed it, and the coordinators " +
				"promote only a replica holding every committed record, so a rewind, or a value the final sets lack, is a " +
				"violation."},
	})
}

// changesFigure reads a figure from a run's change stream figures.
func changesFigure(id, what, unit, target string, read func(*check.ChangesResult) int64) Figure {
	return Figure{ID: id, Figure: what, Unit: unit, Target: target, Value: func(s check.Summary) (float64, bool) {
		if s.Changes == nil {
			return 0, false
		}
		return float64(read(s.Changes)), true
	}}
}
