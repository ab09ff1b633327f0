package sortedset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var (
	inf    = math.Inf(1)
	negInf = math.Inf(-1)
	negZ   = math.Copysign(0, -1)
)

// show renders items as "member:score ..." so expectations stay readable.
func show(items []Item) string {
	if items == nil {
		return "<nil>"
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = it.Member + ":" + FormatScore(it.Score)
	}
	return strings.Join(parts, " ")
}

// fixture holds ties at 1 and 3 and both infinities. In order:
// h:-inf z:0 a:1 b:1 c:2 d:3 e:3 f:3 g:inf
func fixture(t testing.TB) *Set {
	s := New()
	for _, it := range []Item{{"d", 3}, {"a", 1}, {"g", inf}, {"f", 3}, {"c", 2}, {"z", 0}, {"b", 1}, {"h", negInf}, {"e", 3}} {
		if !s.Add(it.Member, it.Score) {
			t.Fatalf("Add(%q) reported an existing member", it.Member)
		}
	}
	mustCheck(t, s)
	return s
}

const fixtureOrder = "h:-inf z:0 a:1 b:1 c:2 d:3 e:3 f:3 g:inf"

func all(s *Set) []Item { return s.ByRank(0, s.Len()-1, false) }

func TestEmpty(t *testing.T) {
	for name, s := range map[string]*Set{"zero": {}, "New": New()} {
		t.Run(name, func(t *testing.T) {
			full := ScoreBound{Value: negInf}
			top := ScoreBound{Value: inf}
			lexAll, lexTop := LexBound{Inf: -1}, LexBound{Inf: 1}
			if s.Len() != 0 {
				t.Error("Len")
			}
			if _, ok := s.Score("a"); ok {
				t.Error("Score")
			}
			if _, ok := s.Rank("a", false); ok {
				t.Error("Rank")
			}
			if s.Remove("a") {
				t.Error("Remove")
			}
			for what, got := range map[string][]Item{
				"ByRank":       s.ByRank(0, -1, false),
				"ByRank big":   s.ByRank(0, 10, true),
				"RangeByScore": s.RangeByScore(full, top, false, 0, -1),
				"RangeByLex":   s.RangeByLex(lexAll, lexTop, true, 0, -1),
				"PopMin":       s.PopMin(3),
				"PopMax":       s.PopMax(3),
				"Random":       s.Random(-3, rand.New(rand.NewPCG(1, 2))),
			} {
				if got != nil {
					t.Errorf("%s = %v, want nil", what, got)
				}
			}
			if s.CountByScore(full, top) != 0 || s.CountByLex(lexAll, lexTop) != 0 {
				t.Error("Count")
			}
			if s.RemoveRangeByScore(full, top) != 0 || s.RemoveRangeByLex(lexAll, lexTop) != 0 || s.RemoveRangeByRank(0, 10) != 0 {
				t.Error("RemoveRange")
			}
			s.Each(func(Item) bool { t.Error("Each yielded"); return true })
			if c := s.Clone(); c.Len() != 0 {
				t.Error("Clone")
			}
			mustCheck(t, s)
		})
	}
}

func TestAddScoreRemove(t *testing.T) {
	s := fixture(t)
	if got := show(all(s)); got != fixtureOrder {
		t.Fatalf("order = %s", got)
	}
	if s.Len() != 9 {
		t.Fatalf("Len = %d", s.Len())
	}
	if sc, ok := s.Score("g"); !ok || sc != inf {
		t.Errorf("Score(g) = %v, %v", sc, ok)
	}
	if _, ok := s.Score("nope"); ok {
		t.Error("Score(nope) found")
	}

	// Updating a score moves the member and reports "not added".
	if s.Add("a", 2.5) {
		t.Error("update reported as add")
	}
	// A small in-place move (between the same neighbours) and a tie-break move.
	s.Add("c", 2.25)
	s.Add("e", 3)
	s.Add("f", 1)
	mustCheck(t, s)
	if got, want := show(all(s)), "h:-inf z:0 b:1 f:1 c:2.25 a:2.5 d:3 e:3 g:inf"; got != want {
		t.Errorf("after updates = %s, want %s", got, want)
	}

	// -0 equals 0, so re-adding with -0 keeps the stored +0, as Redis does;
	// a new member of the compact form is stored with 0, as a listpack
	// stores it (a skiplist keeps -0: TestNegativeZeroInASkiplist).
	s.Add("z", negZ)
	if sc, _ := s.Score("z"); math.Signbit(sc) {
		t.Error("re-add with -0 replaced 0")
	}
	s.Add("y", negZ)
	if sc, _ := s.Score("y"); math.Signbit(sc) {
		t.Error("the compact form kept -0 for a new member")
	}
	if got := show(s.ByRank(1, 2, false)); got != "y:0 z:0" {
		t.Errorf("-0/0 tie = %s", got)
	}

	if !s.Remove("d") || s.Remove("d") {
		t.Error("Remove(d) twice")
	}
	mustCheck(t, s)
	if s.Len() != 9 {
		t.Errorf("Len = %d", s.Len())
	}
}

func TestAddNaNPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	New().Add("a", math.NaN())
}

func TestZeroValueUsable(t *testing.T) {
	var s Set
	s.Add("b", 2)
	s.Add("a", 1)
	mustCheck(t, &s)
	if got := show(all(&s)); got != "a:1 b:2" {
		t.Errorf("got %s", got)
	}
}

func TestRank(t *testing.T) {
	s := fixture(t)
	for _, tc := range []struct {
		member  string
		reverse bool
		want    int
		ok      bool
	}{
		{"h", false, 0, true},
		{"a", false, 2, true},
		{"b", false, 3, true},
		{"g", false, 8, true},
		{"g", true, 0, true},
		{"h", true, 8, true},
		{"e", true, 2, true},
		{"x", false, 0, false},
	} {
		got, ok := s.Rank(tc.member, tc.reverse)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Rank(%q, %v) = %d, %v; want %d, %v", tc.member, tc.reverse, got, ok, tc.want, tc.ok)
		}
	}
}

func TestByRank(t *testing.T) {
	s := fixture(t)
	for _, tc := range []struct {
		start, stop int
		reverse     bool
		want        string
	}{
		{0, 8, false, fixtureOrder},
		{0, 100, false, fixtureOrder},
		{-5, 1, false, "h:-inf z:0"},
		{2, 3, false, "a:1 b:1"},
		{8, 8, false, "g:inf"},
		{0, 0, true, "g:inf"},
		{0, 2, true, "g:inf f:3 e:3"},
		{6, 100, true, "a:1 z:0 h:-inf"},
		{3, 2, false, "<nil>"},
		{9, 10, false, "<nil>"},
		{9, 10, true, "<nil>"},
	} {
		if got := show(s.ByRank(tc.start, tc.stop, tc.reverse)); got != tc.want {
			t.Errorf("ByRank(%d, %d, %v) = %s, want %s", tc.start, tc.stop, tc.reverse, got, tc.want)
		}
	}
}

func sb(v float64, ex bool) ScoreBound { return ScoreBound{Value: v, Exclusive: ex} }

func TestRangeByScore(t *testing.T) {
	s := fixture(t)
	for _, tc := range []struct {
		name          string
		min, max      ScoreBound
		reverse       bool
		offset, count int
		want          string
	}{
		{"all", sb(negInf, false), sb(inf, false), false, 0, -1, fixtureOrder},
		{"open infinities", sb(negInf, true), sb(inf, true), false, 0, -1, "z:0 a:1 b:1 c:2 d:3 e:3 f:3"},
		{"inclusive ties", sb(1, false), sb(3, false), false, 0, -1, "a:1 b:1 c:2 d:3 e:3 f:3"},
		{"exclusive min", sb(1, true), sb(3, false), false, 0, -1, "c:2 d:3 e:3 f:3"},
		{"exclusive max", sb(1, false), sb(3, true), false, 0, -1, "a:1 b:1 c:2"},
		{"both exclusive", sb(1, true), sb(3, true), false, 0, -1, "c:2"},
		{"point", sb(3, false), sb(3, false), false, 0, -1, "d:3 e:3 f:3"},
		{"empty point", sb(3, true), sb(3, false), false, 0, -1, "<nil>"},
		{"inverted", sb(3, false), sb(1, false), false, 0, -1, "<nil>"},
		{"between scores", sb(2.1, false), sb(2.9, false), false, 0, -1, "<nil>"},
		{"only -inf", sb(negInf, false), sb(negInf, false), false, 0, -1, "h:-inf"},
		{"only +inf", sb(inf, false), sb(inf, false), false, 0, -1, "g:inf"},
		{"reverse", sb(1, false), sb(3, false), true, 0, -1, "f:3 e:3 d:3 c:2 b:1 a:1"},
		{"reverse exclusive", sb(1, true), sb(3, true), true, 0, -1, "c:2"},
		{"offset", sb(1, false), sb(3, false), false, 2, -1, "c:2 d:3 e:3 f:3"},
		{"offset count", sb(1, false), sb(3, false), false, 1, 2, "b:1 c:2"},
		{"count past end", sb(1, false), sb(3, false), false, 4, 10, "e:3 f:3"},
		{"reverse offset count", sb(negInf, false), sb(inf, false), true, 1, 3, "f:3 e:3 d:3"},
		{"offset at end", sb(1, false), sb(3, false), false, 6, -1, "<nil>"},
		{"negative offset", sb(1, false), sb(3, false), false, -1, 2, "<nil>"},
		{"zero count", sb(1, false), sb(3, false), false, 0, 0, "<nil>"},
	} {
		got := show(s.RangeByScore(tc.min, tc.max, tc.reverse, tc.offset, tc.count))
		if got != tc.want {
			t.Errorf("%s: RangeByScore = %s, want %s", tc.name, got, tc.want)
		}
		if tc.offset == 0 && tc.count < 0 {
			want := 0
			if tc.want != "<nil>" {
				want = len(strings.Fields(tc.want))
			}
			if n := s.CountByScore(tc.min, tc.max); n != want {
				t.Errorf("%s: CountByScore = %d, want %d", tc.name, n, want)
			}
		}
	}
}

