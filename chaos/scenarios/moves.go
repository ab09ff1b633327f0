package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Slot moves under load: the groups of twoGroups, a cluster client
// writing keys of the range that moves (Spec.Slots puts every key of a
// workload in it with a hash tag), and the coordinators' operator sending
// COORDINATOR MOVE (or REBALANCE) to the leader and following STATUS
// until the move ended (history.ObsMove). check.MoveResult measures what
// the writers saw and holds the final reads of the moved keys to the new
// owner.

// The range the move scenarios move: the first 1024 slots of group a's
// shard 0 (a holds 0-8191 on two shards: 0-4095 and 4096-8191) to shard
// 0 of group b.
const (
	movedSlots = "0-1023"
	moveTarget = "0 1023 " + groupB + " 0"
)

// movedLoad is durable set and register load through cluster clients on
// keys of slots only, at rate per client (0: as fast as it goes).
func movedLoad(slots string, clients int, rate float64) []workloads.Spec {
	return []workloads.Spec{
		{Kind: workloads.KindSet, Clients: clients, Keys: 8, Durable: 1, Rate: rate, Via: workloads.ViaCluster,
			Slots: slots, KeyPrefix: "set:"},
		{Kind: workloads.KindRegister, Clients: clients, Keys: 6, Durable: 1, Rate: rate / 2, Via: workloads.ViaCluster,
			Slots: slots, KeyPrefix: "reg:"},
	}
}

// The move-big scenario's preload: bigRangeKeys keys of bigRangeBytes
// bytes each in the moving range, written before the load starts.
const (
	bigRangeKeys  = 50000
	bigRangeBytes = 256
)

// killedRangeKeys is move-failover's preload: enough keys that the copy
// outlasts the kill's delivery (a Docker SIGKILL takes up to a few
// hundred milliseconds), so the kill lands while the move is under way;
// an empty range's move commits in under 100 ms.
const killedRangeKeys = 20000

// bigRangeLoad is movedLoad with the set workload preloading the range
// with n keys of bigRangeBytes.
func bigRangeLoad(clients int, rate float64, n int) []workloads.Spec {
	l := movedLoad(movedSlots, clients, rate)
	l[0].Preload, l[0].PreloadBytes = n, bigRangeBytes
	return l
}

// moveAt is one COORDINATOR MOVE of moveTarget at frac of the run.
func moveAt(frac float64) func(*rand.Rand, time.Duration) []nemesis.Step {
	return func(_ *rand.Rand, d time.Duration) []nemesis.Step {
		return []nemesis.Step{{Kind: nemesis.Move, Target: moveTarget, At: time.Duration(float64(d) * frac), For: time.Second}}
	}
}

// moveThen sends the move at 30% of the run and, right after its
// answer, puts fault on the source's primary (n1), lasting holdTenths
// tenths of the run: the move is then copying the preloaded range, so
// the failover ends that start. The move's step ends after the fault's,
// so the fault is not held back by the wait for the move's end.
func moveThen(fault string, holdTenths time.Duration) func(*rand.Rand, time.Duration) []nemesis.Step {
	return func(_ *rand.Rand, d time.Duration) []nemesis.Step {
		at := d * 3 / 10
		return []nemesis.Step{
			{Kind: nemesis.Move, Target: moveTarget, At: at, For: d * 4 / 10},
			{Kind: fault, Target: primaryA, At: at, For: d * holdTenths / 10},
		}
	}
}

// The rebalance scenario: the groups of twoGroups, full (a 0-8191, b
// 8192-16383), and a third group c (n7 primary, n8 replica) that joins
// with no slots, listed with slots = [] in the coordinators' [[groups]]
// and with "slots" and nothing after it in the nodes' cluster_topology.
// REBALANCE's plan (coordinator/rules/rebalance.go decides) gives c its
// share, 5461 slots, in 22 moves of at most 256 slots, taking turns
// between b and a and between their shards: the first four are
// 12032-12287 b/0, 3840-4095 a/0, 12288-12543 b/1 and 4096-4351 a/1, all
// to c. The load writes keys of those four moves: the set workload in b's
// two (rebalancedFromB), the register workload in a's (rebalancedFromA).
const (
	groupC          = "c"
	primaryC        = "n7"
	rebalancedFromB = "12032-12543"
	rebalancedFromA = "3840-4351"
)

