package rules

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/topology"
)

func group(name string, shards int, ranges ...string) topology.Group {
	g := topology.Group{Name: name, Shards: shards, Members: []string{name + ":6379"}}
	for _, s := range ranges {
		r, err := topology.ParseRange(s)
		if err != nil {
			panic(err)
		}
		g.Ranges = append(g.Ranges, r)
	}
	return g
}

func mapOf(gs ...topology.Group) *topology.Map {
	return &topology.Map{Version: 1, Groups: gs}
}

func planLines(t *testing.T, m *topology.Map) []string {
	t.Helper()
	plan, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range plan {
		out = append(out, p.String())
	}
	return out
}

func TestPlan(t *testing.T) {
	cases := []struct {
		name string
		m    *topology.Map
		want []string
	}{
		{"balanced: no move", mapOf(group("a", 1, "0-8191@0"), group("b", 1, "8192-16383@0")), nil},
		{"the slots next to the receiver's range, 256 at a time",
			mapOf(group("a", 1, "0-8703@0"), group("b", 1, "8704-16383@0")),
			[]string{"8448-8703 a/0 -> b/0", "8192-8447 a/0 -> b/0"}},
		{"a move smaller than 256 for what is left",
			mapOf(group("a", 1, "0-8291@0"), group("b", 1, "8292-16383@0")),
			[]string{"8192-8291 a/0 -> b/0"}},
		{"above the receiver's range: the bottom of the giver's",
			mapOf(group("b", 1, "0-8091@0"), group("a", 1, "8092-16383@0")),
			[]string{"8092-8191 a/0 -> b/0"}},
		{"an empty group gets its share from the fullest shard, to its shard 0",
			mapOf(group("a", 2, "0-8191@0", "8192-16383@1"), group("b", 2)),
			[]string{"7936-8191 a/0 -> b/0", "8192-8447 a/1 -> b/1"}},
		{"shares follow the shards",
			mapOf(group("a", 1, "0-5460@0"), group("b", 2, "5461-16383@0")),
			nil},
		{"the leftover slot stays with the group holding most",
			mapOf(group("a", 1, "0-5461@0"), group("b", 1, "5462-10922@0"), group("c", 1, "10923-16383@0")),
			nil},
	}
	for _, tc := range cases {
		got := planLines(t, tc.m)
		if len(got) > 4 {
			got = got[:4]
		}
		if len(tc.want) > 0 && len(got) > len(tc.want) {
			got = got[:len(tc.want)]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Three groups of unequal shard counts, one of them new and empty
// (slots = []): the plan gives each group its share by its shards, from
// the group with most to spare first, spreading what the new group gets
// over its shards.
func TestPlanThreeGroups(t *testing.T) {
	cases := []struct {
		name   string
		m      *topology.Map
		first  []string
		moves  int
		shares []int
		gives  map[string]int // slots each group gives
	}{
		{"a of 2 shards and b of 1 full, c of 3 new: b gives most, c's shards in turn",
			mapOf(group("a", 2, "0-4095@0", "4096-8191@1"), group("b", 1, "8192-16383@0"), group("c", 3)),
			[]string{"16128-16383 b/0 -> c/0", "15872-16127 b/0 -> c/1", "15616-15871 b/0 -> c/2", "15360-15615 b/0 -> c/0"},
			33, []int{5462, 2730, 8192}, map[string]int{"a": 2730, "b": 5462}},
		{"a of 1 shard at its old share, b of 2, c of 1 new: next to what c got, from b's shards in turn",
			mapOf(group("a", 1, "0-5460@0"), group("b", 2, "5461-10922@0", "10923-16383@1"), group("c", 1)),
			[]string{"10667-10922 b/0 -> c/0", "10923-11178 b/1 -> c/0", "10411-10666 b/0 -> c/0", "11179-11434 b/1 -> c/0"},
			17, []int{4096, 8192, 4096}, map[string]int{"a": 1365, "b": 2731}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Shares(tc.m); !slices.Equal(got, tc.shares) {
				t.Fatalf("shares %v, want %v", got, tc.shares)
			}
			plan, err := Plan(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan) != tc.moves {
				t.Fatalf("%d moves, want %d", len(plan), tc.moves)
			}
			got := planLines(t, tc.m)[:len(tc.first)]
			if !slices.Equal(got, tc.first) {
				t.Fatalf("first moves %q, want %q", got, tc.first)
			}
			gives := map[string]int{}
			after := tc.m
			for _, p := range plan {
				if p.To != "c" {
					t.Fatalf("move %s: want every move to the new group", p)
				}
				gives[p.From] += p.Last - p.First + 1
				if after, err = after.Move(p.First, p.Last, p.To, p.Shard); err != nil {
					t.Fatal(err)
				}
			}
			if !maps.Equal(gives, tc.gives) {
				t.Fatalf("slots given %v, want %v", gives, tc.gives)
			}
			load := shardLoad(after.Groups[2])
			if slices.Max(load)-slices.Min(load) > RebalanceStep {
				t.Fatalf("the new group's shards hold %v: want them within one move of each other", load)
			}
		})
	}
}

func TestShares(t *testing.T) {
	m := mapOf(group("a", 1, "0-5460@0"), group("b", 1, "5461-10922@0"), group("c", 1, "10923-16383@0"))
	// 16384/3 = 5461 each, one left over: to b or c (5462 and 5461
	// held), b first as it holds most.
	if got := Shares(m); !slices.Equal(got, []int{5461, 5462, 5461}) {
		t.Fatalf("shares %v", got)
	}
}

// genMap is a valid map of 2-4 groups of 1-3 shards whose 16384 slots
// are cut into runs dealt out at random (a group may hold none).
func genMap(t *rapid.T) *topology.Map {
	n := rapid.IntRange(2, 4).Draw(t, "groups")
	var gs []topology.Group
	for i := range n {
		gs = append(gs, group(string(rune('a'+i)), rapid.IntRange(1, 3).Draw(t, "shards")))
	}
	cuts := rapid.SliceOfNDistinct(rapid.IntRange(1, 16383), 0, 12, rapid.ID[int]).Draw(t, "cuts")
	slices.Sort(cuts)
	bounds := append(append([]int{0}, cuts...), 16384)
	for i := 0; i+1 < len(bounds); i++ {
		gi := rapid.IntRange(0, n-1).Draw(t, "owner")
		sh := rapid.IntRange(0, gs[gi].Shards-1).Draw(t, "shard")
		gs[gi].Ranges = append(gs[gi].Ranges, topology.Range{First: bounds[i], Last: bounds[i+1] - 1, Shard: sh})
	}
	return mapOf(gs...)
}

// After the plan every group holds its share exactly, and so ends within
// one slot of 16384 times its shards over all shards; every slot has one
// owner; no slot moves twice; no move takes more than 256 slots or moves
// within a group; and the planner on its own result plans nothing.
func TestPlanProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMap(t)
		shares := Shares(m)
		plan, err := Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		after := m
		var seen [16384]bool
		for _, p := range plan {
			if p.Last-p.First+1 > RebalanceStep || p.From == p.To {
				t.Fatalf("move %s", p)
			}
			for s := p.First; s <= p.Last; s++ {
				if seen[s] {
					t.Fatalf("move %s: slot %d moved before", p, s)
				}
				seen[s] = true
			}
			n, err := after.Move(p.First, p.Last, p.To, p.Shard)
			if err != nil {
				t.Fatalf("move %s: %v", p, err)
			}
			after = n
		}
		var epochs []uint64
		for range after.Groups {
			epochs = append(epochs, 0)
		}
		after.Version = topology.Version(epochs, after.Moved)
		if err := after.Validate(); err != nil {
			t.Fatalf("after the plan: %v", err)
		}
		shards := 0
		for _, g := range after.Groups {
			shards += g.Shards
		}
		for i, g := range after.Groups {
			if holding(g) != shares[i] {
				t.Fatalf("group %s holds %d, share %d", g.Name, holding(g), shares[i])
			}
			// Within one slot of the exact share: 16384*shards/total
			// rounded down, or one above it.
			if exact := 16384 * g.Shards / shards; holding(g) < exact || holding(g) > exact+1 {
				t.Fatalf("group %s of %d shards holds %d, its share of %d shards is %d", g.Name, g.Shards, holding(g), shards, exact)
			}
		}
		if again, _ := Plan(after); len(again) != 0 {
			t.Fatalf("a balanced map plans %v", again)
		}
		// The fewest slots move: exactly the slots above the shares.
		moved, above := 0, 0
		for _, p := range plan {
			moved += p.Last - p.First + 1
		}
		for i, g := range m.Groups {
			above += max(0, holding(g)-shares[i])
		}
		if moved != above {
			t.Fatalf("moved %d slots, %d above the shares", moved, above)
		}
	})
}
