package longdouble

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "-1.5": "-1.5", "+.5": "0.5", "5.0e3": "5000", "0x10": "16",
		"0x1p3": "8", "1e4932": "1e+4932", "-0.0": "-0",
	} {
		x, ok := Parse([]byte(in))
		if !ok || x.Text('g', 10) != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, x, ok, want)
		}
	}
	for _, in := range []string{"", "x", " 1", "1 ", "+-1", "nan", "1e5000", "1e-5000",
		"1p3", "1P3", "1_0", "0x1_0", "0x", "1\x002"} {
		if x, ok := Parse([]byte(in)); ok {
			t.Errorf("Parse(%q) = %v, want a refusal", in, x)
		}
	}
	if x, ok := Parse([]byte("-Infinity")); !ok || !x.IsInf() || x.Sign() > 0 {
		t.Errorf("Parse(-Infinity) = %v, %v", x, ok)
	}
}

func TestAddFormat(t *testing.T) {
	add := func(a, b string) (string, bool) {
		x, _ := Parse([]byte(a))
		y, _ := Parse([]byte(b))
		sum, ok := Add(x, y)
		if !ok {
			return "", false
		}
		return string(Format(sum)), true
	}
	for _, c := range [][3]string{
		{"0.1", "0.2", "0.3"}, {"10.5", "0.1", "10.6"}, {"5200", "-5200", "0"},
		{"0", "-0.0", "0"}, {"1.23e-10", "-1e-20", "0.000000000123"},
		{"17179869184", "1.5", "17179869185.5"},
	} {
		if got, ok := add(c[0], c[1]); !ok || got != c[2] {
			t.Errorf("%s + %s = %q, %v; want %s", c[0], c[1], got, ok, c[2])
		}
	}
	for _, c := range [][2]string{{"inf", "1"}, {"1", "-inf"}, {"1e4932", "1e4932"}} {
		if got, ok := add(c[0], c[1]); ok {
			t.Errorf("%s + %s = %q, want a refusal", c[0], c[1], got)
		}
	}
}
