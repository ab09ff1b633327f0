package nemesis

import (
	"sort"
	"strings"
	"time"

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

// OneWay cuts every link from the member to the others in that direction
// only: it hears them, they do not hear it.
func OneWay(member string, others []string) Step {
	var links []topology.Link
	for _, o := range others {
		if o != member {
			links = append(links, topology.Link{From: member, To: o})
		}
	}
	return Step{Kind: Partition, Target: member + " heard by nobody (one way)", Links: links}
}

// SlowLinks degrades every link between member and the others, both
// directions, with n.
func SlowLinks(member string, others []string, n topology.Netem) Step {
	return Step{Kind: Slow, Target: "links of " + member + " slowed", Links: both([]string{member}, others), Netem: n}
}

// Group is what a table shape acts on: one replication group and its
// coordinators. Replicas[0] is the replica that stays with the primary in
// the shapes that keep one, Replicas[len-1] the one left behind.
type Group struct {
	Primary      string
	Replicas     []string
	Coordinators []string
}

// others are every member of g but the primary: replicas, then
// coordinators.
func (g Group) others() []string {
	return append(append([]string(nil), g.Replicas...), g.Coordinators...)
}

// Shape is one named fault of the partition table, which every backend
// carries out: Steps lays it out for a group, starting at at and lasting
// hold. The clients (the harness) reach every node throughout, so the
// old primary can go on acknowledging whatever the shape does to it.
type Shape struct {
	Name  string
	Title string
	// NeedsLeader says the shape names the coordinators' leader: a
	// system whose coordinators elect none cannot run it.
	NeedsLeader bool
	// CutsPrimary says the primary is cut from the coordinators (the
	// bounds of min-replicas-to-write and the lease apply);
	// KeepsReplica that it keeps a replica on its side.
	CutsPrimary, KeepsReplica bool
	Steps                     func(g Group, at, hold time.Duration) []Step
}

// SlowNetem is the slow shape's degradation: 150 ms +- 100 ms, 10 % loss.
var SlowNetem = topology.Netem{Delay: 150 * time.Millisecond, Jitter: 100 * time.Millisecond, LossPercent: 10}

func timed(st Step, at, hold time.Duration) []Step {
	st.At, st.For = at, hold
	return []Step{st}
}

// The shapes of the partition table, in its row order.
var (
	ShapeKill = Shape{Name: "kill", Title: "the primary killed (SIGKILL, restarted after the hold)",
		Steps: func(g Group, at, hold time.Duration) []Step {
			return []Step{{Kind: Kill, Target: g.Primary, At: at, For: hold}}
		}}
	ShapeIsolated = Shape{Name: "isolated", Title: "the primary cut from everything (clients still reach it)", CutsPrimary: true,
		Steps: func(g Group, at, hold time.Duration) []Step {
			return timed(Split([]string{g.Primary}, g.others()), at, hold)
		}}
	ShapeFromCoordinators = Shape{Name: "from-coordinators", Title: "the primary cut from the coordinators only", CutsPrimary: true,
		Steps: func(g Group, at, hold time.Duration) []Step {
			return timed(PrimaryFromCoordinators(g.Primary, g.Coordinators), at, hold)
		}}
	ShapeWithReplica = Shape{Name: "with-replica", Title: "the primary cut off together with one replica", CutsPrimary: true, KeepsReplica: true,
		Steps: func(g Group, at, hold time.Duration) []Step {
			st := Split([]string{g.Primary, g.Replicas[0]}, g.others())
			st.Target = "{" + g.Primary + " + " + g.Replicas[0] + "} | rest"
			return timed(st, at, hold)
		}}
	ShapeWithDurableReplica = Shape{Name: "with-durable-replica",
		Title:       "the primary cut off together with the replica holding the durable writes (the other fell behind first)",
		CutsPrimary: true, KeepsReplica: true,
		Steps: func(g Group, at, hold time.Duration) []Step {
			behind := g.Replicas[len(g.Replicas)-1]
			lag := Split([]string{behind}, []string{g.Primary})
			lag.Target = behind + " cut from " + g.Primary + " (falls behind)"
			lag.At, lag.For = at/2, at/2+hold
			st := Split([]string{g.Primary, g.Replicas[0]}, g.others())
			st.Target = "{" + g.Primary + " + " + g.Replicas[0] + "} | rest"
			return append([]Step{lag}, timed(st, at, hold)...)
		}}
	ShapePause = Shape{Name: "pause", Title: "the primary frozen (SIGSTOP) for longer than down_after_ms, then resumed",
		Steps: func(g Group, at, hold time.Duration) []Step {
			return []Step{{Kind: Pause, Target: g.Primary, At: at, For: hold}}
		}}
	ShapeLeaderCut = Shape{Name: "leader-cut", Title: "the coordinators' leader cut from the other coordinators", NeedsLeader: true,
		Steps: func(g Group, at, hold time.Duration) []Step {
			return timed(LeaderFromCoordinators(Leader, g.Coordinators), at, hold)
		}}
	ShapeOneWay = Shape{Name: "one-way", Title: "a one-way cut: the primary hears the others, they do not hear it", CutsPrimary: true,
		Steps: func(g Group, at, hold time.Duration) []Step {
			return timed(OneWay(g.Primary, g.others()), at, hold)
		}}
	ShapeSlow = Shape{Name: "slow", Title: "a slow, lossy link between the primary and the rest (" + SlowNetem.String() + ")",
		Steps: func(g Group, at, hold time.Duration) []Step {
			return timed(SlowLinks(g.Primary, g.others(), SlowNetem), at, hold)
		}}
)

// TableShapes are the partition table's rows.
var TableShapes = []Shape{ShapeKill, ShapeIsolated, ShapeFromCoordinators, ShapeWithReplica, ShapeWithDurableReplica,
	ShapePause, ShapeLeaderCut, ShapeOneWay, ShapeSlow}

// ShapeByName finds a table shape.
func ShapeByName(name string) (Shape, bool) {
	for _, s := range TableShapes {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}
