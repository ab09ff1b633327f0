package sortedset

import (
	"math"
	"strings"
	"testing"
)

// TestPackedWidths walks the compact form across each of its encoding
// boundaries — member areas of 255 and 256 bytes, scores at the edges of
// int8, int16 and int32, -0 and fractions — checking every step against a
// skiplist holding the same elements.
func TestPackedWidths(t *testing.T) {
	scores := []float64{0, -128, 127, 128, -129, 32767, -32768, 32768, math.MaxInt32, math.MinInt32,
		math.MaxInt32 + 1, math.Copysign(0, -1), 0.5, math.Inf(1), math.Inf(-1), 1 << 60}
	for _, last := range []int{4, 5, 6, 7} {
		// Five members of 50 bytes plus one of last: areas of 254 to 257 bytes.
		s, twin := New(), &Set{big: newSkiplist(0, 0)}
		add := func(member string, score float64) {
			t.Helper()
			stored := score
			if stored == 0 {
				stored = 0 // the compact form stores -0 as 0, as a listpack does
			}
			if s.Add(member, score) != twin.Add(member, stored) {
				t.Fatalf("Add(%q, %v) disagrees", member, score)
			}
			mustCheck(t, s)
			if s.big != nil {
				t.Fatalf("left the compact form at %d members", s.Len())
			}
			if got, want := s.String(), twin.String(); got != want {
				t.Fatalf("after Add(%q, %v):\n%s\nwant %s", member, score, got, want)
			}
		}
		for i := range 5 {
			add(strings.Repeat(string(rune('a'+i)), 50), float64(i))
		}
		add(strings.Repeat("z", last), -1)
		if _, ew := s.small.widths(); (ew == 2) != (250+last > 255) {
			t.Errorf("area of %d bytes has %d-byte ends", 250+last, ew)
		}
		for i, sc := range scores {
			add(strings.Repeat(string(rune('a'+i%5)), 50), sc)
		}
		for i := range 5 {
			s.Remove(strings.Repeat(string(rune('a'+i)), 50))
			twin.Remove(strings.Repeat(string(rune('a'+i)), 50))
			mustCheck(t, s)
			if got, want := s.String(), twin.String(); got != want {
				t.Fatalf("after Remove: %s, want %s", got, want)
			}
		}
	}
}
