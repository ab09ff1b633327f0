package scan

import (
	"math"
	"slices"
	"testing"
)

// TestSelectorTies feeds the selector hashes that collide at the batch
// boundary: every key sharing the bound's hash must come back, or the next
// call (starting past the bound) would skip it.
func TestSelectorTies(t *testing.T) {
	cases := []struct {
		name   string
		limit  int
		offers []entry
		want   []string
		bound  uint64
	}{
		{
			name:   "tie after full",
			limit:  2,
			offers: []entry{{1, "a"}, {5, "b"}, {5, "c"}, {9, "d"}},
			want:   []string{"a", "b", "c"},
			bound:  5,
		},
		{
			name:   "ties dropped when a smaller hash arrives",
			limit:  2,
			offers: []entry{{5, "a"}, {7, "b"}, {7, "c"}, {7, "d"}, {1, "e"}},
			want:   []string{"a", "e"},
			bound:  5,
		},
		{
			name:   "evicted entry kept when the bound stays",
			limit:  3,
			offers: []entry{{7, "a"}, {7, "b"}, {9, "c"}, {1, "d"}, {7, "e"}},
			want:   []string{"a", "b", "d", "e"},
			bound:  7,
		},
		{
			name:   "evicted tie chain",
			limit:  2,
			offers: []entry{{7, "a"}, {7, "b"}, {7, "c"}, {3, "d"}},
			want:   []string{"a", "b", "c", "d"},
			bound:  7,
		},
		{
			name:   "underfull",
			limit:  10,
			offers: []entry{{3, "a"}, {3, "b"}},
			want:   []string{"a", "b"},
			bound:  3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := selector{limit: c.limit}
			for _, e := range c.offers {
				s.offer(e.h, e.key)
			}
			var got []string
			for _, e := range s.heap {
				got = append(got, e.key)
			}
			got = append(got, s.ties...)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("selected %v, want %v", got, c.want)
			}
			if s.heap[0].h != c.bound {
				t.Fatalf("bound %d, want %d", s.heap[0].h, c.bound)
			}
		})
	}
}

// TestMapCursorEnd checks the cursor of Map stops at the top of the hash
// space instead of wrapping to the start.
func TestMapCursorEnd(t *testing.T) {
	m := map[string]struct{}{}
	for i := 0; i < 1000; i++ {
		m[string(rune('a'+i%26))+string(rune(i))] = struct{}{}
	}
	next, keys := Map(m, math.MaxUint64, Options{Count: 10})
	if next != 0 {
		t.Fatalf("next cursor %d after the top", next)
	}
	for _, k := range keys {
		if Hash(k) != math.MaxUint64 {
			t.Fatalf("returned %q below the cursor", k)
		}
	}
}

func TestParseCursor(t *testing.T) {
	for in, want := range map[string]uint64{
		"": 0, "0": 0, "42": 42, "+42": 42, "007": 7, "-1": math.MaxUint64,
		"18446744073709551615": math.MaxUint64,
	} {
		if got, ok := ParseCursor([]byte(in)); !ok || got != want {
			t.Errorf("ParseCursor(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"+", "-", "x", "1x", " 1", "1 ", "18446744073709551616", "1_0", "0x10"} {
		if _, ok := ParseCursor([]byte(in)); ok {
			t.Errorf("ParseCursor(%q) accepted", in)
		}
	}
}