// joining is the rebalance scenario's topology: twoGroups and the empty
// group c.
func joining() topology.Topology {
	t := twoGroups()
	t.Groups = append(t.Groups, topology.ClusterGroup{Name: groupC, Slots: []string{}})
	node := func(name, primary string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, Group: groupC, ReplicaOf: primary,
			Args: []string{"server", "--durability", "always"}}
	}
	// Before the coordinators, as the other data nodes.
	nodes := append([]topology.NodeSpec{}, t.Nodes[:6]...)
	nodes = append(nodes, node(primaryC, ""), node("n8", primaryC))
	t.Nodes = append(nodes, t.Nodes[6:]...)
	return t
}

// rebalanceLoad is the set and register load of movedLoad, the sets on
// keys of b's first two moves and the registers on keys of a's.
func rebalanceLoad() []workloads.Spec {
	sets, regs := movedLoad(rebalancedFromB, 4, 100), movedLoad(rebalancedFromA, 4, 100)
	return []workloads.Spec{sets[0], regs[1]}
}

func rebalanceAt(_ *rand.Rand, d time.Duration) []nemesis.Step {
	return []nemesis.Step{{Kind: nemesis.Rebalance, At: d * 3 / 10, For: time.Second}}
}

func movesOf(s check.Summary) *check.MoveResult {
	if s.Moves == nil {
		return &check.MoveResult{}
	}
	return s.Moves
}

func slowestWrite(s check.Summary) *int64 { return movesOf(s).SlowestWriteMs }
func freezeOf(s check.Summary) *int64     { return movesOf(s).FreezeMs }
func moveMsOf(s check.Summary) *int64     { return movesOf(s).MoveMs }
func startsOf(s check.Summary) *int64     { return movesOf(s).Starts }
func committedOf(s check.Summary) *int64  { return &movesOf(s).Committed }
func writeRateOf(s check.Summary) *int64  { return &movesOf(s).WriteRate }

// noteMoveMeasure says how the move figures are measured, for every move
// scenario's report.
const noteMoveMeasure = "The coordinators' operator sends the command to the leader (after AUTH) and polls COORDINATOR STATUS " +
	"every 20 ms until the move (move_id) is committed, failed or cancelled: the move's window in the history, and " +
	"move_ms. The cluster clients retry TRYAGAIN inside the op (7 retries doubling from 5 ms), so slowest_write_ms, " +
	"the longest acknowledged add or write (one command each; a compare-and-set takes several round trips) on the " +
	"moved keys in flight during the move, from its first send to its success, " +
	"holds the whole stretch from its first TRYAGAIN to its success plus a round trip. freeze_ms is, per move, the longest " +
	"stretch between two acknowledged writes on its keys overlapping it: what all the writers together " +
	"saw, a write that gave up included, and never below the pacing between writes. Every final read of a moved " +
	"key must be answered by a member of the group it moved to (final_on_owner, final_elsewhere: a violation), " +
	"and every acknowledged write must be in it (lost)."

