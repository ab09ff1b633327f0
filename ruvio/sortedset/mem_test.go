package sortedset

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/internal/liveheap"
)

// heapPerSet returns the live heap bytes one set costs, averaged over n sets
// each built by fill. Every member string is allocated afresh, as a server
// converting command arguments would, so a form that keeps the caller's
// strings is charged for them.
func heapPerSet(n int, fill func(*Set, int)) float64 {
	return liveheap.PerValue(n, func(i int) *Set {
		s := New()
		fill(s, i)
		return s
	})
}

// fillTen adds m0..m9 with scores 0..9, the shape of the benchmark's ZADDs.
func fillTen(s *Set, _ int) {
	for j := range 10 {
		s.Add("m"+strconv.Itoa(j), float64(j))
	}
}

// TestMemoryPerSmallSet pins the compact form's footprint: a set of ten
// short members with small integer scores costs 80 bytes (the 32-byte Set and a
// 48-byte buffer); in the skiplist form it took about 2 KB.
func TestMemoryPerSmallSet(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 100k sets")
	}
	per := heapPerSet(100_000, fillTen)
	t.Logf("%.0f bytes per set of 10 members", per)
	if per > 128 {
		t.Errorf("%.0f bytes per set of 10 members, want at most 128", per)
	}
}

// BenchmarkMemory reports the live heap bytes per set for sets of 10 short
// members (the compact form) and of 200 (the skiplist form).
func BenchmarkMemory(b *testing.B) {
	for _, size := range []int{10, 200} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = heapPerSet(1_000_000/size, func(s *Set, _ int) {
					for j := range size {
						s.Add("m"+strconv.Itoa(j), float64(j))
					}
				})
			}
			b.ReportMetric(per, "bytes/set")
			b.ReportMetric(per/float64(size), "bytes/member")
		})
	}
}

// TestSmallFormAllocations checks that lookups, counts and score updates on
// the compact form allocate nothing, even with members too long for the
// runtime's small stack buffers for string conversions.
func TestSmallFormAllocations(t *testing.T) {
	s := New()
	long := strings.Repeat("x", packedMaxMember-1)
	for i := range 20 {
		s.Add(long+string(rune('a'+i)), float64(i))
	}
	moving, absent := long+"c", long+"q"
	lexMin := LexBound{Value: moving}
	i := 0
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Add moving a member", func() { i++; s.Add(moving, float64(i%40)) }},
		{"Score", func() { s.Score(absent) }},
		{"Rank", func() { s.Rank(moving, true) }},
		{"CountByLex", func() { s.CountByLex(lexMin, LexBound{Inf: 1}) }},
		{"CountByScore", func() { s.CountByScore(ScoreBound{Value: 3}, ScoreBound{Value: 10}) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations", tc.name, n)
		}
	}
	if s.big != nil {
		t.Fatal("the set left the compact form")
	}
	mustCheck(t, s)
}
