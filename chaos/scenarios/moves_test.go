package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/ruvio/slots"
	clustermap "github.com/ruvio/ruvio/ruvio/topology"
)

// The move scenarios: a valid clustered topology, every workload key (as
// the runner names them) in the slots that move and owned by the group
// they move from, and the schedule's move step, with move-failover's kill
// of the source's primary right after the move.
func TestMoveScenarios(t *testing.T) {
	for _, c := range []struct {
		name, slots, from string
		kinds             []string
	}{
		{"move", movedSlots, groupA, []string{nemesis.Move}},
		{"move-failover", movedSlots, groupA, []string{nemesis.Move, nemesis.Kill}},
		{"move-switchover", movedSlots, groupA, []string{nemesis.Move, nemesis.Switchover}},
		{"move-load", movedSlots, groupA, []string{nemesis.Move}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, ok := Get(c.name)
			if !ok {
				t.Fatalf("%s is not registered", c.name)
			}
			if err := sc.Topology.CheckGroups(); err != nil {
				t.Fatal(err)
			}
			moved, err := clustermap.ParseRange(c.slots)
			if err != nil {
				t.Fatal(err)
			}
			var from clustermap.Range
			for _, g := range sc.Topology.Groups {
				if g.Name == c.from {
					if from, err = clustermap.ParseRange(g.Slots[0]); err != nil {
						t.Fatal(err)
					}
				}
			}
			for i, w := range sc.Workloads {
				w.KeyPrefix = fmt.Sprintf("%s%d:", w.Kind, i)
				for _, k := range w.KeyNames() {
					s := slots.OfString(k)
					if s < moved.First || s > moved.Last || s < from.First || s > from.Last {
						t.Errorf("key %q in slot %d: want it in %s, held by group %s", k, s, c.slots, c.from)
					}
				}
			}
			steps := sc.Schedule(rand.New(rand.NewPCG(1, 2)), sc.Duration)
			if len(steps) != len(c.kinds) {
				t.Fatalf("schedule %+v, want %v", steps, c.kinds)
			}
			for i, st := range steps {
				if st.Kind != c.kinds[i] {
					t.Errorf("step %d is %s, want %s", i, st.Kind, c.kinds[i])
				}
				if st.Kind == nemesis.Move {
					want := fmt.Sprintf("%d %d %s 0", moved.First, moved.Last, groupB)
					if st.Target != want {
						t.Errorf("move %q, want %q", st.Target, want)
					}
				}
				if st.Kind == nemesis.Kill && (st.Target != primaryA || st.At != steps[0].At || st.At+st.For > steps[0].At+steps[0].For) {
					t.Errorf("kill %+v: want a's primary killed as the move starts and back before its step ends", st)
				}
			}
			if sc.Expect.Moves == nil || sc.Expect.Moves.MinCommitted < 1 || sc.Expect.MaxLost == nil || *sc.Expect.MaxLost != 0 {
				t.Errorf("gate %+v: want a committed move and nothing lost", sc.Expect)
			}
			if !strings.Contains(strings.Join(sc.Notes, " "), "TRYAGAIN") {
				t.Error("notes do not say how the wait is measured")
			}
		})
	}
}

// The rebalance scenario: a valid clustered topology with a group that
// owns nothing, REBALANCE in its schedule, and every workload key in a
// slot that one of the first four moves of the plan the coordinators
// make for its map takes to that group, keys of both givers among them.
func TestRebalanceScenario(t *testing.T) {
	sc, ok := Get("rebalance")
	if !ok {
		t.Fatal("rebalance is not registered")
	}
	if err := sc.Topology.CheckGroups(); err != nil {
		t.Fatal(err)
	}
	text, err := sc.Topology.ClusterMap(func(n string) string { return n + ":6379" })
	if err != nil {
		t.Fatal(err)
	}
	m, err := clustermap.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range m.Groups {
		if g.Name == groupC && len(g.Ranges) != 0 {
			t.Fatalf("%s starts with %v, want no slots", groupC, g.Ranges)
		}
	}
	plan, err := rules.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) < 4 {
		t.Fatalf("plan %v", plan)
	}
	givers := map[string]bool{}
	for i, w := range sc.Workloads {
		w.KeyPrefix = fmt.Sprintf("%s%d:", w.Kind, i)
		for _, k := range w.KeyNames() {
			s := slots.OfString(k)
			j := slices.IndexFunc(plan[:4], func(mv rules.PlannedMove) bool { return mv.First <= s && s <= mv.Last })
			if j < 0 || plan[j].To != groupC {
				t.Errorf("key %q in slot %d: want it in one of the plan's first moves to %s, %v", k, s, groupC, plan[:4])
				continue
			}
			givers[plan[j].From] = true
		}
	}
	if !givers[groupA] || !givers[groupB] {
		t.Errorf("the keys move from %v only, want both %s and %s", givers, groupA, groupB)
	}
	steps := sc.Schedule(rand.New(rand.NewPCG(1, 2)), sc.Duration)
	if len(steps) != 1 || steps[0].Kind != nemesis.Rebalance {
		t.Fatalf("schedule %+v, want one rebalance", steps)
	}
	if sc.Expect.Moves == nil || !sc.Expect.Moves.Rebalanced || sc.Expect.MaxLost == nil || *sc.Expect.MaxLost != 0 {
		t.Errorf("gate %+v: want a rebalance done and nothing lost", sc.Expect)
	}
	note := strings.Join(sc.Notes, " ")
	if want := fmt.Sprintf("%d moves", len(plan)); !strings.Contains(note, want) {
		t.Errorf("notes do not say the plan's %s", want)
	}
}