func lb(s string) LexBound {
	b, err := ParseLexBound(s)
	if err != nil {
		panic(err)
	}
	return b
}

// lexFixture has equal scores, the case Redis defines lex ranges for.
func lexFixture(t testing.TB) *Set {
	s := New()
	for _, m := range []string{"b", "", "ab", "a", "c", "ba", "\xff", "a\x00"} {
		s.Add(m, 0)
	}
	mustCheck(t, s)
	return s
}

func TestRangeByLex(t *testing.T) {
	s := lexFixture(t)
	// In order: "" a a\x00 ab b ba c \xff
	for _, tc := range []struct {
		min, max      string
		reverse       bool
		offset, count int
		want          string
	}{
		{"-", "+", false, 0, -1, ":0 a:0 a\x00:0 ab:0 b:0 ba:0 c:0 \xff:0"},
		{"[a", "[b", false, 0, -1, "a:0 a\x00:0 ab:0 b:0"},
		{"(a", "(b", false, 0, -1, "a\x00:0 ab:0"},
		{"[", "(a", false, 0, -1, ":0"},
		{"(", "[a", false, 0, -1, "a:0"},
		{"[b", "+", false, 0, -1, "b:0 ba:0 c:0 \xff:0"},
		{"(c", "+", false, 0, -1, "\xff:0"},
		{"[\x80", "+", false, 0, -1, "\xff:0"},
		{"-", "(a\x00", false, 0, -1, ":0 a:0"},
		{"[aa", "[aa", false, 0, -1, "<nil>"},
		{"[ab", "[ab", false, 0, -1, "ab:0"},
		{"(ab", "[ab", false, 0, -1, "<nil>"},
		{"[c", "[a", false, 0, -1, "<nil>"},
		{"+", "+", false, 0, -1, "<nil>"},
		{"-", "-", false, 0, -1, "<nil>"},
		{"+", "-", false, 0, -1, "<nil>"},
		{"-", "+", true, 0, 3, "\xff:0 c:0 ba:0"},
		{"[a", "[b", true, 1, 2, "ab:0 a\x00:0"},
		{"[a", "[b", false, 3, 5, "b:0"},
		{"[a", "[b", false, 4, 5, "<nil>"},
		{"[a", "[b", false, -1, 5, "<nil>"},
		{"[a", "[b", false, 0, 0, "<nil>"},
	} {
		got := show(s.RangeByLex(lb(tc.min), lb(tc.max), tc.reverse, tc.offset, tc.count))
		if got != tc.want {
			t.Errorf("RangeByLex(%q, %q, %v, %d, %d) = %q, want %q", tc.min, tc.max, tc.reverse, tc.offset, tc.count, got, tc.want)
		}
		if tc.offset == 0 && tc.count < 0 {
			want := 0
			if tc.want != "<nil>" {
				want = strings.Count(tc.want, ":0")
			}
			if n := s.CountByLex(lb(tc.min), lb(tc.max)); n != want {
				t.Errorf("CountByLex(%q, %q) = %d, want %d", tc.min, tc.max, n, want)
			}
		}
	}
}

