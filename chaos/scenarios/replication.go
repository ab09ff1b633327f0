package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
)

// replicatedGroup is n1 primary and n2, n3 its replicas, durability always,
// two shards each (so that every per-shard rule is exercised).
func replicatedGroup() topology.Topology {
	node := func(name, primary string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: "node", ReplicaOf: primary,
			Args: []string{"server", "--durability", "always"}}
	}
	return topology.Topology{Nodes: []topology.NodeSpec{node("n1", ""), node("n2", "n1"), node("n3", "n1")}, Shards: 2}
}

func init() {
	register(Scenario{
		Name: "failover-manual",
		Summary: "n1 primary, n2 n3 replicas, no coordinator; n1 is SIGKILLed, the harness promotes the most durable " +
			"replica by hand (REPLICAOF NO ONE) and repoints the other; n1 comes back as a replica",
		Topology:         replicatedGroup(),
		Workloads:        setAndRegister(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         20 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			// Load on n1, the kill and promotion, load on the new primary,
			// then n1's restart and rejoin with load still running.
			return []nemesis.Step{{Kind: nemesis.Kill, Target: "n1", At: d * 3 / 10, For: d * 4 / 10}}
		},
		Expect: check.Expectations{MinAcknowledged: 1, RequireConverged: true},
		Figures: []Figure{
			lostFigure("R1", "acknowledged writes lost by a manual failover of asynchronous replication", "report; loss allowed (asynchronous replication)"),
			{ID: "R2", Figure: "primary killed -> first acknowledged write on the replica promoted by hand", Unit: "ms", Target: "n/a (no coordinator)",
				Value: func(s check.Summary) (float64, bool) {
					if s.FailoverMs == nil {
						return 0, false
					}
					return float64(*s.FailoverMs), true
				}},
		},
		Notes: []string{
			"Replication is asynchronous: the primary acknowledges a write once it is in its own log " +
				"(fsynced: durability always) and ships it afterwards, so the writes acknowledged in the last moments " +
				"before the SIGKILL can be missing on the replica that is promoted. Those are the lost writes this report " +
				"counts: the undurable loss the design allows, expected here, and tolerated by this scenario's gate " +
				"(the register anomalies they cause too). What the gate does require is acknowledged work and that, " +
				"after the heal, every node holds the same data (RUVIO DIGEST and last log record on every shard). " +
				"A run that loses nothing does not contradict the design, which allows the loss without promising it: " +
				"a record enters the replication stream when it is appended, before the fsync that precedes the " +
				"acknowledgement, so the window is often shorter than that fsync.",
			"No coordinator runs: the harness is the operator. After the kill it reads INFO replication on every shard " +
				"of both replicas, promotes the one with the highest wal_durable_sequence summed over its shards with " +
				"REPLICAOF NO ONE, moves the clients to it, and points the other replica at it with REPLICAOF host port " +
				"(the new primary's replication address). At the end of the fault window n1 restarts with its configured " +
				"role (primary: a node forgets REPLICAOF when it restarts) and is sent REPLICAOF to the new primary; the " +
				"writes it acknowledged but never shipped are discarded.",
			"failover time here is the kill to the first write the promoted replica acknowledged: the operator's own " +
				"reaction plus the clients finding the new primary, not a coordinator's detection.",
		},
	})
	register(Scenario{
		Name: "replica-flap",
		Summary: "n1 primary, n2 n3 replicas; the replicas are SIGKILLed and restarted, or SIGSTOPped and resumed, " +
			"in turn under load on the primary; each replica's catch-up is timed",
		Topology:         replicatedGroup(),
		Workloads:        setAndRegister(),
		ClientsOnPrimary: true,
		Duration:         20 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return nemesis.Cycle(rng, []nemesis.FaultOn{
				{Kind: nemesis.Kill, Target: "n2"}, {Kind: nemesis.Pause, Target: "n3"},
				{Kind: nemesis.Kill, Target: "n3"}, {Kind: nemesis.Pause, Target: "n2"},
			}, 1500*time.Millisecond, 1500*time.Millisecond, time.Second, time.Second, d, 500*time.Millisecond)
		},
		Expect: check.Expectations{MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true, MinAcknowledged: 1},
		Figures: []Figure{{ID: "R3", Figure: "replica catch-up after a restart or resume under load, longest", Unit: "ms", Target: "report",
			Value: func(s check.Summary) (float64, bool) {
				if s.CatchUpMaxMs == nil {
					return 0, false
				}
				return float64(*s.CatchUpMaxMs), true
			}}},
		Notes: []string{
			"Only the replicas are faulted and the clients write to the primary, so nothing acknowledged may be lost " +
				"and the registers must stay linearizable.",
			"A replica's catch-up runs from its restart (once it answers PING) or its resume until its last log record " +
				"reaches, on every shard, the epoch and sequence the primary's had at that moment (INFO replication " +
				"polled every 20 ms). A restarted replica continues from its own log; a resumed one from " +
				"where it stopped. A catch-up the next fault on the same replica cuts short is not counted.",
		},
	})
}
