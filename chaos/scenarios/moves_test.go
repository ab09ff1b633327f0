package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/ruvio/slots"
	clustermap "github.com/ruvio/ruvio/ruvio/topology"
)

// The move scenarios: a valid clustered topology, every workload key (as
// the runner names them) in the slots that move and owned by the group
// they move from, and the schedule's move (or rebalance) step, with
// move-failover's kill of the source's primary right after the move.
func TestMoveScenarios(t *testing.T) {
	for _, c := range []struct {
		name, slots, from string
		kinds             []string
	}{
		{"move", movedSlots, groupA, []string{nemesis.Move}},
		{"move-failover", movedSlots, groupA, []string{nemesis.Move, nemesis.Kill}},
		{"move-load", movedSlots, groupA, []string{nemesis.Move}},
		{"rebalance", rebalancedSlots, groupA, []string{nemesis.Rebalance}},
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
