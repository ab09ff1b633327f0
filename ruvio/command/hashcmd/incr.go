package hashcmd

import (
	"math"
	"math/big"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
)

// Replies HINCRBY and HINCRBYFLOAT give about the field's current value.
const (
	errHashNotInteger = "ERR hash value is not an integer"
	errHashNotFloat   = "ERR hash value is not a float"
	errIncrNotFinite  = "ERR value is NaN or Infinity"
)

func hincrby(c *command.Ctx) {
	// Redis validates the increment before it looks at the key.
	incr, ok := command.ParseInt(c.Args[3])
	if !ok {
		c.W.Error(command.ErrNotInteger)
		return
	}
	key := string(c.Args[1])
	h, ok := lookup(c, key, false)
	if !ok {
		return
	}
	f := string(c.Args[2])
	var cur int64
	if v, exists := h[f]; exists {
		if cur, ok = command.ParseInt(v); !ok {
			c.W.Error(errHashNotInteger)
			return
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) ||
		(incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.W.Error(command.ErrOverflow)
		return
	}
	n := cur + incr
	created := h == nil
	if created {
		h = make(map[string][]byte, 1)
	}
	h[f] = command.FormatInt(n)
	// Deterministic given the state, so the command is logged as sent.
	store(c, key, h, created)
	c.W.Int(n)
}

func hincrbyfloat(c *command.Ctx) {
	incr, ok := parseLongDouble(c.Args[3])
	if !ok {
		c.W.Error(command.ErrNotFloat)
		return
	}
	if incr.IsInf() {
		c.W.Error(errIncrNotFinite)
		return
	}
	key := string(c.Args[1])
	h, ok := lookup(c, key, false)
	if !ok {
		return
	}
	f := string(c.Args[2])
	sum := newLongDouble()
	if v, exists := h[f]; exists {
		cur, ok := parseLongDouble(v)
		if !ok {
			c.W.Error(errHashNotFloat)
			return
		}
		if cur.IsInf() {
			// inf + finite stays infinite.
			c.W.Error(command.ErrNaN)
			return
		}
		sum.Add(cur, incr)
	} else {
		sum.Set(incr)
	}
	if overflowsLongDouble(sum) {
		c.W.Error(command.ErrNaN)
		return
	}
	val := formatLongDouble(sum)
	created := h == nil
	if created {
		h = make(map[string][]byte, 1)
	}
	h[f] = val
	store(c, key, h, created)
	// Replay must not redo float arithmetic (precision and formatting
	// could differ elsewhere): log the result, as Redis does.
	c.Propagate([]byte("HSET"), c.Args[1], c.Args[2], val)
	c.W.Bulk(val)
}

// Redis does HINCRBYFLOAT (and INCRBYFLOAT) in C's long double, which on
// x86-64, the platform whose results clients see, is the 80-bit x87
// format: a 64-bit significand and a 15-bit exponent. A big.Float of
// precision 64 rounds additions exactly like it, so replies such as
// 0.1 + 0.2 = "0.3" match Redis where float64 arithmetic would give
// "0.30000000000000004". Subnormal long doubles (below ~3.4e-4932) keep
// full precision here; nobody stores those in a hash.
const (
	ldPrec = 64
	// ldMaxExp is the big.Float exponent (value = mant × 2^exp, mant in
	// [0.5, 1)) of the largest finite long double.
	ldMaxExp = 16384
	// ldMinExp is the exponent of the smallest positive (subnormal) one.
	ldMinExp = -16444
	// ldMaxChars is Redis's MAX_LONG_DOUBLE_CHARS: longer input is not a
	// number.
	ldMaxChars = 5 * 1024
)

func newLongDouble() *big.Float {
	return new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven)
}

// parseLongDouble reads a float as Redis's string2ld (strtold) does: the
// whole input must be a decimal or hexadecimal float or inf/infinity, with
// no surrounding spaces; NaN, and values that overflow or underflow to
// zero, are refused.
func parseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= ldMaxChars {
		return nil, false
	}
	s := string(b)
	body := s
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return newLongDouble().SetInf(neg), true
	}
	base := 10
	if len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		// strtold reads C99 hex floats; base 0 lets big read them, but it
		// would also accept digit separators, which C does not.
		if strings.IndexByte(body, '_') >= 0 {
			return nil, false
		}
		base = 0
	}
	if len(body) == 0 || !isFloatStart(body[0]) {
		return nil, false
	}
	f, _, err := big.ParseFloat(s, base, ldPrec, big.ToNearestEven)
	if err != nil || f.IsInf() {
		return nil, false
	}
	if overflowsLongDouble(f) {
		return nil, false
	}
	if f.Sign() != 0 && f.MantExp(nil) < ldMinExp {
		return nil, false
	}
	return f, true
}

// isFloatStart rejects what big.ParseFloat takes but strtold does not at
// the start of a number (big accepts a leading "Inf" spelled differently
// and "0b"/"0o" prefixes only with base 0, which decimal input avoids).
func isFloatStart(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.'
}

// overflowsLongDouble reports whether f is beyond the long double range,
// where C would have produced infinity.
func overflowsLongDouble(f *big.Float) bool {
	return f.IsInf() || (f.Sign() != 0 && f.MantExp(nil) > ldMaxExp)
}

// formatLongDouble renders f as Redis's ld2string in LD_STR_HUMAN mode:
// printf("%.17Lf") with trailing zeros (and a trailing point) removed,
// and "-0" written as "0".
func formatLongDouble(f *big.Float) []byte {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return []byte(s)
}
