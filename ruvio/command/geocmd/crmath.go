package geocmd

import "math"

// Distances must come out as redis-server's do, to the last bit when
// GEOSEARCHSTORE ... STOREDIST stores them. Redis calls the C library's
// sin, cos and asin, which on glibc are almost always correctly rounded,
// while Go's math package is only within an ulp or so. These versions
// compute in double-double (about 106 bits) and round once, so they give
// the correctly rounded result: glibc's in all but very rare cases.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func (x dd) add(y dd) dd {
	s := twoSum(x.hi, y.hi)
	t := twoSum(x.lo, y.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

func (x dd) mul(y dd) dd {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p)
	e += x.hi*y.lo + x.lo*y.hi
	return quickTwoSum(p, e)
}

// div returns x / y.
func (x dd) div(y dd) dd {
	q1 := x.hi / y.hi
	r := x.add(y.mul(dd{q1, 0}).neg())
	q2 := r.hi / y.hi
	r = r.add(y.mul(dd{q2, 0}).neg())
	q3 := r.hi / y.hi
	q := quickTwoSum(q1, q2)
	return q.add(dd{q3, 0})
}

// divSmall returns x / f for a small exact integer f.
func (x dd) divSmall(f float64) dd { return x.div(dd{f, 0}) }

// sinCosDD returns sin(x) and cos(x) in double-double for |x| <= 8 by
// their Taylor series.
func sinCosDD(x dd) (dd, dd) {
	x2 := x.mul(x)
	sin, term := x, x
	for n := 1.0; n < 120; n++ {
		term = term.mul(x2).divSmall((2 * n) * (2*n + 1)).neg()
		sin = sin.add(term)
		if math.Abs(term.hi) < 1e-36*math.Abs(sin.hi) {
			break
		}
	}
	cos, term := dd{1, 0}, dd{1, 0}
	for n := 1.0; n < 120; n++ {
		term = term.mul(x2).divSmall((2*n - 1) * (2 * n)).neg()
		cos = cos.add(term)
		if math.Abs(term.hi) < 1e-36*math.Abs(cos.hi) {
			break
		}
	}
	return sin, cos
}

// crSin is sin(x) correctly rounded, for the arguments a distance needs.
func crSin(x float64) float64 {
	if x == 0 || math.Abs(x) > 8 || math.IsNaN(x) {
		return math.Sin(x)
	}
	s, _ := sinCosDD(dd{x, 0})
	return s.hi
}

// crCos is cos(x) correctly rounded, for the arguments a distance needs.
func crCos(x float64) float64 {
	if math.Abs(x) > 8 || math.IsNaN(x) {
		return math.Cos(x)
	}
	_, c := sinCosDD(dd{x, 0})
	return c.hi
}

// crAsin is asin(y) correctly rounded for 0 <= y <= 1: Go's estimate
// refined by Newton's method on sin in double-double.
func crAsin(y float64) float64 {
	if y <= 0 || y > 1 || math.IsNaN(y) {
		return math.Asin(y)
	}
	t := dd{math.Asin(y), 0}
	for range 2 {
		s, c := sinCosDD(t)
		if c.hi == 0 {
			break
		}
		t = t.add(s.add(dd{-y, 0}).div(c).neg())
	}
	return t.hi
}
