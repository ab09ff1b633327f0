package sortedset

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

const benchSize = 100_000

func benchItems() []Item {
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]Item, benchSize)
	for i := range items {
		items[i] = Item{Member: "member:" + strconv.Itoa(i), Score: float64(rng.IntN(benchSize))}
	}
	return items
}

func benchSet(items []Item) *Set {
	s := New()
	for _, it := range items {
		s.Add(it.Member, it.Score)
	}
	return s
}

// BenchmarkAdd measures inserts while building sets of 1e5 members, and score
// updates (the ZADD/ZINCRBY path) in a set of 1e5 members.
func BenchmarkAdd(b *testing.B) {
	items := benchItems()
	b.Run("insert", func(b *testing.B) {
		b.ReportAllocs()
		var s *Set
		for i := 0; b.Loop(); i++ {
			if i%benchSize == 0 {
				b.StopTimer()
				s = New()
				b.StartTimer()
			}
			it := items[i%benchSize]
			s.Add(it.Member, it.Score)
		}
	})
	b.Run("update", func(b *testing.B) {
		s := benchSet(items)
		rng := rand.New(rand.NewPCG(3, 4))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			s.Add(items[i%benchSize].Member, float64(rng.IntN(benchSize)))
		}
	})
	b.Run("increment", func(b *testing.B) {
		// Small steps mostly keep the node between the same neighbours.
		s := benchSet(items)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m := items[i%benchSize].Member
			sc, _ := s.Score(m)
			s.Add(m, sc+0.001)
		}
	})
}

// BenchmarkRank measures ZRANK in a set of 1e5 members.
func BenchmarkRank(b *testing.B) {
	items := benchItems()
	s := benchSet(items)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, ok := s.Rank(items[(i*7919)%benchSize].Member, false); !ok {
			b.Fatal("missing member")
		}
	}
}

// BenchmarkRangeByScore measures a LIMIT 10 score query in a set of 1e5 members.
func BenchmarkRangeByScore(b *testing.B) {
	s := benchSet(benchItems())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v := float64((i * 7919) % benchSize)
		s.RangeByScore(ScoreBound{Value: v}, ScoreBound{Value: v + 100}, false, 0, 10)
	}
}

// BenchmarkRangeByLex measures a LIMIT 10 prefix query over 1e5 equal-score
// members, the autocomplete pattern.
func BenchmarkRangeByLex(b *testing.B) {
	items := benchItems()
	s := New()
	for _, it := range items {
		s.Add(it.Member, 0)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := items[(i*7919)%benchSize].Member
		prefix := m[:min(len(m), 10)]
		s.RangeByLex(LexBound{Value: prefix}, LexBound{Value: prefix + "\xff"}, false, 0, 10)
	}
}

// BenchmarkSmall measures sets small enough for Redis's listpack: building
// one of 10 members, and in a set of 128 (the largest such) a score lookup,
// a rank, a small score update and a LIMIT 10 score range.
func BenchmarkSmall(b *testing.B) {
	members := make([]string, 128)
	for i := range members {
		members[i] = "member:" + strconv.Itoa(i)
	}
	b.Run("build10", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := New()
			for i, m := range members[:10] {
				s.Add(m, float64(i))
			}
		}
	})
	full := func() *Set {
		s := New()
		for i, m := range members {
			s.Add(m, float64(i)*1.5)
		}
		return s
	}
	s := full()
	b.Run("score128", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			s.Score(members[(i*7919)%len(members)])
		}
	})
	b.Run("rank128", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			s.Rank(members[(i*7919)%len(members)], false)
		}
	})
	b.Run("increment128", func(b *testing.B) {
		s := full() // the steps add up; the other cases see the original scores
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m := members[(i*7919)%len(members)]
			sc, _ := s.Score(m)
			s.Add(m, sc+0.001)
		}
	})
	b.Run("range128", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			v := float64((i * 7919) % 180)
			s.RangeByScore(ScoreBound{Value: v}, ScoreBound{Value: v + 30}, false, 0, 10)
		}
	})
}