func init() {
	register(Scenario{
		Name: "move",
		Summary: "two groups share the slots; COORDINATOR MOVE takes 1024 of group a's slots to group b while durable " +
			"cluster clients write keys of that range: how long a write waited on TRYAGAIN, acknowledged writes lost",
		Topology:  twoGroups(),
		Workloads: movedLoad(movedSlots, 4, 100),
		Duration:  12 * time.Second, Settle: 2 * time.Second,
		Schedule: moveAt(0.4),
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), Moves: &check.MoveExpectations{MinCommitted: 1}},
		Figures: []Figure{
			msFigure("F13", "slot move: longest acknowledged write on the moving range's keys during the move (its TRYAGAIN retries included)",
				"median <= 100", slowestWrite),
			msFigure("F13a", "slot move: longest stretch without an acknowledged write on the moving range's keys during the move",
				"report", freezeOf),
			msFigure("F13b", "slot move: COORDINATOR MOVE -> STATUS says committed (polled every 20 ms)", "report", moveMsOf),
			lostFigure("F13c", "acknowledged durable writes lost, the final reads on the new owner", "0, every run"),
		},
		Notes: []string{
			"Groups a (n1 primary, n2 replica: slots 0-8191) and b (n3, n4: 8192-16383), two shards per node, durability " +
				"always, three coordinators. The set and register workloads run through go-redis cluster clients, every " +
				"key in slots 0-1023 (a hash tag picks the slot); CLIENT DURABILITY REPLICAS 1 on every connection. At 40% " +
				"of the run COORDINATOR MOVE 0 1023 b 0 moves the range from a's shard 0 to b's shard 0.",
			noteMoveMeasure,
		},
	})
	register(Scenario{
		Name: "move-failover",
		Summary: "a slot move whose source primary is SIGKILLed right after COORDINATOR MOVE: the move starts again " +
			"with the promoted replica and commits; acknowledged writes lost",
		Topology:  twoGroups(),
		Workloads: bigRangeLoad(4, 100, killedRangeKeys),
		Duration:  16 * time.Second, Settle: 2 * time.Second,
		Schedule: moveThen(nemesis.Kill, 3), // SIGKILL for 30% of the run
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(1), Moves: &check.MoveExpectations{MinCommitted: 1, MinStarts: 2}},
		Figures: []Figure{
			countFigure("M1", "slot move with the source's primary killed mid-move: move_starts when it committed", "starts", ">= 2", startsOf),
			msFigure("M1a", "the same: COORDINATOR MOVE -> STATUS says committed", "report", moveMsOf),
			countFigure("M1b", "the same: moves committed", "moves", "1", committedOf),
			lostFigure("M1c", "the same: acknowledged durable writes lost", "0, every run"),
		},
		Notes: []string{
			"The move scenario's groups and load, the range preloaded with 20000 string keys of 256 bytes (about 5 MB) " +
				"so that the kill lands while the move copies them. At 30% of the run COORDINATOR MOVE 0 1023 b 0 is sent and, as soon " +
				"as the leader answers its id, n1 (a's primary, the move's source) is SIGKILLed for 30% of the run. The " +
				"coordinators promote n2; the failover ends the move's start and the leader starts it again from the new " +
				"primary (move_starts 2). Writes to the range wait for n2 to have a replica again (durable), as in groups-kill.",
			noteMoveMeasure,
		},
	})
	register(Scenario{
		Name: "move-switchover",
		Summary: "a slot move whose source group is switched over (SENTINEL FAILOVER) right after COORDINATOR MOVE: " +
			"the move and the switchover both end, no acknowledged write lost, no two writers",
		Topology:  twoGroups(),
		Workloads: bigRangeLoad(4, 100, killedRangeKeys),
		Duration:  16 * time.Second, Settle: 2 * time.Second,
		Schedule: moveThen(nemesis.Switchover, 0), // SENTINEL FAILOVER a, nothing to undo
		// The clients' longest stretch without an acknowledged write is
		// the switchover's pause and the clients finding n2: a node the
		// switchover made a replica must send them there (one that
		// refused their CLIENT DURABILITY kept them to the end of the run).
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			MaxTwoWriterMs: i64(0), MaxUnavailableMs: i64(3000), Failovers: i64(1), Moves: &check.MoveExpectations{MinCommitted: 1}},
		Figures: []Figure{
			countFigure("M3", "slot move with the source group switched over mid-move: move_starts when it committed", "starts", "report", startsOf),
			msFigure("M3a", "the same: COORDINATOR MOVE -> STATUS says committed", "report", moveMsOf),
			msFigure("M3b", "the same: longest stretch without an acknowledged write", "<= 3000", unavailableMs),
			lostFigure("M3c", "the same: acknowledged durable writes lost", "0, every run"),
		},
		Notes: []string{
			"move-failover's groups, load and preloaded range. At 30% of the run COORDINATOR MOVE 0 1023 b 0 is sent and, as " +
				"soon as the leader answers its id, SENTINEL FAILOVER a is sent to a coordinator that is not the leader: " +
				"the leader pauses n1's writes, waits until n2 holds every record n1 has, promotes n2 and points n1 at it, " +
				"while the move copies the range out of n1. Both must end: the switchover with one failover, the move " +
				"committed (started again from n2 if the switchover ended its start), with no acknowledged write lost " +
				"and no two writers.",
			noteMoveMeasure,
		},
	})
	register(Scenario{
		Name: "move-load",
		Summary: "a slot move while eight cluster clients write the range as fast as they can: the writers' longest " +
			"wait on TRYAGAIN against the write rate, and whether the move commits",
		Topology:  twoGroups(),
		Workloads: movedLoad(movedSlots, 8, 0),
		Duration:  10 * time.Second, Settle: 2 * time.Second,
		Schedule: moveAt(0.5),
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true,
			Failovers: i64(0), Moves: &check.MoveExpectations{MinCommitted: 1}},
		Figures: []Figure{
			msFigure("M2", "slot move at the highest write rate: longest acknowledged write on the range's keys during the move",
				"report", slowestWrite),
			msFigure("M2a", "the same: longest stretch without an acknowledged write on the range's keys", "report", freezeOf),
			countFigure("M2b", "the same: acknowledged writes per second on the range's keys over the run", "writes/s", "report", writeRateOf),
			countFigure("M2c", "the same: moves committed", "moves", "1", committedOf),
			lostFigure("M2d", "the same: acknowledged durable writes lost", "0, every run"),
		},
		Notes: []string{
			"The move scenario's groups, with eight set and eight register clients on the range's keys and no rate " +
				"limit (bounded by the round trips of durable writes on this machine). The move at 50% of the run.",
			noteMoveMeasure,
		},
	})
	register(Scenario{
		Name: "move-big",
		Summary: "the move scenario with the moving range preloaded with 50000 keys of 256 bytes: whether the " +
			"writers' wait on TRYAGAIN grows with the keys and bytes the move copies",
		Topology:  twoGroups(),
		Workloads: bigRangeLoad(4, 100, bigRangeKeys),
		// Long enough for the copy to end within the load on a slow
		// machine (10 s measured).
		Duration: 28 * time.Second, Settle: 2 * time.Second,
		Schedule: moveAt(0.4),
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), Moves: &check.MoveExpectations{MinCommitted: 1}},
		Figures: []Figure{
			msFigure("F13d", "slot move of a range holding 50000 keys of 256 bytes (about 12.8 MB) besides the 14 written, "+
				"at the move scenario's write rate: longest acknowledged write on the written keys during the move", "report", slowestWrite),
			msFigure("F13e", "the same: longest stretch without an acknowledged write on the written keys during the move",
				"report", freezeOf),
			msFigure("F13f", "the same: COORDINATOR MOVE -> STATUS says committed (the copy of the whole range included)",
				"report", moveMsOf),
			countFigure("F13g", "the same: acknowledged writes per second on the range's keys over the run", "writes/s",
				"report", writeRateOf),
			lostFigure("F13h", "the same: acknowledged durable writes lost", "0, every run"),
		},
		Notes: []string{
			"The move scenario's groups, load (four set clients at 100 adds/s on 8 keys, four register clients at " +
				"50 ops/s on 6 keys, every key in slots 0-1023) and move at 40% of the run. Before the load starts, " +
				"one cluster client writes 50000 more string keys of 256 bytes in slots 0-1023 (pipelines of 500 " +
				"SETs, no durability wait), so the move copies about 12.8 MB besides the written keys. The preloaded " +
				"keys are never written again: the dirty keys the catch-up and the freeze send are the load's alone. " +
				"Set against F13 (the same load, 14 keys in the range) and M2 (14 keys, writes as fast as they go), " +
				"the rows tell what grows the freeze: the range's size or the writes during it.",
			noteMoveMeasure,
		},
	})
	register(Scenario{
		Name: "move-big-load",
		Summary: "move-big's preloaded range moved while eight cluster clients write its keys as fast as they can: " +
			"the range's size and the writes during the move together",
		Topology:  twoGroups(),
		Workloads: bigRangeLoad(8, 0, bigRangeKeys),
		Duration:  28 * time.Second, Settle: 2 * time.Second,
		Schedule: moveAt(0.3),
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireConverged: true,
			Failovers: i64(0), Moves: &check.MoveExpectations{MinCommitted: 1}},
		Figures: []Figure{
			msFigure("F13i", "slot move of a range holding 50000 keys of 256 bytes besides the 14 written, writes as fast "+
				"as they go: longest acknowledged write on the written keys during the move", "report", slowestWrite),
			msFigure("F13j", "the same: longest stretch without an acknowledged write on the written keys during the move",
				"report", freezeOf),
			msFigure("F13k", "the same: COORDINATOR MOVE -> STATUS says committed", "report", moveMsOf),
			countFigure("F13l", "the same: acknowledged writes per second on the range's keys over the run", "writes/s",
				"report", writeRateOf),
			lostFigure("F13m", "the same: acknowledged durable writes lost", "0, every run"),
		},
		Notes: []string{
			"move-big's groups and preload (50000 string keys of 256 bytes in slots 0-1023, written before the " +
				"load), with move-load's writers: eight set and eight register clients on the 14 written keys with no " +
				"rate limit. The move at 30% of the run, which leaves the copy of the whole range time to end.",
			noteMoveMeasure,
		},
	})
	register(Scenario{
		Name: "rebalance",
		Summary: "a new group with no slots joins two full ones and COORDINATOR REBALANCE gives it its share, under " +
			"durable cluster-client load on keys that move: moves, total time, longest TRYAGAIN wait, lost",
		Topology:  joining(),
		Workloads: rebalanceLoad(),
		Duration:  16 * time.Second, Settle: 2 * time.Second,
		Schedule: rebalanceAt,
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(0), Moves: &check.MoveExpectations{MinCommitted: 1, Rebalanced: true}},
		Figures: []Figure{
			msFigure("B1", "new empty group joins two full ones: COORDINATOR REBALANCE -> STATUS says done (22 planned moves of <= 256 slots)", "report",
				func(s check.Summary) *int64 { return movesOf(s).RebalanceMs }),
			countFigure("B1a", "the same: moves the operator saw committed in STATUS, of the plan's 22 (polled every 20 ms: a shorter move can go unseen)",
				"moves", "report", committedOf),
			msFigure("B1b", "the same: longest acknowledged write on the moving slots' keys during a move (its TRYAGAIN retries included)", "report", slowestWrite),
			msFigure("B1d", "the same: longest stretch without an acknowledged write on a moving range's keys during its move", "report", freezeOf),
			lostFigure("B1c", "the same: acknowledged durable writes lost, the final reads on the new owner", "0, every run"),
		},
		Notes: []string{
			"Groups a (n1 primary, n2, n3: slots 0-8191) and b (n4 primary, n5, n6: 8192-16383), two shards per node, " +
				"durability always, three coordinators; group c (n7 primary, n8) is listed with slots = [] in the " +
				"coordinators' [[groups]] and with no slots in the nodes' cluster_topology: it owns nothing when the run " +
				"starts. The set workload's keys are in 12032-12543 and the register workload's in 3840-4351, the slots " +
				"of the plan's first four moves (12032-12287 b/0, 3840-4095 a/0, 12288-12543 b/1, 4096-4351 a/1, all to c). " +
				"At 30% of the run COORDINATOR REBALANCE; the leader makes the plan's 22 moves one after the other, " +
				"5461 slots in all, leaving a, b and c within one slot of 16384/3 each. The operator records each move " +
				"it sees end in STATUS (a move shorter than the 20 ms poll may go unseen: committed counts what was seen) " +
				"and the rebalance from its sending to rebalance:done.",
			noteMoveMeasure,
		},
	})
}