// TestLexMixedScoresDeterministic pins the replication-relevant property:
// with mixed scores, lex results depend on the elements only, not on
// insertion order or the random node heights.
func TestLexMixedScoresDeterministic(t *testing.T) {
	items := make([]Item, 300)
	for i := range items {
		items[i] = Item{Member: string(rune('a'+i%26)) + string(rune('a'+i/26)), Score: float64(i % 7)}
	}
	var want []string
	for trial := range 20 {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		s := &Set{big: newSkiplist(uint64(trial)+1, 0)}
		for _, i := range rng.Perm(len(items)) {
			s.Add(items[i].Member, items[i].Score)
		}
		mustCheck(t, s)
		if s.big.disorder == 0 {
			t.Fatal("fixture is not mixed")
		}
		var got []string
		for _, q := range [][2]string{{"[c", "[m"}, {"(b", "+"}, {"-", "(q"}, {"[zz", "[zz"}} {
			got = append(got, show(s.RangeByLex(lb(q[0]), lb(q[1]), false, 0, -1)))
		}
		if trial == 0 {
			want = got
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d query %d differs:\n%s\n%s", trial, i, got[i], want[i])
			}
		}
	}
}

func TestRemoveRanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(*Set) int
		n    int
		left string
	}{
		{"score ties", func(s *Set) int { return s.RemoveRangeByScore(sb(1, false), sb(3, true)) }, 3, "h:-inf z:0 d:3 e:3 f:3 g:inf"},
		{"score infinities", func(s *Set) int { return s.RemoveRangeByScore(sb(negInf, false), sb(0, false)) }, 2, "a:1 b:1 c:2 d:3 e:3 f:3 g:inf"},
		{"score open", func(s *Set) int { return s.RemoveRangeByScore(sb(negInf, true), sb(inf, true)) }, 7, "h:-inf g:inf"},
		{"score none", func(s *Set) int { return s.RemoveRangeByScore(sb(3, true), sb(3, true)) }, 0, fixtureOrder},
		{"rank middle", func(s *Set) int { return s.RemoveRangeByRank(2, 4) }, 3, "h:-inf z:0 d:3 e:3 f:3 g:inf"},
		{"rank clamp", func(s *Set) int { return s.RemoveRangeByRank(-3, 100) }, 9, "<nil>"},
		{"rank tail", func(s *Set) int { return s.RemoveRangeByRank(8, 8) }, 1, "h:-inf z:0 a:1 b:1 c:2 d:3 e:3 f:3"},
		{"rank inverted", func(s *Set) int { return s.RemoveRangeByRank(5, 4) }, 0, fixtureOrder},
		{"rank past end", func(s *Set) int { return s.RemoveRangeByRank(9, 12) }, 0, fixtureOrder},
	} {
		s := fixture(t)
		if n := tc.do(s); n != tc.n {
			t.Errorf("%s: removed %d, want %d", tc.name, n, tc.n)
		}
		mustCheck(t, s)
		if got := show(all(s)); got != tc.left {
			t.Errorf("%s: left %s, want %s", tc.name, got, tc.left)
		}
	}

	s := lexFixture(t)
	if n := s.RemoveRangeByLex(lb("(a"), lb("[b")); n != 3 {
		t.Errorf("RemoveRangeByLex removed %d", n)
	}
	mustCheck(t, s)
	if got, want := show(all(s)), ":0 a:0 ba:0 c:0 \xff:0"; got != want {
		t.Errorf("after RemoveRangeByLex: %q, want %q", got, want)
	}
	if n := s.RemoveRangeByLex(lb("+"), lb("-")); n != 0 {
		t.Errorf("inverted RemoveRangeByLex removed %d", n)
	}
}

func TestPop(t *testing.T) {
	s := fixture(t)
	if got := show(s.PopMin(3)); got != "h:-inf z:0 a:1" {
		t.Errorf("PopMin(3) = %s", got)
	}
	if got := show(s.PopMax(2)); got != "g:inf f:3" {
		t.Errorf("PopMax(2) = %s", got)
	}
	if s.PopMin(0) != nil || s.PopMax(-1) != nil {
		t.Error("non-positive count popped")
	}
	mustCheck(t, s)
	if got := show(s.PopMax(10)); got != "e:3 d:3 c:2 b:1" {
		t.Errorf("PopMax(10) = %s", got)
	}
	mustCheck(t, s)
	if s.Len() != 0 || s.PopMin(1) != nil {
		t.Error("not empty after popping everything")
	}
	// An emptied set is still usable.
	s.Add("again", 1)
	mustCheck(t, s)
}

func TestEach(t *testing.T) {
	s := fixture(t)
	var got []Item
	for it := range s.Each {
		got = append(got, it)
		if it.Member == "c" {
			break
		}
	}
	if show(got) != "h:-inf z:0 a:1 b:1 c:2" {
		t.Errorf("Each = %s", show(got))
	}
}

