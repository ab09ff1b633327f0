package nemesis

import (
	"testing"

	"github.com/ruvio/ruvio/chaos/topology"
)

// cut reports whether a step drops traffic from -> to.
func cut(st Step, from, to string) bool {
	for _, l := range st.Links {
		if l.From == from && l.To == to {
			return true
		}
	}
	return false
}

func TestShapesCutExactlyTheirLinks(t *testing.T) {
	nodes := []string{"n1", "n2", "n3"}
	coords := []string{"c1", "c2", "c3"}
	all := append(append(append([]string{}, nodes...), coords...), topology.Client)
	cases := []struct {
		name  string
		step  Step
		cut   [][2]string
		whole [][2]string
	}{
		{"split", Split([]string{"n1", "c1"}, all),
			[][2]string{{"n1", "n2"}, {"c1", "c2"}, {"c2", "n1"}},
			[][2]string{{"n1", "c1"}, {"n2", "c2"}}},
		{"primary from coordinators", PrimaryFromCoordinators("n1", coords),
			[][2]string{{"n1", "c1"}, {"c3", "n1"}},
			[][2]string{{"n1", "n2"}, {topology.Client, "n1"}, {"c1", "n2"}}},
		{"leader from coordinators", LeaderFromCoordinators("c1", coords),
			[][2]string{{"c1", "c2"}, {"c3", "c1"}},
			[][2]string{{"c1", "n1"}, {"c2", "c3"}}},
	}
	for _, c := range cases {
		for _, l := range c.cut {
			if !cut(c.step, l[0], l[1]) {
				t.Errorf("%s: %s->%s not cut", c.name, l[0], l[1])
			}
		}
		for _, l := range c.whole {
			if cut(c.step, l[0], l[1]) {
				t.Errorf("%s: %s->%s cut but should carry traffic", c.name, l[0], l[1])
			}
		}
		if c.step.Kind != Partition || c.step.Target == "" {
			t.Errorf("%s: step %+v", c.name, c.step)
		}
	}
}
