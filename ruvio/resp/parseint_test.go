package resp

import (
	"math"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

func TestParseIntIsRedisStrict(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"-7", -7, true},
		{"1234567890", 1234567890, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"9999999999999999999", 0, false},
		{"10000000000000000000", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"-0", 0, false},
		{"00", 0, false},
		{"01", 0, false},
		{"-01", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1_000", 0, false},
		{"0x10", 0, false},
		{"1e3", 0, false},
		{"--1", 0, false},
		{"12a", 0, false},
	} {
		got, ok := ParseInt([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// strictRef is string2ll's rule spelled out over strconv: a canonical
// decimal form only.
func strictRef(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != string(b) {
		return 0, false
	}
	return n, true
}

func TestParseIntAgreesWithTheCanonicalForm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b []byte
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0: // any int64, printed
			b = strconv.AppendInt(nil, rapid.Int64().Draw(t, "n"), 10)
		case 1: // digits and signs, of any length up to 21
			b = []byte(rapid.StringOfN(rapid.SampledFrom([]rune("-+0123456789 ")), 0, 21, -1).Draw(t, "s"))
		default: // near the ends of the range
			edge := rapid.SampledFrom([]string{"9223372036854775807", "-9223372036854775808"}).Draw(t, "edge")
			b = []byte(edge)
			i := rapid.IntRange(1, len(b)-1).Draw(t, "at")
			b[i] = byte('0' + rapid.IntRange(0, 9).Draw(t, "digit"))
		}
		got, ok := ParseInt(b)
		want, wantOK := strictRef(b)
		if got != want || ok != wantOK {
			t.Fatalf("ParseInt(%q) = %d, %v; the canonical form says %d, %v", b, got, ok, want, wantOK)
		}
	})
}

func BenchmarkParseInt(b *testing.B) {
	in := []byte("1234567")
	for b.Loop() {
		ParseInt(in)
	}
}