func TestRandom(t *testing.T) {
	s := New()
	for i := range 50 {
		s.Add(string(rune('A'+i)), float64(i))
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{1, 5, 24, 25, 40, 49} {
		got := s.Random(n, rng)
		seen := map[string]bool{}
		for _, it := range got {
			if sc, ok := s.Score(it.Member); !ok || sc != it.Score || seen[it.Member] {
				t.Fatalf("Random(%d) gave bad or repeated %v", n, it)
			}
			seen[it.Member] = true
		}
		if len(got) != n {
			t.Errorf("Random(%d) returned %d", n, len(got))
		}
	}
	if got := s.Random(80, rng); show(got) != show(all(s)) {
		t.Error("Random(count >= Len) is not the whole set in order")
	}
	if got := s.Random(-200, rng); len(got) != 200 {
		t.Errorf("Random(-200) returned %d", len(got))
	}

	// Every member is reachable and picks are roughly uniform.
	hits := map[string]int{}
	for range 2000 {
		for _, it := range s.Random(3, rng) {
			hits[it.Member]++
		}
	}
	for m := range 50 {
		if h := hits[string(rune('A'+m))]; h < 60 || h > 180 { // mean 120
			t.Errorf("member %c picked %d times", 'A'+m, h)
		}
	}
}

func TestClone(t *testing.T) {
	s := fixture(t)
	for i := range 200 {
		s.Add(strings.Repeat("x", i%5)+string(rune('a'+i%26)), float64(i%9))
	}
	before := show(all(s))
	c := s.Clone()
	mustCheck(t, c)
	if show(all(c)) != show(all(s)) {
		t.Fatal("clone differs")
	}
	c.Add("a", 100)
	c.RemoveRangeByRank(0, 10)
	mustCheck(t, c)
	mustCheck(t, s)
	if show(all(s)) != before {
		t.Error("mutating the clone changed the original")
	}
}

// A skiplist keeps a score's sign, as Redis's does: a set past the
// compact form's limits answers -0 for a member added with -0, and one
// that was compact when the member came keeps the 0 it stored then.
func TestNegativeZeroInASkiplist(t *testing.T) {
	s := New()
	s.Add("early", negZ)
	for i := range packedMaxLen + 1 {
		s.Add(fmt.Sprint("m", i), float64(i+1))
	}
	if s.big == nil {
		t.Fatal("still compact")
	}
	s.Add("late", negZ)
	if sc, _ := s.Score("late"); !math.Signbit(sc) {
		t.Error("the skiplist dropped -0's sign")
	}
	if sc, _ := s.Score("early"); math.Signbit(sc) {
		t.Error("promotion brought back a sign the compact form had dropped")
	}
}

func TestFromItemsTakesTheFormOfTheWholeSet(t *testing.T) {
	items := func(n, memberLen int) []Item {
		out := make([]Item, n)
		for i := range out {
			out[i] = Item{Member: fmt.Sprintf("%0*d", memberLen, i), Score: negZ}
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		items       []Item
		compact     bool
		signKeptFor int // members, from the first, whose -0 keeps its sign
	}{
		{"empty", nil, true, 0},
		{"fits", items(packedMaxLen, 3), true, 0},
		{"one too many", items(packedMaxLen+1, 3), false, packedMaxLen + 1},
		{"one long member", items(2, packedMaxMember+1), false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := FromItems(tc.items)
			if (s.big == nil) != tc.compact {
				t.Fatalf("compact = %v, want %v", s.big == nil, tc.compact)
			}
			if s.Len() != len(tc.items) {
				t.Fatalf("Len = %d, want %d", s.Len(), len(tc.items))
			}
			kept := 0
			for _, it := range tc.items {
				if sc, _ := s.Score(it.Member); math.Signbit(sc) {
					kept++
				}
			}
			if kept != tc.signKeptFor {
				t.Errorf("%d members kept -0, want %d", kept, tc.signKeptFor)
			}
		})
	}
	s := FromItems([]Item{{"a", 1}, {"b", 2}, {"a", 3}})
	if got := s.ByRank(0, s.Len()-1, false); !slices.Equal(got, []Item{{"b", 2}, {"a", 3}}) {
		t.Errorf("a repeated member: got %v, want the last score to hold", got)
	}
}

func TestCompareIsTheSetsOrder(t *testing.T) {
	for _, tc := range []struct {
		a, b Item
		want int
	}{
		{Item{"b", 1}, Item{"a", 2}, -1},
		{Item{"a", 2}, Item{"b", 1}, 1},
		{Item{"a", 1}, Item{"b", 1}, -1},
		{Item{"b", negZ}, Item{"a", 0}, 1}, // -0 and 0 tie: member decides
		{Item{"a", negInf}, Item{"a", inf}, -1},
		{Item{"a", 1}, Item{"a", 1}, 0},
	} {
		if got := Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
