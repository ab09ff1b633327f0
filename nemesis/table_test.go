package nemesis

import (
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
)

var tableGroup = Group{Primary: "n1", Replicas: []string{"n2", "n3"}, Coordinators: []string{"c1", "c2", "c3"}}

// Every table shape lays out steps within its window, names the primary
// or the leader, and never cuts the client off: the clients reach every
// node whatever the shape.
func TestTableShapes(t *testing.T) {
	seen := map[string]bool{}
	for _, sh := range TableShapes {
		if seen[sh.Name] {
			t.Fatalf("shape %s listed twice", sh.Name)
		}
		seen[sh.Name] = true
		if got, ok := ShapeByName(sh.Name); !ok || got.Title != sh.Title {
			t.Fatalf("ShapeByName(%s)", sh.Name)
		}
		steps := sh.Steps(tableGroup, 3*time.Second, 7*time.Second)
		if len(steps) == 0 {
			t.Fatalf("%s: no steps", sh.Name)
		}
		for _, st := range steps {
			if _, ok := kinds[st.Kind]; !ok {
				t.Fatalf("%s: unknown kind %s", sh.Name, st.Kind)
			}
			if st.At+st.For != 10*time.Second {
				t.Fatalf("%s: step %s ends at %s, want the shape's end", sh.Name, st.Target, st.At+st.For)
			}
			for _, l := range st.Links {
				if l.From == topology.Client || l.To == topology.Client || l.From == l.To {
					t.Fatalf("%s: link %v", sh.Name, l)
				}
			}
		}
	}
}

func TestTableShapeLinks(t *testing.T) {
	steps := func(sh Shape) []Step { return sh.Steps(tableGroup, time.Second, time.Second) }
	one := steps(ShapeOneWay)[0]
	if !cut(one, "n1", "n2") || !cut(one, "n1", "c3") || cut(one, "n2", "n1") || cut(one, "c1", "n1") {
		t.Fatalf("one-way %v", one.Links)
	}
	iso := steps(ShapeIsolated)[0]
	if !cut(iso, "n1", "n2") || !cut(iso, "c2", "n1") || cut(iso, "n2", "c1") || cut(iso, "n2", "n3") {
		t.Fatalf("isolated %v", iso.Links)
	}
	with := steps(ShapeWithReplica)[0]
	if cut(with, "n1", "n2") || !cut(with, "n2", "n3") || !cut(with, "n1", "c1") || cut(with, "n3", "c1") {
		t.Fatalf("with-replica %v", with.Links)
	}
	dur := steps(ShapeWithDurableReplica)
	if len(dur) != 2 || !cut(dur[0], "n1", "n3") || cut(dur[0], "n1", "n2") || dur[0].At >= dur[1].At {
		t.Fatalf("with-durable-replica %+v", dur)
	}
	slow := steps(ShapeSlow)[0]
	if slow.Kind != Slow || slow.Netem != SlowNetem || !cut(slow, "n1", "c1") || !cut(slow, "n2", "n1") || cut(slow, "n2", "n3") {
		t.Fatalf("slow %+v", slow)
	}
	if !ShapeLeaderCut.NeedsLeader || steps(ShapeLeaderCut)[0].Links[0].From != Leader {
		t.Fatal("leader-cut does not name the leader")
	}
}
