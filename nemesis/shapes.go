package nemesis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ruvio/ruvio/chaos"
)

// Partition shapes: pure functions from member names to the directed links
// a partition cuts. Both directions are cut unless a shape says otherwise.
// The client (chaos.Client) is a member like any other: a shape decides
// which side it is on.

// both returns the links cutting every member of a from every member of
// b, in both directions.
func both(a, b []string) []chaos.Link {
	var out []chaos.Link
	for _, x := range a {
		for _, y := range b {
			if x == y {
				continue
			}
			out = append(out, chaos.Link{From: x, To: y}, chaos.Link{From: y, To: x})
		}
	}
	return out
}

func without(all []string, drop ...string) []string {
	var out []string
	for _, m := range all {
		keep := true
		for _, d := range drop {
			if m == d {
				keep = false
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}

// Isolate cuts node from every other member, the client included.
func Isolate(node string, members []string) Step {
	return Step{Kind: Partition, Target: "isolate " + node, Links: both([]string{node}, without(members, node))}
}

// Split cuts side from everything else: a node set against the rest
// (majority/minority when side is a minority).
func Split(side, members []string) Step {
	s := append([]string(nil), side...)
	sort.Strings(s)
	return Step{Kind: Partition, Target: "split {" + strings.Join(s, ",") + "} | rest",
		Links: both(side, without(members, side...))}
}

// Bridge splits a from b while bridge still reaches both sides (Jepsen's
// bridge: two halves joined by one member).
func Bridge(a, b []string, bridge string) Step {
	return Step{Kind: Partition, Target: fmt.Sprintf("bridge {%s} | {%s} via %s", strings.Join(a, ","), strings.Join(b, ","), bridge),
		Links: both(without(a, bridge), without(b, bridge))}
}

// PrimaryFromCoordinators cuts the primary from the coordinators only: its
// replicas and clients still reach it.
func PrimaryFromCoordinators(primary string, coordinators []string) Step {
	return Step{Kind: Partition, Target: "primary " + primary + " cut from the coordinators only",
		Links: both([]string{primary}, coordinators)}
}

// OldPrimaryWithReplica is the spec's split-brain shape: {old primary +
// one replica} | {other replicas + coordinators}. The client stays with
// the old primary, so it can keep writing there.
func OldPrimaryWithReplica(primary, replica string, others, coordinators []string) Step {
	side := []string{primary, replica, chaos.Client}
	rest := append(append([]string(nil), others...), coordinators...)
	return Step{Kind: Partition, Target: fmt.Sprintf("{%s + %s} | {%s}", primary, replica, strings.Join(rest, ",")),
		Links: both(side, rest)}
}

// LeaderFromCoordinators cuts the coordinator leader from the other
// coordinators while it still reaches every data node.
func LeaderFromCoordinators(leader string, coordinators []string) Step {
	return Step{Kind: Partition, Target: "coordinator leader " + leader + " cut from the other coordinators",
		Links: both([]string{leader}, without(coordinators, leader))}
}
