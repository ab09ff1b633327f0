package sortedset

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// model is the naive reference: a slice kept sorted by (score, member).
type model []Item

func itemLess(a, b Item) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.Member < b.Member)
}

func (m model) find(member string) int {
	for i, it := range m {
		if it.Member == member {
			return i
		}
	}
	return -1
}

func (m *model) add(member string, score float64) bool {
	if i := m.find(member); i >= 0 {
		if (*m)[i].Score == score {
			return false
		}
		*m = slices.Delete(*m, i, i+1)
		m.insert(Item{member, score})
		return false
	}
	m.insert(Item{member, score})
	return true
}

func (m *model) insert(it Item) {
	i := sort.Search(len(*m), func(i int) bool { return itemLess(it, (*m)[i]) })
	*m = slices.Insert(*m, i, it)
}

func inScore(v float64, lb, ub ScoreBound) bool {
	aboveMin := v > lb.Value || (!lb.Exclusive && v == lb.Value)
	belowMax := v < ub.Value || (!ub.Exclusive && v == ub.Value)
	return aboveMin && belowMax
}

// scoreSpan filters linearly: scores are sorted, so the matches are one run.
func (m model) scoreSpan(lb, ub ScoreBound) (lo, hi int) {
	lo = len(m)
	for i, it := range m {
		if inScore(it.Score, lb, ub) {
			lo = min(lo, i)
			hi = i + 1
		}
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// lexSpan is Redis's lex search as its listpack form runs it
// (zzlFirstInLexRange, zzlLastInLexRange): nothing unless the range holds
// some string, the last element is at least min and the first at most
// max; then forward from the first element at least min while at most
// max, or reverse from the last element at most max while at least min.
// With equal scores it is plain filtering (checked below).
func (m model) lexSpan(lb, ub LexBound, reverse bool) (lo, hi int) {
	geMin := func(i int) bool { return inLex(m[i].Member, lb, LexBound{Inf: 1}) }
	leMax := func(i int) bool { return inLex(m[i].Member, LexBound{Inf: -1}, ub) }
	n := len(m)
	holds := lb.Inf < 0 || ub.Inf > 0 || (lb.Inf == 0 && ub.Inf == 0 &&
		(lb.Value < ub.Value || (lb.Value == ub.Value && !lb.Exclusive && !ub.Exclusive)))
	if n == 0 || !holds || !geMin(n-1) || !leMax(0) {
		return 0, 0
	}
	if reverse {
		hi = n
		for hi > 0 && !leMax(hi-1) {
			hi--
		}
		if hi == 0 || !geMin(hi-1) {
			return 0, 0
		}
		for lo = hi - 1; lo > 0 && geMin(lo-1); lo-- {
		}
		return lo, hi
	}
	for lo < n && !geMin(lo) {
		lo++
	}
	if lo == n || !leMax(lo) {
		return 0, 0
	}
	for hi = lo + 1; hi < n && leMax(hi); hi++ {
	}
	return lo, hi
}

func inLex(v string, lb, ub LexBound) bool {
	aboveMin := lb.Inf < 0 || (lb.Inf == 0 && (v > lb.Value || (!lb.Exclusive && v == lb.Value)))
	belowMax := ub.Inf > 0 || (ub.Inf == 0 && (v < ub.Value || (!ub.Exclusive && v == ub.Value)))
	return aboveMin && belowMax
}

// lexLimit is a lex range with LIMIT as Redis walks it: from the span's
// first element (last, reverse) skip offset elements, then take up to
// count while each is still at most max (at least min, reverse). With
// equal scores that is window over the span.
func (m model) lexLimit(lb, ub LexBound, reverse bool, offset, count int) []Item {
	lo, hi := m.lexSpan(lb, ub, reverse)
	if hi <= lo || offset < 0 || count == 0 {
		return nil
	}
	var out []Item
	if reverse {
		for i := hi - 1 - offset; i >= 0 && (count < 0 || len(out) < count) && inLex(m[i].Member, lb, LexBound{Inf: 1}); i-- {
			out = append(out, m[i])
		}
		return out
	}
	for i := lo + offset; i < len(m) && (count < 0 || len(out) < count) && inLex(m[i].Member, LexBound{Inf: -1}, ub); i++ {
		out = append(out, m[i])
	}
	return out
}

func (m model) window(lo, hi int, reverse bool, offset, count int) []Item {
	run := slices.Clone(m[lo:hi])
	if reverse {
		slices.Reverse(run)
	}
	if offset < 0 || offset >= len(run) {
		return nil
	}
	run = run[offset:]
	if count >= 0 && count < len(run) {
		run = run[:count]
	}
	if len(run) == 0 {
		return nil
	}
	return run
}

var (
	memberGen = rapid.Custom(func(t *rapid.T) string {
		// A tiny byte alphabet forces collisions, shared prefixes and high
		// bytes that would expose signed comparisons.
		b := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 'a', 'b', 0x80, 0xff}), 0, 3).Draw(t, "bytes")
		return string(b)
	})
	// longMemberGen adds members around the compact form's length limit, all
	// sharing a prefix so that they still sort among the short ones.
	longMemberGen = rapid.OneOf(memberGen, memberGen, rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(packedMaxMember-2, packedMaxMember+2).Draw(t, "length")
		return strings.Repeat("a", n-1) + string(rapid.SampledFrom([]byte{0, 'b', 0xff}).Draw(t, "last"))
	}))
	scoreGen = rapid.OneOf(
		rapid.SampledFrom([]float64{math.Inf(-1), -2, -1, math.Copysign(0, -1), 0, 0.5, 1, 2, math.Inf(1)}),
		// Integers at the edges of the compact form's score widths.
		rapid.SampledFrom([]float64{-129, -128, 127, 128, -32769, 32767, 32768, math.MinInt32, math.MaxInt32, 1 << 31, 1 << 53}),
		rapid.Float64(),
	)
	scoreBoundGen = rapid.Custom(func(t *rapid.T) ScoreBound {
		return ScoreBound{Value: scoreGen.Draw(t, "value"), Exclusive: rapid.Bool().Draw(t, "exclusive")}
	})
	lexBoundGen = rapid.Custom(func(t *rapid.T) LexBound {
		b := LexBound{Inf: rapid.SampledFrom([]int{-1, 0, 0, 0, 1}).Draw(t, "inf")}
		if b.Inf == 0 {
			b.Value = memberGen.Draw(t, "value")
			b.Exclusive = rapid.Bool().Draw(t, "exclusive")
		}
		return b
	})
)

