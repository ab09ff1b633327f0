package sortedset

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ErrInvalidFloat is returned by ParseScore, worded as the Redis reply.
var ErrInvalidFloat = errors.New("ERR value is not a valid float")

// intPathLimit is the magnitude up to which Redis's d2string prints integral
// doubles as plain integers: it tests |d| <= LLONG_MAX/2, a bound that
// becomes exactly 2^62 once converted to double.
const intPathLimit = 1 << 62

// FormatScore renders a score the way Redis 7.2+ replies with one (d2string):
// "inf", "-inf", "0" or "-0"; integral values within ±2^62 as plain integers
// ("1", "100000000"); anything else as the shortest digits that round-trip,
// laid out by fpconv's rules: plain decimals such as "1.1" and
// "0.30000000000000004" for moderate magnitudes, exponent form such as
// "1.5e+20" or "1e-7" otherwise. NaN, which a Set never holds, renders as "nan".
//
// Redis gets its digits from Grisu2, which in rare cases emits a longer (still
// round-tripping) digit string than the true shortest used here.
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
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	case f >= -intPathLimit && f <= intPathLimit && f == math.Trunc(f):
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}

	// Shortest round-trip digits come out as "d[.ddd]e±XX"; split them into
	// the digit string and the decimal exponent of its first digit.
	var sciBuf [32]byte
	sci := strconv.AppendFloat(sciBuf[:0], f, 'e', -1, 64)
	var digitBuf [20]byte
	digits := digitBuf[:0]
	i := 0
	for ; sci[i] != 'e'; i++ {
		if sci[i] != '.' {
			digits = append(digits, sci[i])
		}
	}
	negExp := sci[i+1] == '-'
	exp := 0
	for _, c := range sci[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	absExp := exp
	if negExp {
		exp = -exp
	}

	nd := len(digits)
	k := exp - nd + 1 // f = digits × 10^k
	switch {
	case k >= 0 && absExp < nd+7:
		// Integer with at most seven trailing zeros.
		dst = append(dst, digits...)
		for range k {
			dst = append(dst, '0')
		}
	case k < 0 && (k > -7 || absExp < 4):
		// Plain decimal: few fractional digits, or a magnitude near 1.
		if exp < 0 {
			dst = append(dst, "0."...)
			for range -exp - 1 {
				dst = append(dst, '0')
			}
			dst = append(dst, digits...)
		} else {
			dst = append(dst, digits[:exp+1]...)
			dst = append(dst, '.')
			dst = append(dst, digits[exp+1:]...)
		}
	default:
		// Exponent form, with an unpadded exponent ("1e+8", "1.5e-10").
		dst = append(dst, digits[0])
		if nd > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		if negExp {
			dst = append(dst, "e-"...)
		} else {
			dst = append(dst, "e+"...)
		}
		dst = strconv.AppendInt(dst, int64(absExp), 10)
	}
	return dst
}

// ParseScore parses a score argument as Redis's string2d does: the whole
// string must be a number C strtod accepts — decimal with optional fraction
// and exponent, hexadecimal ("0x1p-2", "0x10"), or "inf"/"infinity" in any
// case, each optionally signed — with no surrounding whitespace. NaN, and
// values too large for a float64 or so small they round to zero, are rejected
// with ErrInvalidFloat.
func ParseScore(s string) (float64, error) {
	f, outOfRange, ok := parseCFloat(s)
	if !ok || outOfRange || f != f {
		return 0, ErrInvalidFloat
	}
	return f, nil
}

// parseCFloat parses s as C strtod would if it had to consume all of s
// (callers deal with leading whitespace). outOfRange reports where strtod
// sets ERANGE with an infinite or zero result: overflow, or a nonzero
// mantissa underflowing to zero.
func parseCFloat(s string) (f float64, outOfRange, ok bool) {
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
