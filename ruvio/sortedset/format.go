package sortedset

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ErrInvalidFloat is returned by ParseScore, worded as the Redis reply.
var ErrInvalidFloat = errors.New("ERR value is not a valid float")

// FormatScore renders a score the way Redis 7.0 replies with one
// (addReplyDouble, and d2string for ZSCAN): "inf" and "-inf", and
// otherwise C's "%.17g": "0", "-0", "1", "1.5", "0.10000000000000001",
// "1e+17", "9.9999999999999995e-07". Clients parse these back to the
// same double. (Redis 7.2 changed to the shortest digits that round-trip,
// "0.1"; ruvio answers as the 7.0 whose version it reports.) NaN, which
// a Set never holds, renders as "nan".
func FormatScore(f float64) string {
	var buf [32]byte
	return string(AppendScore(buf[:0], f))
}

// AppendScore appends FormatScore(f) to dst, for reply writers that want to
// avoid the intermediate string.
func AppendScore(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	// Go's 'g' with 17 digits lays out as C's %.17g: exponent form below
	// 1e-4 or from 1e17, trailing zeros dropped, two exponent digits at
	// least.
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// ParseScore parses a score argument as Redis's string2d does: the whole
// string must be a number C strtod accepts — decimal with optional fraction
// and exponent, hexadecimal ("0x1p-2", "0x10"), or "inf"/"infinity" in any
// case, each optionally signed — with no surrounding whitespace. NaN, and
// values too large for a float64 or so small they round to zero, are rejected
// with ErrInvalidFloat.
func ParseScore(s string) (float64, error) {
	f, outOfRange, ok := ParseCFloat(s)
	if !ok || outOfRange || f != f {
		return 0, ErrInvalidFloat
	}
	return f, nil
}

// ParseCFloat parses s as C strtod would if it had to consume all of s
// (callers deal with leading whitespace): decimal or hexadecimal (its
// binary exponent optional), "inf", "infinity" and "nan" in any case.
// outOfRange reports where strtod sets ERANGE with an infinite or zero
// result: overflow, or a nonzero mantissa underflowing to zero.
func ParseCFloat(s string) (f float64, outOfRange, ok bool) {
	// strconv allows Go's digit separators; strtod does not.
	if s == "" || strings.IndexByte(s, '_') >= 0 {
		return 0, false, false
	}
	hex := isHexFloat(s)
	if hex && !strings.ContainsAny(s, "pP") {
		// strtod makes the binary exponent optional; strconv requires it.
		s += "p0"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return f, true, true
		}
		return 0, false, false
	}
	if f == 0 && !zeroMantissa(s, hex) {
		// strconv rounds underflow to zero silently.
		return f, true, true
	}
	return f, false, true
}

// isHexFloat reports whether s, after an optional sign, starts with 0x or 0X.
func isHexFloat(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

// zeroMantissa reports whether the numeric literal s has only zero digits
// before its exponent.
func zeroMantissa(s string, hex bool) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if hex {
		s = s[2:]
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '0' || c == '.':
		case hex && (c == 'p' || c == 'P'), !hex && (c == 'e' || c == 'E'):
			return true
		default:
			return false
		}
	}
	return true
}

// trimCSpace drops the leading characters C isspace accepts, which strtod
// skips.
func trimCSpace(s string) string {
	return strings.TrimLeft(s, " \t\n\v\f\r")
}
