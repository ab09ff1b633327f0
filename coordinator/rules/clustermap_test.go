package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/topology"
)

func twoPlacements() []Placement {
	return []Placement{
		{Name: "a", Shards: 2, Members: []string{"a1:6379", "a2:6379"}, Ranges: topology.SplitAcross([]topology.Range{{First: 0, Last: 8191, Shard: -1}}, 2)},
		{Name: "b", Shards: 2, Members: []string{"b1:6379", "b2:6379"}, Ranges: topology.SplitAcross([]topology.Range{{First: 8192, Last: 16383, Shard: -1}}, 2)},
	}
}

func stateOf(ps []Placement) State {
	cfg := map[string][]Member{}
	for _, p := range ps {
		for _, a := range p.Members {
			cfg[p.Name] = append(cfg[p.Name], Member{Address: a, Replication: a})
		}
	}
	return NewState(cfg)
}

func TestClusterMapNeedsEveryPrimary(t *testing.T) {
	ps := twoPlacements()
	s := stateOf(ps)
	if _, ok := ClusterMap(ps, s); ok {
		t.Fatal("a map without any agreed primary")
	}
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "a", Primary: "a1:6379", GroupEpoch: 1})
	if _, ok := ClusterMap(ps, s); ok {
		t.Fatal("a map while b has no agreed primary")
	}
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "b", Primary: "b1:6379", GroupEpoch: 1})
	m, ok := ClusterMap(ps, s)
	if !ok || m.Version != 3 {
		t.Fatalf("map = %v, %v; want version 3 (1 + two group epochs)", m, ok)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "b", Primary: "b2:6379", GroupEpoch: 2})
	m, _ = ClusterMap(ps, s)
	if m.Version != 4 || m.Groups[1].Primary() != "b2:6379" || strings.Join(m.Groups[1].Members, ",") != "b2:6379,b1:6379" {
		t.Fatalf("after b's failover: %s", m)
	}
	if m.Version != MapVersion(s, []string{"a", "b"}) {
		t.Errorf("MapVersion = %d, map %d", MapVersion(s, []string{"a", "b"}), m.Version)
	}
	// The first map, the one data nodes start from, is at version 1 with
	// each group named by its first member.
	first := FirstMap(ps)
	if first.Version != 1 || first.Groups[1].Primary() != "b1:6379" || first.Validate() != nil {
		t.Errorf("first map: %s", first)
	}
}

func TestClusterMapAppliesMovesInOrder(t *testing.T) {
	ps := twoPlacements()
	s := stateOf(ps)
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "a", Primary: "a1:6379", GroupEpoch: 1})
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "b", Primary: "b1:6379", GroupEpoch: 1})
	a, b := s["a"].Copy(), s["b"].Copy()
	b.Moved = []MovedRange{{First: 0, Last: 99, Shard: 1, Seq: 1}}
	a.Moved = []MovedRange{{First: 50, Last: 59, Shard: 0, Seq: 2}}
	s["a"], s["b"] = a, b
	m, ok := ClusterMap(ps, s)
	if !ok || m.Version != 5 || m.Moved != 2 {
		t.Fatalf("map = %v %v", m, ok)
	}
	tab := m.Table()
	for _, c := range []struct{ slot, group, shard int }{{10, 1, 1}, {55, 0, 0}, {70, 1, 1}, {100, 0, 0}} {
		if g, sh := tab.Owner(c.slot); g != c.group || sh != c.shard {
			t.Errorf("slot %d on %d/%d, want %d/%d", c.slot, g, sh, c.group, c.shard)
		}
	}
	// A move that cannot apply (it names slots the group holds already)
	// gives no map rather than a wrong one.
	a.Moved = append(a.Moved, MovedRange{First: 60, Last: 60, Shard: 0, Seq: 0})
	s["a"] = a
	if _, ok := ClusterMap(ps, s); ok {
		t.Error("a map from moves that do not apply")
	}
}

// Records written before cluster maps have no moved field and restore
// as they were; a record with moves keeps them through JSON.
func TestRecordMovedIsOptionalInJSON(t *testing.T) {
	var r Record
	if err := json.Unmarshal([]byte(`{"primary":"a1:6379","epoch":3,"members":[{"Address":"a1:6379","Replication":"a1:26379"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Moved != nil || r.GroupEpoch != 3 {
		t.Fatalf("old record: %+v", r)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "moved") {
		t.Errorf("a record without moves encodes a moved field: %s", b)
	}
	r.Moved = []MovedRange{{First: 1, Last: 2, Shard: 0, Seq: 1}}
	b, _ = json.Marshal(r)
	if !strings.Contains(string(b), `"moved":[{"first":1,"last":2,"shard":0,"seq":1}]`) {
		t.Errorf("encoding: %s", b)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil || len(back.Moved) != 1 || back.Moved[0] != r.Moved[0] {
		t.Errorf("decoding: %+v %v", back, err)
	}
	c := r.Copy()
	c.Moved[0].Seq = 9
	if r.Moved[0].Seq != 1 {
		t.Error("Copy shares Moved")
	}
}

// Whatever primary entries the log holds, in whatever order, the map
// version never goes down and every slot keeps one owner.
func TestPropertyMapVersionNeverGoesDown(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ps := twoPlacements()
		s := stateOf(ps)
		var last uint64
		for i := rapid.IntRange(1, 30).Draw(t, "entries"); i > 0; i-- {
			p := ps[rapid.IntRange(0, 1).Draw(t, "group")]
			e := Entry{Op: OpPrimary, Group: p.Name, Primary: p.Members[rapid.IntRange(0, 1).Draw(t, "member")],
				GroupEpoch: uint64(rapid.IntRange(1, 10).Draw(t, "epoch"))}
			s, _ = Apply(s, e)
			m, ok := ClusterMap(ps, s)
			if !ok {
				continue
			}
			if m.Version < last {
				t.Fatalf("version went from %d to %d", last, m.Version)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			last = m.Version
		}
	})
}
