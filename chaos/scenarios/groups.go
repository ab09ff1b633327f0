package scenarios

import (
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Several groups sharing the hash slots: two groups, a (n1 primary, n2
// and n3 its replicas) holding slots 0-8191 and b (n4 primary, n5, n6)
// holding 8192-16383, two shards per node (the [[groups]] shards of the
// coordinators and the nodes' cluster_topology agree: the backend writes
// both from Topology.Groups), durability always, and three coordinators
// over both groups.

// The groups of twoGroups and the primary of each at start.
const (
	groupA, groupB     = "a", "b"
	primaryA, primaryB = "n1", "n4"
)

// twoGroups is the clustered topology of the groups scenarios.
func twoGroups() topology.Topology {
	node := func(name, group, primary string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, Group: group, ReplicaOf: primary,
			Args: []string{"server", "--durability", "always"}}
	}
	t := topology.Topology{Shards: 2, Groups: []topology.ClusterGroup{
		{Name: groupA, Slots: []string{"0-8191"}},
		{Name: groupB, Slots: []string{"8192-16383"}},
	}, Nodes: []topology.NodeSpec{
		node(primaryA, groupA, ""), node("n2", groupA, primaryA), node("n3", groupA, primaryA),
		node(primaryB, groupB, ""), node("n5", groupB, primaryB), node("n6", groupB, primaryB),
	}}
	for _, c := range coordinators {
		t.Nodes = append(t.Nodes, topology.NodeSpec{Name: c, Role: topology.RoleCoordinator, Args: []string{"coordinator"}})
	}
	return t
}

// clusterLoad is the set and register workloads through cluster clients,
// durable (CLIENT DURABILITY REPLICAS 1), on keys of both groups (the
// scenario test checks that each group owns some of each workload's
// keys). A cluster client sends one command per round trip: no batches.
func clusterLoad() []workloads.Spec {
	return []workloads.Spec{
		{Kind: workloads.KindSet, Clients: 4, Keys: 8, Durable: 1, Rate: 100, Via: workloads.ViaCluster},
		{Kind: workloads.KindRegister, Clients: 4, Keys: 6, Durable: 1, Rate: 50, Via: workloads.ViaCluster},
	}
}

// groupFigure reads one group's figure from a summary.
func groupFigure(id, what, target, group string, read func(g check.GroupResult) *int64) Figure {
	return msFigure(id, what, target, func(s check.Summary) *int64 {
		for _, g := range s.Groups {
			if g.Group == group {
				return read(g)
			}
		}
		return nil
	})
}

func init() {
	register(Scenario{
		Name: "groups-kill",
		Summary: "two groups share the slots; the primary of one is SIGKILLed under durable cluster-client load on " +
			"both groups' keys: its failover, each group's longest unavailability, acknowledged writes lost",
		Topology:  twoGroups(),
		Workloads: clusterLoad(),
		Duration:  16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect: check.Expectations{MinAcknowledged: 1, MaxLost: i64(0), RequireLinearizable: true, RequireConverged: true,
			Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{
			groupFigure("G1", "primary of group a killed -> first answer a cluster client got from a's promoted replica", "report", groupA,
				func(g check.GroupResult) *int64 { return g.FailoverMs }),
			groupFigure("G1a", "the same -> first op a's promoted replica acknowledged (durable: once its other replica follows it)", "<= F1 + 200", groupA,
				func(g check.GroupResult) *int64 { return g.FirstAckMs }),
			groupFigure("G2", "longest window without a success on group a's keys (the killed group)", "report", groupA,
				func(g check.GroupResult) *int64 { return g.UnavailableMs }),
			groupFigure("G3", "longest window without a success on group b's keys (the other group)", "about 0", groupB,
				func(g check.GroupResult) *int64 { return g.UnavailableMs }),
			lostFigure("G4", "acknowledged durable writes lost, both groups", "0, every run"),
		},
		Notes: []string{
			"Two groups share the hash slots: a (n1 primary, n2 and n3 replicas) owns 0-8191, b (n4 primary, n5 and n6) " +
				"8192-16383, two shards per node, durability always. Every data node starts with the same cluster_topology " +
				"file (version 1) and its cluster_group; three coordinators watch both groups (ping_interval_ms 200, " +
				"down_after_ms 1000) and push their cluster map to every member on each ping.",
			"The clients are go-redis cluster clients seeded with every data node: they read CLUSTER SLOTS, send each key " +
				"to the primary of its group, follow MOVED, and reload the map at once when a node cannot be reached. Every " +
				"connection runs CLIENT DURABILITY REPLICAS 1, so a write is acknowledged only once the group's replica " +
				"holds it; with two replicas a group keeps one for its new primary when it loses a member. The harness asks the coordinators about each group and reports each group's figures on the " +
				"keys it owns (the groups lines of the summary).",
			"n1, group a's primary, is SIGKILLed from 30% to 70% of the run. The coordinators promote one of n2 and n3 " +
				"(promoted_ms of group a, from their record) and point the other at it; the clients reach it once they have " +
				"the new map (failover_ms: the first op on a's keys it answered, ok or with an error reply; first_ack_ms: the " +
				"first it acknowledged, once its remaining replica holds the write). n1 comes back as a replica. Group b is " +
				"not touched: its window is the gap between two successes on its keys. No acknowledged write may be lost in " +
				"either group.",
		},
	})
}