// TestModel runs every operation against the model on a set s, and on a
// twin that is a skiplist from the start, so each answer is checked against
// the model and the compact and large forms against each other. The regime
// decides how s lives: staying compact, crossing the member-count limit,
// crossing the member-length limit, or a skiplist from the start.
func TestModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regime := rapid.SampledFrom([]string{"small", "count", "length", "big"}).Draw(t, "regime")
		s := New()
		if regime == "big" {
			s.promote()
		}
		twin := &Set{big: newSkiplist(0, 0)}
		var m model
		// promoted is when s must be a skiplist: once it has exceeded either
		// limit, for good.
		promoted := regime == "big"
		member := memberGen
		if regime == "length" {
			member = longMemberGen
		}
		// add applies one Add to s, the twin and the model.
		add := func(t *rapid.T, mem string, sc float64) {
			t.Helper()
			// The compact form stores -0 as 0, as a listpack does: a
			// member already there, or one that fits without leaving it.
			stored := sc
			if stored == 0 && !promoted && (m.find(mem) >= 0 || len(m) < packedMaxLen && len(mem) <= packedMaxMember) {
				stored = 0
			}
			want := m.add(mem, stored)
			if got := s.Add(mem, sc); got != want {
				t.Fatalf("Add(%q, %v) = %v, want %v", mem, sc, got, want)
			}
			if got := twin.Add(mem, stored); got != want {
				t.Fatalf("twin Add(%q, %v) = %v, want %v", mem, sc, got, want)
			}
			promoted = promoted || len(m) > packedMaxLen || len(mem) > packedMaxMember
		}
		// Half the runs keep every score equal, the case lex ranges are meant
		// for; the rest mix scores so both lex search paths get exercised.
		sameScore := rapid.Bool().Draw(t, "sameScore")
		score := func(t *rapid.T) float64 {
			if sameScore {
				return 1
			}
			return scoreGen.Draw(t, "score")
		}
		// expect and expectInt check an answer of s and the twin's answer
		// to the same call.
		expect := func(t *rapid.T, what string, got, twinGot, want []Item) {
			t.Helper()
			if !sameItems(got, want) {
				t.Fatalf("%s: got %v, want %v", what, got, want)
			}
			if !sameItems(twinGot, want) {
				t.Fatalf("%s on the twin: got %v, want %v", what, twinGot, want)
			}
		}
		expectInt := func(t *rapid.T, what string, got, twinGot, want int) {
			t.Helper()
			if got != want || twinGot != want {
				t.Fatalf("%s: got %d (twin %d), want %d", what, got, twinGot, want)
			}
		}
		if regime == "count" {
			// Start just below the limit, so that AddMany crosses it.
			for i := range rapid.IntRange(packedMaxLen-20, packedMaxLen+5).Draw(t, "prefill") {
				add(t, "p"+strconv.Itoa(i), score(t))
			}
		}

		t.Repeat(map[string]func(*rapid.T){
			"": func(t *rapid.T) {
				for _, x := range []*Set{s, twin} {
					if err := x.check(); err != nil {
						t.Fatal(err)
					}
				}
				if (s.big != nil) != promoted {
					t.Fatalf("skiplist form is %v after %d members (regime %s)", s.big != nil, len(m), regime)
				}
				expectInt(t, "Len", s.Len(), twin.Len(), len(m))
				var all, twinAll []Item
				s.Each(func(it Item) bool { all = append(all, it); return true })
				twin.Each(func(it Item) bool { twinAll = append(twinAll, it); return true })
				if len(m) == 0 {
					expect(t, "Each", all, twinAll, nil)
				} else {
					expect(t, "Each", all, twinAll, m)
				}
				if got, want := s.String(), twin.String(); got != want {
					t.Fatalf("String: %s, twin %s", got, want)
				}
			},
			"Add": func(t *rapid.T) {
				add(t, member.Draw(t, "member"), score(t))
			},
			"AddMany": func(t *rapid.T) {
				for range rapid.IntRange(1, 20).Draw(t, "n") {
					add(t, member.Draw(t, "member"), score(t))
				}
			},
			"Remove": func(t *rapid.T) {
				member := member.Draw(t, "member")
				i := m.find(member)
				if i >= 0 {
					m = slices.Delete(m, i, i+1)
				}
				if got, twinGot := s.Remove(member), twin.Remove(member); got != (i >= 0) || twinGot != got {
					t.Fatalf("Remove(%q) = %v, twin %v", member, got, twinGot)
				}
			},
			"Score": func(t *rapid.T) {
				member := member.Draw(t, "member")
				i := m.find(member)
				for _, x := range []*Set{s, twin} {
					got, ok := x.Score(member)
					if ok != (i >= 0) || (ok && math.Float64bits(got) != math.Float64bits(m[i].Score)) {
						t.Fatalf("Score(%q) = %v, %v; model index %d", member, got, ok, i)
					}
				}
			},
			"Rank": func(t *rapid.T) {
				member, reverse := member.Draw(t, "member"), rapid.Bool().Draw(t, "reverse")
				want := m.find(member)
				if want >= 0 && reverse {
					want = len(m) - 1 - want
				}
				for _, x := range []*Set{s, twin} {
					got, ok := x.Rank(member, reverse)
					if ok != (want >= 0) || (ok && got != want) {
						t.Fatalf("Rank(%q, %v) = %d, %v; want %d", member, reverse, got, ok, want)
					}
				}
			},
			"ByRank": func(t *rapid.T) {
				start := rapid.IntRange(-1, len(m)+1).Draw(t, "start")
				stop := rapid.IntRange(-1, len(m)+1).Draw(t, "stop")
				reverse := rapid.Bool().Draw(t, "reverse")
				lo, hi := max(start, 0), min(stop, len(m)-1)+1
				var want []Item
				if lo < hi {
					want = m.window(lo, hi, false, 0, -1)
					if reverse {
						want = m.window(len(m)-hi, len(m)-lo, true, 0, -1)
					}
				}
				expect(t, "ByRank", s.ByRank(start, stop, reverse), twin.ByRank(start, stop, reverse), want)
			},
			"RangeByScore": func(t *rapid.T) {
				lb, ub := scoreBoundGen.Draw(t, "min"), scoreBoundGen.Draw(t, "max")
				reverse := rapid.Bool().Draw(t, "reverse")
				offset, count := rapid.IntRange(-1, 5).Draw(t, "offset"), rapid.IntRange(-1, 5).Draw(t, "count")
				lo, hi := m.scoreSpan(lb, ub)
				expect(t, "RangeByScore", s.RangeByScore(lb, ub, reverse, offset, count), twin.RangeByScore(lb, ub, reverse, offset, count), m.window(lo, hi, reverse, offset, count))
				expectInt(t, "CountByScore", s.CountByScore(lb, ub), twin.CountByScore(lb, ub), hi-lo)
			},
			"RangeByLex": func(t *rapid.T) {
				lb, ub := lexBoundGen.Draw(t, "min"), lexBoundGen.Draw(t, "max")
				reverse := rapid.Bool().Draw(t, "reverse")
				offset, count := rapid.IntRange(-1, 5).Draw(t, "offset"), rapid.IntRange(-1, 5).Draw(t, "count")
				want := m.lexLimit(lb, ub, reverse, offset, count)
				expect(t, "RangeByLex", s.RangeByLex(lb, ub, reverse, offset, count), twin.RangeByLex(lb, ub, reverse, offset, count), want)
				lo, hi := m.lexSpan(lb, ub, false)
				expectInt(t, "CountByLex", s.CountByLex(lb, ub), twin.CountByLex(lb, ub), hi-lo)
				if sameScore {
					// With equal scores the bisection spec must agree with
					// plain filtering, i.e. with Redis.
					var filtered []Item
					for _, it := range m {
						if inLex(it.Member, lb, ub) {
							filtered = append(filtered, it)
						}
					}
					expectInt(t, "lex filter", len(filtered), len(filtered), hi-lo)
				}
			},
			"RemoveRangeByScore": func(t *rapid.T) {
				lb, ub := scoreBoundGen.Draw(t, "min"), scoreBoundGen.Draw(t, "max")
				lo, hi := m.scoreSpan(lb, ub)
				m = slices.Delete(m, lo, hi)
				expectInt(t, "RemoveRangeByScore", s.RemoveRangeByScore(lb, ub), twin.RemoveRangeByScore(lb, ub), hi-lo)
			},
			"RemoveRangeByLex": func(t *rapid.T) {
				lb, ub := lexBoundGen.Draw(t, "min"), lexBoundGen.Draw(t, "max")
				lo, hi := m.lexSpan(lb, ub, false)
				m = slices.Delete(m, lo, hi)
				expectInt(t, "RemoveRangeByLex", s.RemoveRangeByLex(lb, ub), twin.RemoveRangeByLex(lb, ub), hi-lo)
			},
			"RemoveRangeByRank": func(t *rapid.T) {
				start := rapid.IntRange(-1, len(m)+1).Draw(t, "start")
				stop := rapid.IntRange(-1, len(m)+1).Draw(t, "stop")
				lo, hi := max(start, 0), min(stop, len(m)-1)+1
				want := 0
				if lo < hi {
					want = hi - lo
					m = slices.Delete(m, lo, hi)
				}
				expectInt(t, "RemoveRangeByRank", s.RemoveRangeByRank(start, stop), twin.RemoveRangeByRank(start, stop), want)
			},
			"PopMin": func(t *rapid.T) {
				n := rapid.IntRange(-1, 4).Draw(t, "count")
				k := min(max(n, 0), len(m))
				want := m.window(0, k, false, 0, -1)
				m = slices.Delete(m, 0, k)
				expect(t, "PopMin", s.PopMin(n), twin.PopMin(n), want)
			},
			"PopMax": func(t *rapid.T) {
				n := rapid.IntRange(-1, 4).Draw(t, "count")
				k := min(max(n, 0), len(m))
				want := m.window(len(m)-k, len(m), true, 0, -1)
				m = slices.Delete(m, len(m)-k, len(m))
				expect(t, "PopMax", s.PopMax(n), twin.PopMax(n), want)
			},
			"Random": func(t *rapid.T) {
				n := rapid.IntRange(-8, 8).Draw(t, "count")
				seed := rapid.Uint64().Draw(t, "seed")
				got := s.Random(n, rand.New(rand.NewPCG(seed, 1)))
				// The same generator must draw the same sample in either form.
				if twinGot := twin.Random(n, rand.New(rand.NewPCG(seed, 1))); !sameItems(got, twinGot) {
					t.Fatalf("Random(%d) = %v, twin %v", n, got, twinGot)
				}
				wantLen := min(n, len(m))
				if n < 0 && len(m) > 0 {
					wantLen = -n
				}
				expectInt(t, "len(Random)", len(got), len(got), max(wantLen, 0))
				seen := map[string]bool{}
				for _, it := range got {
					i := m.find(it.Member)
					if i < 0 || math.Float64bits(m[i].Score) != math.Float64bits(it.Score) {
						t.Fatalf("Random returned %v, not in the set", it)
					}
					if n > 0 && seen[it.Member] {
						t.Fatalf("Random(%d) repeated %q", n, it.Member)
					}
					seen[it.Member] = true
				}
			},
			"Clone": func(t *rapid.T) {
				c, tc := s.Clone(), twin.Clone()
				for _, x := range []*Set{c, tc} {
					if err := x.check(); err != nil {
						t.Fatal(err)
					}
				}
				if (c.big != nil) != (s.big != nil) || tc.big == nil {
					t.Fatal("Clone changed the form")
				}
				// The original must not share structure with the copy.
				s.PopMin(1)
				s.Add("\xff\xff\xff\xff", 1)
				twin.PopMin(1)
				s, twin = c, tc
			},
		})
	})
}
