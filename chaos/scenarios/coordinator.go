package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Coordinator scenarios: the group of replicatedGroup with
// min-replicas-to-write 1 and three coordinators that fail it over
// (ping_interval_ms 200, down_after_ms 1000: the settings the figures are
// measured with). Clients find the primary by asking the coordinators.

// coordinators are the three coordinators' names.
var coordinators = []string{"c1", "c2", "c3"}

// coordinatedGroup is n1 primary, n2 n3 replicas (durability always, two
// shards, min-replicas-to-write 1) and coordinators c1 c2 c3.
func coordinatedGroup() topology.Topology {
	t := replicatedGroup()
	for i := range t.Nodes {
		t.Nodes[i].Env = map[string]string{"RUVIO_MIN_REPLICAS_TO_WRITE": "1"}
	}
	for _, c := range coordinators {
		t.Nodes = append(t.Nodes, topology.NodeSpec{Name: c, Role: topology.RoleCoordinator, Args: []string{"coordinator"}})
	}
	return t
}

// memoryGroup is coordinatedGroup under durability memory, whose
// coordinators wait down_after_ms 3000: a restarted primary answers again
// well before they would find it down.
func memoryGroup() topology.Topology {
	t := coordinatedGroup()
	for i := range t.Nodes {
		if t.Nodes[i].Role == topology.RoleNode {
			t.Nodes[i].Args = []string{"server", "--durability", "memory"}
		}
	}
	t.Coordination = topology.CoordinatorSettings{PingIntervalMs: 200, DownAfterMs: 3000}
	return t
}

// coordinatedLoad is the set and register workloads at a steady rate,
// about 1600 operations a second: the failover times still resolve to a
// few milliseconds, and a 45 s run's history is checked in seconds (the
// set's whole-set reads grow with the run, the register's search with
// its length).
func coordinatedLoad() []workloads.Spec {
	return []workloads.Spec{
		{Kind: workloads.KindSet, Clients: 6, Keys: 4, Rate: 200},
		{Kind: workloads.KindRegister, Clients: 4, Keys: 3, Rate: 100},
	}
}

// durableSet is the set workload with CLIENT DURABILITY REPLICAS 1 and
// batches of 32 pipelined adds (10 batches a second per client: about
// 1300 adds a second); durableRegister the register workload with
// durability too, whose linearizability then holds across a failover.
func durableSet() workloads.Spec {
	return workloads.Spec{Kind: workloads.KindSet, Clients: 4, Keys: 4, Durable: 1, Batch: 32, Rate: 10}
}

func durableRegister() workloads.Spec {
	return workloads.Spec{Kind: workloads.KindRegister, Clients: 4, Keys: 3, Durable: 1, Rate: 50}
}

// killPrimary kills n1 from 30% to 70% of the run: load before, the
// failover, load on the new primary, n1's return (as a replica, once the
// coordinators correct it) under load.
func killPrimary(rng *rand.Rand, d time.Duration) []nemesis.Step {
	return []nemesis.Step{{Kind: nemesis.Kill, Target: "n1", At: d * 3 / 10, For: d * 4 / 10}}
}

func msFigure(id, what, target string, read func(s check.Summary) *int64) Figure {
	return Figure{ID: id, Figure: what, Unit: "ms", Target: target, Value: func(s check.Summary) (float64, bool) {
		if v := read(s); v != nil {
			return float64(*v), true
		}
		return 0, false
	}}
}

func countFigure(id, what, unit, target string, read func(s check.Summary) *int64) Figure {
	f := msFigure(id, what, target, read)
	f.Unit = unit
	return f
}

func failoverMs(s check.Summary) *int64 { return s.FailoverMs }

// anatomySpan reads the time between two steps of the run's first
// failover anatomy (check.Anatomies), nil when either is missing.
func anatomySpan(from, to string) func(check.Summary) *int64 {
	return func(s check.Summary) *int64 {
		if len(s.Anatomy) == 0 {
			return nil
		}
		a, okA := s.Anatomy[0].Step(from)
		b, okB := s.Anatomy[0].Step(to)
		if !okA || !okB {
			return nil
		}
		d := b - a
		return &d
	}
}
func failoversOf(s check.Summary) *int64    { return s.Failovers }
func unacknowledged(s check.Summary) *int64 { return &s.UnacknowledgedWrites }

