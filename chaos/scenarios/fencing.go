package scenarios

import (
	"time"

	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Fencing tokens across a failover (docs/tokens.md): clients take leases
// with LEASE ACQUIRE and write to a resource that keeps the largest token
// it saw, while the primary is killed or cut off.

const noteFencing = "Lock clients take a lease on one of sixteen keys (LEASE ACQUIRE, 3 s), add the token to the key's grants " +
	"set, write to a resource every 100 ms for 1 s with the token, and release the lease. The resource, in the harness, " +
	"keeps the largest token it saw per lock and refuses a smaller one. A grant whose token the final reads of its grants " +
	"set lack was lost. Violations: a token granted twice; a write of a grant that survived refused; a write of a lost " +
	"grant accepted after a write of a grant asked for after it (lock in summary.json)."

func init() {
	register(Scenario{
		Name: "fencing",
		Summary: "lock clients holding LEASE grants and writing to a fenced resource while the primary is SIGKILLed: " +
			"no token twice, the new primary's tokens above every lost one",
		Topology:         coordinatedGroup(),
		Workloads:        []workloads.Spec{{Kind: workloads.KindSet, Clients: 4, Keys: 4, Rate: 100}, lockLoad("")},
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			lockFigure("FT1", "fencing across a primary kill: violations (a token twice, a surviving holder refused, a lost holder accepted late)",
				"violations", "0, every run", (*check.LockResult).Violations),
			lockFigure("FT2", "fencing across a primary kill: lease grants the failover took back", "grants", "report",
				func(l *check.LockResult) int64 { return l.Lost }),
		},
		Notes: []string{noteCoordinated, noteFencing,
			"The grants are not durable: one the primary granted just before the kill may be on no replica; the new primary " +
				"then grants the lock again, and its token must exceed the lost one."},
	})
	register(Scenario{
		Name: "fencing-partition",
		Summary: "partition's run (n1 cut from the coordinators only) with lock clients on n1 and on the recorded primary: " +
			"n1's grants after the fork are lost, and the resource refuses their holders once the new primary's grants write",
		Topology:         coordinatedGroup(),
		Workloads:        append(partitionLoad(), lockLoad(""), lockLoad("n1")),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: cutPrimaryFromCoordinators,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			lockFigure("FT3", "fencing with the primary cut from the coordinators: violations", "violations", "0, every run",
				(*check.LockResult).Violations),
			lockFigure("FT4", "fencing with the primary cut from the coordinators: writes of lost grants the resource refused",
				"writes", "report (fencing at work)", func(l *check.LockResult) int64 { return l.StaleRefused }),
		},
		Notes: []string{noteCoordinated, noteFencing,
			"n1 is cut from the coordinators only: its clients still reach it and it grants leases (to the clients pinned to it) " +
				"until min-replicas-to-write makes it refuse writes, in an epoch the promoted replica's history leaves. The other " +
				"lock clients move to the promoted replica, which grants the same locks with tokens of its newer epoch."},
	})
}

// lockLoad is the lock workload: eight clients over sixteen locks, pinned to
// node when it is not "". Every lock workload of a run shares the locks.
func lockLoad(node string) workloads.Spec {
	return workloads.Spec{Kind: workloads.KindLock, Clients: 8, Keys: 16, Rate: 10, Node: node}
}

func lockFigure(id, what, unit, target string, read func(*check.LockResult) int64) Figure {
	return Figure{ID: id, Figure: what, Unit: unit, Target: target, Value: func(s check.Summary) (float64, bool) {
		if s.Lock == nil {
			return 0, false
		}
		return float64(read(s.Lock)), true
	}}
}
