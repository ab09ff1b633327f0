// Package longdouble does the float arithmetic of INCRBYFLOAT and
// HINCRBYFLOAT as Redis does it, in C's long double, which on the x86-64
// machines Redis is built for is the x87 80-bit format: a 64-bit mantissa
// and a 15-bit exponent. float64 arithmetic would give different answers
// (0.1 + 0.2 is "0.3" in Redis but 0.30000000000000004 in float64), so
// values are big.Floats rounded to 64 bits, within the format's range.
// Subnormal long doubles (below ~3.4e-4932) keep full precision here;
// nobody stores those.
package longdouble

import (
	"bytes"
	"math/big"
	"strings"
)

const (
	prec = 64
	// maxExp and minExp bound big.Float.MantExp's exponent (mantissa in
	// [0.5, 1)): above the largest finite value is infinity, below the
	// smallest subnormal the value has underflowed to zero.
	maxExp = 16384
	minExp = -16444
	// maxChars is Redis's MAX_LONG_DOUBLE_CHARS: longer input is not a
	// float. (Every finite result fits: %.17Lf of LDBL_MAX has 4933 digits.)
	maxChars = 5 * 1024
)

// Zero returns a long double 0.
func Zero() *big.Float {
	return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven)
}

// Parse parses b as Redis's string2ld does with strtold: an optionally
// signed decimal or hexadecimal (0x, p exponent) number, or inf/infinity;
// no spaces, no NaN, no digit separators, nothing that overflows the long
// double range or underflows to zero.
func Parse(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= maxChars {
		return nil, false
	}
	s := string(b)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return nil, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return Zero().SetInf(s[0] == '-'), true
	}
	base := 10
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		base = 0 // hexadecimal; base 0 also admits '_', refused below
	} else if strings.ContainsAny(body, "pP") {
		// big reads a binary exponent in base 10 too; strtold only
		// after a hexadecimal mantissa.
		return nil, false
	}
	if strings.ContainsRune(body, '_') {
		return nil, false
	}
	x, _, err := Zero().Parse(s, base)
	if err != nil || x.IsInf() {
		return nil, false
	}
	if x.Sign() != 0 {
		if exp := x.MantExp(nil); exp > maxExp || exp < minExp {
			return nil, false
		}
	}
	return x, true
}

// Add returns a+b, or false when the sum is infinite or NaN, which Redis
// refuses to store.
func Add(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		// inf plus anything is inf, or NaN against the other infinity.
		return nil, false
	}
	sum := Zero().Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > maxExp {
		return nil, false
	}
	return sum, true
}

// Format renders x as Redis's "human friendly" long double (ld2string's
// LD_STR_HUMAN): %.17Lf with the trailing zeros (and a bare point)
// removed, "-0" shown as "0".
func Format(x *big.Float) []byte {
	out := []byte(x.Text('f', 17))
	if bytes.IndexByte(out, '.') >= 0 {
		out = bytes.TrimRight(out, "0")
		out = bytes.TrimSuffix(out, []byte("."))
	}
	if string(out) == "-0" {
		out = out[1:]
	}
	return out
}
