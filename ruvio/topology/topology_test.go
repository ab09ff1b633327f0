package topology

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/slots"
)

const twoGroups = `# two groups of two shards
version 1
group a shards 2 members 127.0.0.1:7000 127.0.0.1:7100 slots 0-8191
group b shards 2 members 127.0.0.1:7200 127.0.0.1:7300 slots 8192-16383
`

func mustParse(t *testing.T, text string) *Map {
	t.Helper()
	m, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseRange(t *testing.T) {
	cases := []struct {
		in   string
		want Range
		err  string
	}{
		{"100-199@0", Range{100, 199, 0}, ""},
		{"100-199", Range{100, 199, -1}, ""},
		{"7", Range{7, 7, -1}, ""},
		{"7@3", Range{7, 7, 3}, ""},
		{"0-16383", Range{0, 16383, -1}, ""},
		{"0-16384", Range{}, "slots must be 0-16383"},
		{"200-100", Range{}, "first <= last"},
		{"a-b", Range{}, "is not first-last"},
		{"1-2@x", Range{}, "the shard after @"},
		{"1-2@-1", Range{}, "the shard after @"},
	}
	for _, c := range cases {
		got, err := ParseRange(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRange(%q) = %v, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseRange(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if s := (Range{100, 199, 0}).String(); s != "100-199@0" {
		t.Errorf("String = %q", s)
	}
}

func TestParseSplitsUnnamedRangesAcrossShards(t *testing.T) {
	m := mustParse(t, twoGroups)
	if m.Version != 1 || len(m.Groups) != 2 {
		t.Fatalf("map = %+v", m)
	}
	want := []string{"0-4095@0 4096-8191@1", "8192-12287@0 12288-16383@1"}
	for i, g := range m.Groups {
		var rs []string
		for _, r := range g.Ranges {
			rs = append(rs, r.String())
		}
		if got := strings.Join(rs, " "); got != want[i] {
			t.Errorf("group %s ranges = %s, want %s", g.Name, got, want[i])
		}
	}
	if p := m.Groups[1].Primary(); p != "127.0.0.1:7200" {
		t.Errorf("primary = %s", p)
	}
	tab := m.Table()
	for _, c := range []struct{ slot, group, shard int }{{0, 0, 0}, {4096, 0, 1}, {8191, 0, 1}, {8192, 1, 0}, {16383, 1, 1}} {
		if g, sh := tab.Owner(c.slot); g != c.group || sh != c.shard {
			t.Errorf("Owner(%d) = %d/%d, want %d/%d", c.slot, g, sh, c.group, c.shard)
		}
	}
}

func TestStringParsesBack(t *testing.T) {
	m := mustParse(t, twoGroups)
	back := mustParse(t, m.String())
	if back.String() != m.String() {
		t.Fatalf("round trip:\n%s\nvs\n%s", m, back)
	}
	if !strings.Contains(m.String(), "slots 0-4095@0 4096-8191@1\n") {
		t.Errorf("printed map lacks the shards:\n%s", m)
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"uncovered and doubly owned", "version 1\ngroup a members h:1 slots 0-100\ngroup b members h:2 slots 50-200\n",
			[]string{`slot 50 belongs to groups "a" and "b"`, "slots 201-16383 belong to no group"}},
		{"no version", "group a members h:1 slots 0-16383\n", []string{"no version line"}},
		{"wrong version", "version 2\ngroup a members h:1 slots 0-16383\n", []string{"version 2: must be 1 + the group epochs + the moved ranges = 1"}},
		{"epochs count", "version 4\nmoved 1\ngroup a epoch 2 members h:1 slots 0-16383\n", nil},
		{"shard out of range", "version 1\ngroup a shards 2 members h:1 slots 0-16383@2\n", []string{"on no shard of its 2"}},
		{"mixed shards", "version 1\ngroup a shards 2 members h:1 slots 0-10@0 11-16383\n", []string{"either every range names its shard"}},
		{"member twice", "version 1\ngroup a members h:1 slots 0-100\ngroup b members h:1 slots 101-16383\n", []string{`member h:1 is in groups "a" and "b"`}},
		{"no member, bad member", "version 1\ngroup a slots 0-100\ngroup b members nope slots 101-16383\n", []string{`group "a" has no member`, `member "nope" is not host:port`}},
		{"unknown directive", "version 1\nshard a\ngroup a members h:1 slots 0-16383\n", []string{`unknown directive "shard"`}},
		{"bad range", "version 1\ngroup a members h:1 slots 0-99999\n", []string{"slots must be 0-16383"}},
		{"empty group", "version 1\ngroup a members h:1 slots 0-16383\ngroup b members h:2 slots\n", nil},
		{"duplicate group", "version 1\ngroup a members h:1 slots 0-100\ngroup a members h:2 slots 101-16383\n", []string{`group "a" is listed twice`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.text)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestNewer(t *testing.T) {
	a, b := &Map{Version: 3}, &Map{Version: 4}
	cases := []struct {
		x, y *Map
		want bool
	}{{b, a, true}, {a, b, false}, {a, a, false}, {a, nil, true}, {nil, a, false}}
	for _, c := range cases {
		if got := Newer(c.x, c.y); got != c.want {
			t.Errorf("Newer(%v, %v) = %v", c.x, c.y, got)
		}
	}
}

func TestCheckFor(t *testing.T) {
	cur := mustParse(t, twoGroups)
	holdsA := cur.HoldsOwn("a")
	failedOver, _ := cur.Failover("b", "127.0.0.1:7300")
	giveAway, _ := cur.Move(0, 99, "b", 0)
	// The same map where group a's slots sit on the other shard.
	swapped := cur.Clone()
	for i := range swapped.Groups[0].Ranges {
		swapped.Groups[0].Ranges[i].Shard ^= 1
	}
	taken, _ := cur.Move(8192, 8291, "a", 0)
	cases := []struct {
		name string
		next *Map
		err  string
	}{
		{"same slots", cur, ""},
		{"failover elsewhere", failedOver, ""},
		{"slots given away", giveAway, ""},
		{"slots arriving", taken, "gives this node slot 8192 on shard 0, whose data is not here"},
		{"other shard", swapped, "gives this node slot 0 on shard 1, whose data is not here"},
	}
	for _, c := range cases {
		err := CheckFor(c.next, "a", 2, holdsA)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: CheckFor = %v, want %q", c.name, err, c.err)
		}
	}
	if err := CheckFor(cur, "c", 2, holdsA); err == nil || !strings.Contains(err.Error(), `no group "c"`) {
		t.Errorf("unknown group: %v", err)
	}
	if err := CheckFor(cur, "a", 4, holdsA); err == nil || !strings.Contains(err.Error(), "this node runs 4") {
		t.Errorf("wrong shard count: %v", err)
	}
}

func TestFailoverAndMove(t *testing.T) {
	m := mustParse(t, twoGroups)
	f, err := m.Failover("a", "127.0.0.1:7100")
	if err != nil || f.Version != 2 || f.Groups[0].Primary() != "127.0.0.1:7100" || f.Groups[0].Epoch != 1 {
		t.Fatalf("failover: %v %v", f, err)
	}
	if m.Groups[0].Primary() != "127.0.0.1:7000" {
		t.Fatal("Failover changed its receiver")
	}
	mv, err := f.Move(100, 199, "b", 1)
	if err != nil || mv.Version != 3 || mv.Moved != 1 {
		t.Fatalf("move: %v %v", mv, err)
	}
	if g, sh := mv.Table().Owner(150); g != 1 || sh != 1 {
		t.Errorf("slot 150 owned by %d/%d", g, sh)
	}
	if err := mv.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := mv.Move(4000, 4200, "b", 0); err == nil {
		t.Error("a range across two shards moved")
	}
	if _, err := mv.Move(8192, 8200, "b", 0); err == nil {
		t.Error("a range moved into its own group")
	}
	if _, err := mv.Move(0, 10, "b", 2); err == nil {
		t.Error("a range moved to a shard the group lacks")
	}
}

func TestSplitAcross(t *testing.T) {
	got := SplitAcross([]Range{{10, 14, -1}, {0, 4, -1}}, 3)
	want := []Range{{0, 3, 0}, {4, 4, 1}, {10, 11, 1}, {12, 14, 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SplitAcross = %v, want %v", got, want)
	}
	// One group with every slot splits the way a lone node does.
	all := SplitAcross([]Range{{0, slots.Count - 1, -1}}, 3)
	for i, r := range slots.Split(3) {
		if all[i].First != r.First || all[i].Last != r.Last || all[i].Shard != i {
			t.Errorf("shard %d: %v, node split %v", i, all[i], r)
		}
	}
	if SplitAcross(nil, 2) != nil {
		t.Error("no slots gave ranges")
	}
}

// genMap draws a valid map: 1-4 groups, each 1-4 shards, the slots cut
// at random points and dealt out, some groups possibly empty.
func genMap(t *rapid.T) *Map {
	n := rapid.IntRange(1, 4).Draw(t, "groups")
	cuts := rapid.SliceOfNDistinct(rapid.IntRange(1, slots.Count-1), 0, 6, rapid.ID[int]).Draw(t, "cuts")
	bounds := append([]int{0}, cuts...)
	bounds = append(bounds, slots.Count)
	sortInts(bounds)
	m := &Map{Version: 1}
	for i := 0; i < n; i++ {
		m.Groups = append(m.Groups, Group{Name: fmt.Sprintf("g%d", i), Shards: rapid.IntRange(1, 4).Draw(t, "shards"),
			Members: []string{fmt.Sprintf("10.0.0.%d:7000", i), fmt.Sprintf("10.0.1.%d:7000", i)}})
	}
	raw := make([][]Range, n)
	for i := 0; i+1 < len(bounds); i++ {
		g := rapid.IntRange(0, n-1).Draw(t, "owner")
		raw[g] = append(raw[g], Range{bounds[i], bounds[i+1] - 1, -1})
	}
	for i := range m.Groups {
		m.Groups[i].Ranges = SplitAcross(raw[i], m.Groups[i].Shards)
	}
	return m
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// After any sequence of failovers and moves every slot has exactly one
// owner, the version is the formula's and never goes down, and the text
// form reads back the same map.
func TestPropertyEverySlotOneOwnerAndVersionRises(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMap(t)
		if err := m.Validate(); err != nil {
			t.Fatalf("generated map invalid: %v\n%s", err, m)
		}
		steps := rapid.IntRange(0, 20).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			var next *Map
			var err error
			if rapid.Bool().Draw(t, "failover") {
				g := m.Groups[rapid.IntRange(0, len(m.Groups)-1).Draw(t, "group")]
				next, err = m.Failover(g.Name, g.Members[len(g.Members)-1])
			} else {
				first := rapid.IntRange(0, slots.Count-1).Draw(t, "first")
				last := rapid.IntRange(first, min(first+300, slots.Count-1)).Draw(t, "last")
				to := m.Groups[rapid.IntRange(0, len(m.Groups)-1).Draw(t, "to")]
				next, err = m.Move(first, last, to.Name, rapid.IntRange(0, to.Shards-1).Draw(t, "shard"))
				if err != nil {
					continue // not a valid change: nothing happens
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if next.Version <= m.Version || !Newer(next, m) {
				t.Fatalf("version went from %d to %d", m.Version, next.Version)
			}
			if err := next.Validate(); err != nil {
				t.Fatalf("after a change: %v\n%s", err, next)
			}
			m = next
		}
		var seen [slots.Count]int
		for _, g := range m.Groups {
			for _, r := range g.Ranges {
				for s := r.First; s <= r.Last; s++ {
					seen[s]++
				}
			}
		}
		for s, n := range seen {
			if n != 1 {
				t.Fatalf("slot %d has %d owners", s, n)
			}
		}
		back, err := Parse(m.String())
		if err != nil || back.String() != m.String() {
			t.Fatalf("round trip: %v\n%s", err, m)
		}
	})
}

// A node accepts every map the coordinators derive from its own by
// failovers and by moves away from its group, and refuses every map that
// moves a slot into its group.
func TestPropertyCheckForRefusesOnlyArrivals(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMap(t)
		self := m.Groups[rapid.IntRange(0, len(m.Groups)-1).Draw(t, "self")]
		holds := m.HoldsOwn(self.Name)
		next := m
		for i := rapid.IntRange(0, 8).Draw(t, "steps"); i > 0; i-- {
			first := rapid.IntRange(0, slots.Count-1).Draw(t, "first")
			to := m.Groups[rapid.IntRange(0, len(m.Groups)-1).Draw(t, "to")]
			if n, err := next.Move(first, first, to.Name, rapid.IntRange(0, to.Shards-1).Draw(t, "shard")); err == nil {
				next = n
			}
		}
		// A slot arrived when the new map gives it to this group on a
		// shard other than the one the first map had it on, if any.
		before, after := m.Table(), next.Table()
		si, _ := m.Group(self.Name)
		arrived := false
		for s := 0; s < slots.Count; s++ {
			g1, sh1 := before.Owner(s)
			g2, sh2 := after.Owner(s)
			if g2 == si && (g1 != si || sh1 != sh2) {
				arrived = true
			}
		}
		err := CheckFor(next, self.Name, self.Shards, holds)
		if arrived != (err != nil) {
			t.Fatalf("arrived=%v, CheckFor = %v", arrived, err)
		}
	})
}

// coverage, which sorts the ranges, says what the slot-by-slot visit
// (ownedTwice) says, for any ranges: gaps, overlaps, ranges out of
// bounds or empty.
func TestCoverageSaysWhatTheSlotBySlotVisitSays(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "groups")
		groups := make([]Group, n)
		for i := range groups {
			groups[i].Name = fmt.Sprintf("g%d", i)
			for range rapid.IntRange(0, 4).Draw(t, "ranges") {
				f := rapid.IntRange(-10, slots.Count+10).Draw(t, "first")
				l := f + rapid.IntRange(-2, slots.Count/2).Draw(t, "len")
				groups[i].Ranges = append(groups[i].Ranges, Range{First: f, Last: l})
			}
		}
		got, want := fmt.Sprint(coverage(groups)), fmt.Sprint(ownedTwice(groups))
		if got != want {
			t.Fatalf("coverage %s\nslot by slot %s", got, want)
		}
	})
}
