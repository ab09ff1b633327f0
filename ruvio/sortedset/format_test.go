package sortedset

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Variables, so that tenth+fifth is float64 arithmetic rather than an exact
// constant expression.
var tenth, fifth = 0.1, 0.2

func TestFormatScore(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{negZ, "-0"},
		{inf, "inf"},
		{negInf, "-inf"},
		{math.NaN(), "nan"},
		// C's %.17g, as Redis 7.0's addReplyDouble (expected values
		// printed by C's printf).
		{1, "1"},
		{-1, "-1"},
		{100000000, "100000000"},
		{1e17, "1e+17"},
		{1e18, "1e+18"},
		{1 << 53, "9007199254740992"},
		{1 << 62, "4.6116860184273879e+18"},
		{-(1 << 62), "-4.6116860184273879e+18"},
		{1e19, "1e+19"},
		{1.5e20, "1.5e+20"},
		{1e100, "1e+100"},
		{-1e300, "-1.0000000000000001e+300"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{0.1, "0.10000000000000001"},
		{1.1, "1.1000000000000001"},
		{-1.5, "-1.5"},
		{3.14159, "3.1415899999999999"},
		{tenth + fifth, "0.30000000000000004"},
		{1e15 + 0.5, "1000000000000000.5"},
		{12345678.5, "12345678.5"},
		{14894.260716123894, "14894.260716123894"},
		{0.001, "0.001"},
		{0.00012345678, "0.00012345678000000001"},
		{0.000001, "9.9999999999999995e-07"},
		{-1.5e-7, "-1.4999999999999999e-07"},
		{1.5e-100, "1.5e-100"},
		{5e-324, "4.9406564584124654e-324"},
	} {
		if got := FormatScore(tc.in); got != tc.want {
			t.Errorf("FormatScore(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := string(AppendScore([]byte("x="), 2.5)); got != "x=2.5" {
		t.Errorf("AppendScore = %q", got)
	}
}

func TestParseScore(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"1", 1},
		{"-1.5", -1.5},
		{"+2", 2},
		{"1e3", 1000},
		{"1E-3", 0.001},
		{".5", 0.5},
		{"5.", 5},
		{"0", 0},
		{"-0", negZ},
		{"inf", inf},
		{"+inf", inf},
		{"-inf", negInf},
		{"INF", inf},
		{"-Infinity", negInf},
		{"0x10", 16},
		{"0x1p-2", 0.25},
		{"-0X.8", -0.5},
		{"1e-320", 1e-320}, // subnormal: strtod sets ERANGE, but Redis keeps nonzero results
		{"0e500", 0},
		{"0.30000000000000004", tenth + fifth},
	} {
		got, err := ParseScore(tc.in)
		if err != nil || math.Float64bits(got) != math.Float64bits(tc.want) {
			t.Errorf("ParseScore(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", " 1", "1 ", "\t1", "abc", "1a", "nan", "NaN", "-nan", "1e", "1e+", ".", "-", "+",
		"1e400", "-1e400", "1e-400", "0x1p-1100", "1_000", "0x_1p0", "0x", "--1", "+-1", "inf1", "infinit", "1,5",
	} {
		if f, err := ParseScore(in); err != ErrInvalidFloat {
			t.Errorf("ParseScore(%q) = %v, %v; want ErrInvalidFloat", in, f, err)
		}
	}
	if ErrInvalidFloat.Error() != "ERR value is not a valid float" {
		t.Error("error text")
	}
}

// TestFormatRoundTrip: every stored score survives a reply and re-parse
// bit for bit, so ZSCORE output can be fed back to ZADD.
func TestFormatRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.OneOf(rapid.Float64(), rapid.Map(rapid.Uint64(), math.Float64frombits)).
			Filter(func(f float64) bool { return f == f }).Draw(t, "f")
		s := FormatScore(f)
		got, err := ParseScore(s)
		if err != nil || math.Float64bits(got) != math.Float64bits(f) {
			t.Fatalf("%v -> %q -> %v, %v", f, s, got, err)
		}
	})
}

func BenchmarkAppendScore(b *testing.B) {
	buf := make([]byte, 0, 32)
	for i := 0; b.Loop(); i++ {
		buf = AppendScore(buf[:0], float64(i)*1.1)
	}
}
