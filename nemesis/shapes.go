package nemesis

import (
	"sort"
	"strings"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Partition shapes: pure functions from member names to the directed links
// a partition cuts. Both directions are cut unless a shape says otherwise.
// The client (topology.Client) is a member like any other: a shape decides
// which side it is on.

// both returns the links cutting every member of a from every member of
// b, in both directions.
func both(a, b []string) []topology.Link {
	var out []topology.Link
	for _, x := range a {
		for _, y := range b {
			if x == y {
				continue
			}
			out = append(out, topology.Link{From: x, To: y}, topology.Link{From: y, To: x})
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

// Split cuts side from everything else: a node set against the rest
// (majority/minority when side is a minority).
func Split(side, members []string) Step {
	s := append([]string(nil), side...)
	sort.Strings(s)
	return Step{Kind: Partition, Target: "split {" + strings.Join(s, ",") + "} | rest",
		Links: both(side, without(members, side...))}
}

// PrimaryFromCoordinators cuts the primary from the coordinators only: its
// replicas and clients still reach it.
func PrimaryFromCoordinators(primary string, coordinators []string) Step {
	return Step{Kind: Partition, Target: "primary " + primary + " cut from the coordinators only",
		Links: both([]string{primary}, coordinators)}
}

// LeaderFromCoordinators cuts the coordinator leader from the other
// coordinators while it still reaches every data node.
func LeaderFromCoordinators(leader string, coordinators []string) Step {
	return Step{Kind: Partition, Target: "coordinator leader " + leader + " cut from the other coordinators",
		Links: both([]string{leader}, without(coordinators, leader))}
}
