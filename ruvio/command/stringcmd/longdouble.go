package stringcmd

import (
	"bytes"
	"math/big"
	"strings"
)

// Redis does INCRBYFLOAT in C's long double, which on the x86-64 machines
// it is built for is the x87 80-bit format: a 64-bit mantissa and a 15-bit
// exponent. Doing the arithmetic in float64 would give different answers
// (0.1 + 0.2 is "0.3" in Redis but 0.30000000000000004 in float64), so the
// values are big.Floats rounded to 64 bits, with the format's range.
const (
	ldPrec = 64
	// ldMaxExp and ldMinExp bound big.Float.MantExp's exponent (mantissa
	// in [0.5, 1)): above the largest finite value is infinity, below the
	// smallest subnormal the value has underflowed to zero.
	ldMaxExp = 16384
	ldMinExp = -16444
	// ldMaxChars is Redis's MAX_LONG_DOUBLE_CHARS: longer input is not a
	// float. (Every finite result fits: %.17Lf of LDBL_MAX has 4933 digits.)
	ldMaxChars = 5 * 1024
)

func newLongDouble() *big.Float {
	return new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven)
}

func zeroLongDouble() *big.Float { return newLongDouble() }

// parseLongDouble parses b as Redis's string2ld does with strtold: an
// optionally signed decimal or hexadecimal (0x, p exponent) number, or
// inf/infinity; no spaces, no NaN, nothing that overflows the long double
// range or underflows to zero.
func parseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= ldMaxChars {
		return nil, false
	}
	s := string(b)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return nil, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return newLongDouble().SetInf(s[0] == '-'), true
	}
	base := 10
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		base = 0 // hexadecimal; base 0 also admits '_', which strtold does not
	} else if strings.ContainsAny(body, "pP") {
		return nil, false // a binary exponent belongs to hex only
	}
	if strings.ContainsRune(body, '_') {
		return nil, false
	}
	x, _, err := newLongDouble().Parse(s, base)
	if err != nil || x.IsInf() {
		return nil, false
	}
	if x.Sign() != 0 {
		exp := x.MantExp(nil)
		if exp > ldMaxExp || exp < ldMinExp {
			return nil, false
		}
	}
	return x, true
}

// addLongDouble returns a+b, or false when the sum is infinite or NaN.
func addLongDouble(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		// inf plus anything is inf, or NaN against the other infinity.
		return nil, false
	}
	sum := newLongDouble().Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > ldMaxExp {
		return nil, false
	}
	return sum, true
}

// formatLongDouble renders x as Redis's "human friendly" long double:
// %.17Lf with the trailing zeros (and a bare point) removed, "-0" shown
// as "0".
func formatLongDouble(x *big.Float) []byte {
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
