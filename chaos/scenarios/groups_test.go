package scenarios

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/reports/history"
)

// groups-kill: a valid clustered topology, each workload's keys (named
// as the runner names them) on both groups, and one fault: group a's
// primary killed.
func TestGroupsKill(t *testing.T) {
	sc, ok := Get("groups-kill")
	if !ok {
		t.Fatal("groups-kill is not registered")
	}
	if err := sc.Topology.CheckGroups(); err != nil {
		t.Fatal(err)
	}
	var groups []check.Group
	for _, g := range sc.Topology.Groups {
		groups = append(groups, check.Group{Name: g.Name, Slots: g.Slots})
	}
	for i, w := range sc.Workloads {
		w.KeyPrefix = fmt.Sprintf("%s%d:", w.Kind, i)
		h := &history.History{}
		for _, k := range w.KeyNames() {
			h.Ops = append(h.Ops, history.Op{Key: k})
		}
		parts, err := check.SplitByGroup(h, groups)
		if err != nil {
			t.Fatal(err)
		}
		for gi, p := range parts {
			if len(p.Ops) == 0 {
				t.Errorf("workload %s: no key of group %s", w.KeyPrefix, groups[gi].Name)
			}
		}
	}
	steps := sc.Schedule(rand.New(rand.NewPCG(1, 2)), sc.Duration)
	if len(steps) != 1 || steps[0].Kind != nemesis.Kill || steps[0].Target != primaryA ||
		sc.Topology.GroupOf(primaryA) != groupA || sc.Topology.GroupMembers(groupA)[0] != primaryA {
		t.Fatalf("schedule %+v, want group a's primary killed once", steps)
	}
}
