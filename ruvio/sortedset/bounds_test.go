package sortedset

import (
	"math"
	"testing"
)

func TestParseScoreBound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ScoreBound
	}{
		{"1.5", ScoreBound{1.5, false}},
		{"(1.5", ScoreBound{1.5, true}},
		{"-inf", ScoreBound{negInf, false}},
		{"+inf", ScoreBound{inf, false}},
		{"inf", ScoreBound{inf, false}},
		{"(inf", ScoreBound{inf, true}},
		{"(-inf", ScoreBound{negInf, true}},
		{"-3", ScoreBound{-3, false}},
		{"0x10", ScoreBound{16, false}},
		// strtod leniencies Redis inherits for bounds:
		{" 1", ScoreBound{1, false}},
		{"( 2", ScoreBound{2, true}},
		{"", ScoreBound{0, false}},
		{"(", ScoreBound{0, true}},
		{"1e400", ScoreBound{inf, false}},
		{"(-1e400", ScoreBound{negInf, true}},
		{"1e-400", ScoreBound{0, false}},
	} {
		got, err := ParseScoreBound(tc.in)
		if err != nil || got.Exclusive != tc.want.Exclusive || math.Float64bits(got.Value) != math.Float64bits(tc.want.Value) {
			t.Errorf("ParseScoreBound(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"abc", "nan", "(nan", "1 ", " ", "[1", "((1", "1_0", "(x", "1.5.", "--inf"} {
		if got, err := ParseScoreBound(in); err != ErrInvalidScoreBound {
			t.Errorf("ParseScoreBound(%q) = %+v, %v; want ErrInvalidScoreBound", in, got, err)
		}
	}
	if ErrInvalidScoreBound.Error() != "ERR min or max is not a float" {
		t.Error("error text")
	}
}

func TestParseLexBound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want LexBound
	}{
		{"-", LexBound{Inf: -1}},
		{"+", LexBound{Inf: 1}},
		{"[a", LexBound{Value: "a"}},
		{"(a", LexBound{Value: "a", Exclusive: true}},
		{"[", LexBound{}},
		{"(", LexBound{Exclusive: true}},
		{"[+", LexBound{Value: "+"}},
		{"(-", LexBound{Value: "-", Exclusive: true}},
		{"[a b\x00", LexBound{Value: "a b\x00"}},
	} {
		got, err := ParseLexBound(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseLexBound(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "a", "--", "++", "-a", "+a", " [a", "{a"} {
		if got, err := ParseLexBound(in); err != ErrInvalidLexBound {
			t.Errorf("ParseLexBound(%q) = %+v, %v; want ErrInvalidLexBound", in, got, err)
		}
	}
	if ErrInvalidLexBound.Error() != "ERR min or max not valid string range item" {
		t.Error("error text")
	}
}