// noteCoordinated says how the clients and the harness see the
// coordinators, for every coordinator scenario's report.
const noteCoordinated = "Three coordinators watch the group (ping_interval_ms 200, down_after_ms 1000); the data nodes run " +
	"durability always and min-replicas-to-write 1. The workload's clients ask the coordinators where the primary is " +
	"(SENTINEL MASTER main on every coordinator, the answer with the highest config-epoch) and ask again after every " +
	"operation that did not succeed. The harness polls the coordinators the same way every 100 ms and records each " +
	"change of primary or epoch (the Replication table's record rows): failovers, epoch_rise and primary_held_ms " +
	"come from those. On the local backend every member reaches a data node at one shared address that tells the " +
	"members' connections apart (the coordinators' record names a member by one address), so cuts of coordinator " +
	"links act per link, as the iptables rules of the Docker backend do."

func init() {
	register(Scenario{
		Name:             "kill",
		Summary:          "coordinators fail over a SIGKILLed primary; failover time to the first write on the new primary",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{msFigure("F1", "primary killed -> first acknowledged write on the new primary", "<= 1200 median, <= 1400 max", failoverMs),
			msFigure("F1a", "the same, detection: kill -> +odown (the leader decided the primary is down)", "report",
				anatomySpan(check.StepFault, check.StepOdown)),
			msFigure("F1b", "the same, promotion: +odown -> the first +switch-master (replicas detached, Raft commit applied)", "report",
				anatomySpan(check.StepOdown, check.StepSwitch)),
			msFigure("F1c", "the same, clients: the first +switch-master -> the first acknowledged write on the new primary", "report",
				anatomySpan(check.StepSwitch, check.StepFirstWrite))},
		Notes: []string{noteCoordinated,
			"The primary n1 is SIGKILLed; once it has been silent down_after_ms to a majority of coordinators their leader " +
				"promotes the replica holding the most history (REPLICAOF NO ONE), points the other at it, and the clients " +
				"find it on their next look-up. failover_ms runs from the kill to the first write the new primary acknowledged. " +
				"n1 restarts as a primary (its configured role), refuses writes (min-replicas-to-write 1, no replica) and is made " +
				"a replica of the new primary on the coordinators' next ping. Writes are not durable here, so those n1 acknowledged " +
				"but had not shipped can be lost: counted and tolerated (see the loss scenario)."},
	})
	register(Scenario{
		Name:             "switchover",
		Summary:          "SENTINEL FAILOVER moves the primary to a replica while it answers: no acknowledged write lost, no two writers",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{{Kind: nemesis.Switchover, Target: "n1", At: d * 3 / 10}}
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), MaxTwoWriterMs: i64(0), RequireConverged: true,
			Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			msFigure("S1", "SENTINEL FAILOVER sent -> first acknowledged write on the new primary", "report", failoverMs),
			lostFigure("S2", "acknowledged writes lost by a switchover (writes not durable)", "0, every run")},
		Notes: []string{noteCoordinated,
			"The harness sends SENTINEL FAILOVER main to a coordinator that is not the leader, which asks the leader. The " +
				"leader pauses n1's writes (CLIENT PAUSE WRITE), waits until the replica holding the most history has every " +
				"record n1 has, promotes it as in a failover and points n1 at it. Writes are not durable here, yet none that n1 " +
				"acknowledged may be lost: the promoted replica held all of them. failover_ms runs from the command to the first " +
				"write the new primary acknowledged; writes the pause held fail when n1 closes its clients on becoming a replica, " +
				"and the clients find the new primary."},
	})
	register(Scenario{
		Name:             "leader",
		Summary:          "the coordinator leader is SIGKILLed, then at once the primary; failover time with an election first",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         18 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{
				{Kind: nemesis.Kill, Target: nemesis.Leader, At: d * 3 / 10, For: d / 2},
				{Kind: nemesis.Kill, Target: "n1", At: d * 3 / 10, For: d * 4 / 10},
			}
		},
		Expect:  check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{msFigure("F2", "coordinator leader killed, then the primary -> first write on the new primary", "<= 2500 median", failoverMs)},
		Notes: []string{noteCoordinated,
			"The coordinators' Raft leader is SIGKILLed and the primary right after it (the fault table names the leader the " +
				"harness found). The two coordinators left must elect a leader (1-2 s) before one can decide the failover, so the " +
				"failover time adds the election to detection. It runs from the primary's kill."},
	})
	register(Scenario{
		Name:             "loss",
		Summary:          "the primary is SIGKILLed under continuous writes that are not durable; acknowledged writes lost",
		Topology:         coordinatedGroup(),
		Workloads:        []workloads.Spec{{Kind: workloads.KindSet, Clients: 6, Keys: 4, Rate: 250}},
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures:  []Figure{lostFigure("F3", "acknowledged writes lost: primary killed under continuous undurable writes", "report the count; 0 - 1")},
		Notes: []string{noteCoordinated,
			"Six clients add to sets, 1500 writes a second in all, none durable. Replication is asynchronous: the " +
				"primary acknowledges a write once it is in its own log and ships it " +
				"afterwards, so writes acknowledged just before the SIGKILL may be on no replica; the promoted replica lacks " +
				"them and n1, rejoining, discards them. lost counts them (acknowledged, missing from the final read); the " +
				"scenario reports the count rather than gating on it. Compare durable, the same run with CLIENT DURABILITY."},
	})
	register(Scenario{
		Name:             "durable",
		Summary:          "the loss scenario with CLIENT DURABILITY REPLICAS 1 and batches of 32: no acknowledged write may be lost",
		Topology:         coordinatedGroup(),
		Workloads:        []workloads.Spec{durableSet(), durableRegister()},
		ClientsOnPrimary: true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{lostFigure("F4", "acknowledged writes lost: the same with CLIENT DURABILITY REPLICAS 1, batches of 32", "0, every run")},
		Notes: []string{noteCoordinated,
			"Every client connection runs CLIENT DURABILITY REPLICAS 1: the primary holds each reply until a replica has the " +
				"write on disk, so an acknowledged write is on a replica when the primary dies. The coordinators promote only a " +
				"replica holding every committed record (replication_committed_sequence), so none may be lost, and " +
				"the registers, durable too, must stay linearizable. The set clients pipeline 32 adds per round trip. A write " +
				"whose wait for a replica runs out is answered NOREPLICAS and stays applied: the history records it as " +
				"indeterminate (not acknowledged, perhaps applied), never as failed."},
	})
	register(Scenario{
		Name: "memory-restart",
		Summary: "durability memory, CLIENT DURABILITY REPLICAS 1: the primary is SIGKILLed and restarted empty at once, " +
			"before the coordinators would find it down; its replicas keep what they hold and one is promoted",
		Topology:         memoryGroup(),
		Workloads:        []workloads.Spec{durableSet()},
		ClientsOnPrimary: true,
		AcceptStale:      true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{{Kind: nemesis.Kill, Target: "n1", At: d * 3 / 10, For: 300 * time.Millisecond}}
		},
		Expect:  check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{lostFigure("L1", "acknowledged durable writes lost: a memory primary SIGKILLed and restarted before a failover", "0, every run")},
		Notes: []string{"Three coordinators watch the group with ping_interval_ms 200 and down_after_ms 3000; the data nodes run " +
			"durability memory and min-replicas-to-write 1, and every client connection CLIENT DURABILITY REPLICAS 1 (a reply " +
			"waits until a replica applied the write). n1 is SIGKILLed and started again 300 ms later, empty, and " +
			"answers as the primary long before down_after_ms. It noted the IDs of its history's stretches (HISTORY in its " +
			"data directory), so its replicas, which hold records of one, are refused as LOST RECORDS instead of taking a full " +
			"copy of nothing; it takes no writes (no replica streams from it), and the coordinators promote a replica. " +
			"No acknowledged write may be lost. Without the note the replicas were emptied and every write was lost. " +
			"The empty n1 still answers reads until it is replaced: the set's intermediate reads on n1 after the kill " +
			"miss what was acknowledged before it, and are counted as stale and tolerated; a stale read anywhere else is " +
			"a violation. Registers are not run."},
	})
	register(Scenario{
		Name: "durable-manual",
		Summary: "failover-manual with CLIENT DURABILITY REPLICAS 1 and batches of 32: the harness promotes the most " +
			"durable replica by hand; no acknowledged write may be lost",
		Topology:         replicatedGroup(),
		Workloads:        []workloads.Spec{durableSet(), durableRegister()},
		ClientsOnPrimary: true,
		Duration:         20 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true},
		Figures:  []Figure{lostFigure("D1", "acknowledged durable writes lost by a manual failover", "0, every run")},
		Notes: []string{
			"No coordinator runs: the harness is the operator, as in failover-manual. After the kill it promotes the replica " +
				"with the highest wal_durable_sequence summed over its shards (REPLICAOF NO ONE) and repoints the other.",
			"Every client connection runs CLIENT DURABILITY REPLICAS 1: a reply, and so an acknowledgement, waits " +
				"until a replica holds the write on disk. An acknowledged write is therefore on a replica when the primary dies, " +
				"and none may be missing after the manual promotion. The set clients pipeline 32 adds per round trip. A write " +
				"whose wait runs out is answered NOREPLICAS and stays applied: recorded as indeterminate, not as failed."},
	})
	register(Scenario{
		Name: "durable-partition",
		Summary: "durable writes; the primary and the replica holding them are cut off from the coordinators and the " +
			"other replica: no promotion until COORDINATOR FAILOVER FORCE, which loses what only they held",
		Topology:         coordinatedGroup(),
		Workloads:        []workloads.Spec{durableSet()},
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         20 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			// Heal (which ends every partition at once) at 85% of the run.
			heal := d * 85 / 100
			lag := nemesis.Split([]string{"n3"}, []string{"n1"})
			lag.Target, lag.At, lag.For = "n3 cut from n1 (n3 falls behind)", d/5, heal-d/5
			cut := nemesis.Split([]string{"n1", "n2"}, append([]string{"n3"}, coordinators...))
			cut.Target, cut.At, cut.For = "{n1 + n2} | {n3, c1, c2, c3}", d*3/10, heal-d*3/10
			return []nemesis.Step{lag, cut, {Kind: nemesis.Force, Target: topology.GroupName, At: d * 6 / 10}}
		},
		Expect: check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1),
			MaxUnforcedFailovers: i64(0)},
		Figures: []Figure{lostFigure("D2", "acknowledged durable writes COORDINATOR FAILOVER FORCE lost", "report")},
		Notes: []string{noteCoordinated,
			"Every client runs CLIENT DURABILITY REPLICAS 1 with batches of 32. First n3 is cut from n1 and falls behind " +
				"while n2 keeps acknowledging the durable writes, so the committed sequence the coordinators record passes n3's " +
				"log. Then n1 and n2 are cut off together from the coordinators and n3 (the clients still reach every node). " +
				"The coordinators find the primary down but the only replica they reach lacks committed records: they must " +
				"not promote it (unforced_failovers must be 0) and warn on every tick instead.",
			"Later the harness sends COORDINATOR FAILOVER main FORCE to the leader, which promotes n3 anyway (the fault table " +
				"quotes its answer). Everything n3 lacks is lost by that choice: the durable writes acknowledged by n1 with n2 " +
				"since n3 fell behind, and those n1 goes on acknowledging while the partition lasts (the clients only leave it " +
				"when it is demoted after the heal). lost counts them: what FORCE cost, tolerated here because FORCE is the " +
				"operator accepting it."},
	})
	register(Scenario{
		Name: "partition",
		Summary: "the primary is cut from the coordinators only (its replicas and clients still reach it); refusal time " +
			"of the old primary and the two-writer window",
		Topology:         coordinatedGroup(),
		Workloads:        partitionLoad(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: cutPrimaryFromCoordinators,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			msFigure("F5", "primary cut from the coordinators only -> old primary's first NOREPLICAS (refusal time, from the fault)", "report",
				func(s check.Summary) *int64 { return s.RefusalMs }),
			msFigure("F5a", "the same refusal, after the new primary's first acknowledged write", "<= 100",
				func(s check.Summary) *int64 { return s.RefusalAfterFailoverMs }),
			msFigure("F5w", "two-writer window of that partition", "report", func(s check.Summary) *int64 { return s.TwoWriterMs }),
		},
		Notes: []string{noteCoordinated,
			"The primary n1 is cut from the three coordinators only: its replicas and the clients still reach it. The " +
				"coordinators promote a replica and point the other at it; n1 then has no replica left and min-replicas-to-write 1 " +
				"makes it refuse writes with NOREPLICAS. A second set workload is pinned to n1 throughout, so the report sees the " +
				"old primary's last acknowledged write and its first refusal. refusal_ms runs from the fault (the " +
				"refusal time); refusal_after_failover_ms from the new primary's first acknowledged write, the \"first " +
				"refusal after the failover\" (negative: n1 refused first). Writes n1 acknowledged after the promotion are " +
				"discarded when it rejoins: counted as lost and tolerated."},
	})
	register(Scenario{
		Name: "minority",
		Summary: "two coordinators of three are SIGKILLed (a follower, then the leader), then the primary: the one left " +
			"is no majority and must not fail over",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		Duration:         18 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			// The primary is back before the coordinators are.
			return []nemesis.Step{
				{Kind: nemesis.Kill, Target: nemesis.Follower, At: d / 6, For: d * 3 / 4},
				{Kind: nemesis.Kill, Target: nemesis.Leader, At: d / 6, For: d * 3 / 4},
				{Kind: nemesis.Kill, Target: "n1", At: d * 3 / 10, For: d * 3 / 10},
			}
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), EpochRise: i64(0)},
		Figures: []Figure{countFigure("F10", "failovers with one coordinator of three left and the primary killed", "failovers", "0", failoversOf)},
		Notes: []string{noteCoordinated,
			"Two coordinators are killed (a follower, then the leader, so the one left is a follower), then the primary. " +
				"A failover needs a majority of coordinators to find the primary silent and a leader to act: one of three " +
				"has neither, so nothing may change. The primary comes back before the two coordinators do, on its own data " +
				"(durability always): nothing acknowledged is lost and the registers stay linearizable; the clients cannot " +
				"write while it is down."},
	})
	register(Scenario{
		Name:             "restart",
		Summary:          "every coordinator is SIGKILLed and restarted, twice, while the primary answers: no failover",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			var steps []nemesis.Step
			for _, at := range []time.Duration{d / 5, d * 3 / 5} {
				for _, c := range coordinators {
					steps = append(steps, nemesis.Step{Kind: nemesis.Kill, Target: c, At: at, For: d / 8})
				}
			}
			return steps
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), EpochRise: i64(0)},
		Figures: []Figure{countFigure("F11", "failovers when every coordinator restarts while the primary answers", "failovers", "0", failoversOf)},
		Notes: []string{noteCoordinated,
			"All three coordinators are killed at once and restarted on their Raft data, twice. A restarted coordinator " +
				"counts a member it has not heard yet as silent only since its own start, so the primary, which answers " +
				"throughout, must keep its place: no failover, no epoch change. The clients keep writing to the primary " +
				"they know while no coordinator answers."},
	})
	register(Scenario{
		Name: "machine-stall",
		Summary: "every process is frozen with SIGSTOP for 3 s, three times down_after_ms, as on a stalled machine; " +
			"the primary resumes last: no failover",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			// Frozen together, resumed in turn: the replicas, the
			// coordinators 100 ms later, the primary 700 ms after them
			// (less than down_after_ms).
			at, hold := d*3/10, 3*time.Second
			steps := []nemesis.Step{
				{Kind: nemesis.Pause, Target: "n1", At: at, For: hold + 800*time.Millisecond},
				{Kind: nemesis.Pause, Target: "n2", At: at, For: hold},
				{Kind: nemesis.Pause, Target: "n3", At: at, For: hold},
			}
			for _, c := range coordinators {
				steps = append(steps, nemesis.Step{Kind: nemesis.Pause, Target: c, At: at, For: hold + 100*time.Millisecond})
			}
			return steps
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), EpochRise: i64(0)},
		Figures: []Figure{countFigure("F16", "failovers when every process is frozen (SIGSTOP) for 3 s and the primary resumes last",
			"failovers", "0", failoversOf)},
		Notes: []string{noteCoordinated,
			"The three coordinators and the three data nodes are frozen together for 3 s, as a machine that stops " +
				"scheduling them would; the replicas and the coordinators resume together, the primary 300 ms later. " +
				"Resumed, each coordinator has heard nobody for three times down_after_ms, and the replicas answer before the " +
				"primary. A coordinator notices the gap in its own clock (a watch ticks every 50 ms) and counts its members' " +
				"silence again from the end of the gap, so the primary, silent for 300 ms more, keeps its place: no failover, " +
				"no epoch change. A coordinator that counted the frozen seconds as the primary's silence would promote a " +
				"replica at its first tick."},
	})
	register(Scenario{
		Name:             "stall",
		Summary:          "a replica is frozen with SIGSTOP for 30 s: the primary is kept and takes every write; the replica catches up",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		Duration:         38 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			// 30 s frozen at the default length; --duration shortens it.
			at, hold := 4*time.Second, d-8*time.Second
			if hold < d/2 {
				at, hold = d/10, d/2
			}
			return []nemesis.Step{{Kind: nemesis.Pause, Target: "n3", At: at, For: hold}}
		},
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), EpochRise: i64(0), MaxUnacknowledgedWrites: i64(0)},
		Figures: []Figure{
			countFigure("F8", "writes not acknowledged while a replica is frozen (SIGSTOP) for 30 s", "writes", "0", unacknowledged),
			countFigure("F8f", "failovers while a replica is frozen for 30 s", "failovers", "0", failoversOf),
			msFigure("F8c", "the frozen replica's catch-up after SIGCONT", "report", func(s check.Summary) *int64 { return s.CatchUpMaxMs }),
		},
		Notes: []string{noteCoordinated,
			"n3 is frozen with SIGSTOP for 30 s (at the default duration). The coordinators see a replica silent, which is " +
				"no reason to fail over: the primary must stay (no failover, no epoch change) and, with n2 still acknowledging " +
				"(min-replicas-to-write 1), take every write: unacknowledged_writes counts the adds and plain writes that were " +
				"refused or indeterminate. After SIGCONT n3's catch-up is timed against the primary's position at that moment."},
	})
	register(Scenario{
		Name: "coord-partition",
		Summary: "the coordinator leader is cut from the other two (it still reaches the data nodes), then the primary is " +
			"killed: the majority fails over, the epoch rises exactly once, the new primary stays",
		Topology:         coordinatedGroup(),
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         45 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			cut := nemesis.LeaderFromCoordinators(nemesis.Leader, coordinators)
			cut.At, cut.For = 3*time.Second, d-5*time.Second
			return []nemesis.Step{cut, {Kind: nemesis.Kill, Target: "n1", At: 5 * time.Second, For: d / 4}}
		},
		Expect: check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			countFigure("F9", "epoch rise: leader cut from the other coordinators, then the primary killed", "epochs", "1", func(s check.Summary) *int64 { return s.EpochRise }),
			msFigure("F9h", "the new primary held, from its recording to the end of the run", ">= 30000", func(s check.Summary) *int64 { return s.PrimaryHeldMs }),
			msFigure("F9f", "failover time of that run", "report", failoverMs),
		},
		Notes: []string{noteCoordinated,
			"The coordinators' leader is cut from the other two while it still reaches every data node; then the primary is " +
				"killed. The two others elect a leader, agree the primary is down and fail over once; the old leader, unable to " +
				"confirm a majority, must neither fail over nor correct a member. failovers and epoch_rise must be exactly 1, and " +
				"primary_held_ms shows the new primary kept its place until the end of the run: at least 30 s at the default " +
				"duration (--duration shortens the hold, for tests). The old primary restarts during the partition and is made " +
				"a replica. Writes are not durable: loss is tolerated and counted."},
	})
	register(Scenario{
		Name:             "client",
		Summary:          "go-redis FailoverClients write through the coordinators (Sentinel protocol); the primary is SIGKILLed",
		Topology:         coordinatedGroup(),
		Workloads:        sentinelClients(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures:  []Figure{msFigure("F12", "Sentinel client (go-redis FailoverClient): primary killed -> first write on the new primary", "<= 1200", failoverMs)},
		Notes: []string{noteCoordinated,
			"Here the clients do not use the harness's look-up: each is a go-redis v9 FailoverClient given the three " +
				"coordinators as sentinels and the service name main. It asks them for the primary " +
				"(SENTINEL GET-MASTER-ADDR-BY-NAME), follows +switch-master, and is kept across failures, so the failover " +
				"time includes go-redis's own reaction: its dials to the dead primary and their retries, set up as " +
				"docs/coordinator.md recommends (PoolSize 10, DialerRetries 5 at 20 ms, DialTimeout 100 ms). " +
				"The history names the primary each client dialled."},
	})
}

// sentinelClients are coordinatedLoad through go-redis FailoverClients.
func sentinelClients() []workloads.Spec {
	specs := coordinatedLoad()
	for i := range specs {
		specs[i].Via, specs[i].Master = workloads.ViaSentinel, topology.GroupName
	}
	return specs
}

// partitionLoad is partition's: sets on the primary, and sets pinned to
// n1 throughout, which see the old primary's last acknowledged write and
// its first refusal.
func partitionLoad() []workloads.Spec {
	return []workloads.Spec{
		{Kind: workloads.KindSet, Clients: 6, Keys: 4, Rate: 200},
		{Kind: workloads.KindSet, Clients: 2, Keys: 2, Rate: 200, Node: "n1"},
	}
}

// cutPrimaryFromCoordinators cuts n1 from the coordinators only, from 30%
// to 80% of the run.
func cutPrimaryFromCoordinators(rng *rand.Rand, d time.Duration) []nemesis.Step {
	st := nemesis.PrimaryFromCoordinators("n1", coordinators)
	st.At, st.For = d*3/10, d/2
	return []nemesis.Step{st}
}
