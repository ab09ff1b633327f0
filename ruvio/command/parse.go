package command

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command/longdouble"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// ParseInt parses a decimal 64-bit integer strictly, as Redis's string2ll:
// no spaces, no '+', no leading zeros, no -0 (resp.ParseInt).
func ParseInt(b []byte) (int64, bool) { return resp.ParseInt(b) }

// ParseFloat parses a float as Redis's string2ld: decimal or exponent
// forms and inf/-inf; no NaN, no spaces.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 5000 {
		return 0, false
	}
	s := string(b)
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return 0, false
	}
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || strings.ContainsAny(s, "xXpP_") {
		return 0, false
	}
	return f, true
}

// AddInt returns a+b, or false when the sum overflows an int64, which
// Redis refuses ("increment or decrement would overflow").
func AddInt(a, b int64) (int64, bool) {
	if (b < 0 && a < 0 && b < math.MinInt64-a) || (b > 0 && a > 0 && b > math.MaxInt64-a) {
		return 0, false
	}
	return a + b, true
}

// IntArg parses an integer argument as ParseInt does, writing Redis's
// not-an-integer error when it is not one.
func (c *Ctx) IntArg(b []byte) (int64, bool) {
	n, ok := ParseInt(b)
	if !ok {
		c.W.Error(ErrNotInteger)
	}
	return n, ok
}

// IntArgs parses two integer arguments, such as a range's start and stop,
// writing Redis's not-an-integer error when either is not one.
func (c *Ctx) IntArgs(a, b []byte) (int64, int64, bool) {
	x, ok1 := ParseInt(a)
	y, ok2 := ParseInt(b)
	if !ok1 || !ok2 {
		c.W.Error(ErrNotInteger)
		return 0, 0, false
	}
	return x, y, true
}

// ParseFlags reads the leading arguments of args that name one of words
// (any case), setting the flag at the same position, and returns the
// index of the first argument that names none (len(args) when all do). A
// word may repeat.
func ParseFlags(args [][]byte, words []string, flags ...*bool) int {
next:
	for i, a := range args {
		for j, w := range words {
			if Eq(a, w) {
				*flags[j] = true
				continue next
			}
		}
		return i
	}
	return len(args)
}

// FormatInt renders n in decimal.
func FormatInt(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

// Eq reports whether arg equals the ASCII word w, ignoring case.
func Eq(arg []byte, w string) bool {
	if len(arg) != len(w) {
		return false
	}
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		d := w[i]
		if d >= 'A' && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// ParseTimeout parses a blocking command's timeout in (fractional)
// seconds into milliseconds, 0 meaning forever, as redis-server 7.0
// does: read as a long double (strtold: hex and inf included), times
// 1000, rounded up (a positive timeout under a millisecond waits one; a
// negative one under a millisecond is 0, forever), and converted to an
// integer as x86 converts one, where a value out of range becomes the
// most negative: a timeout beyond about 292 million years, or infinite,
// is "negative".
func ParseTimeout(b []byte) (int64, string) {
	x, ok := longdouble.Parse(b)
	if !ok {
		return 0, ErrTimeoutNotFloat
	}
	// Int64 truncates toward zero, and answers an end of its range for
	// a value beyond it (infinity included).
	n, acc := new(big.Float).SetPrec(64).Mul(x, big.NewFloat(1000)).Int64()
	if acc != big.Exact && (n == math.MaxInt64 || n == math.MinInt64) {
		// Out of range: x86's conversion answers the most negative.
		return 0, ErrTimeoutNegative
	}
	if acc == big.Below {
		n++ // a positive fraction, rounded up
	}
	if n < 0 {
		return 0, ErrTimeoutNegative
	}
	return n, ""
}

// Key converts a key argument to the map key form. The conversion copies,
// so the keyspace never aliases a request buffer.
func Key(b []byte) string { return string(b) }

// OwnEach calls fn with a copy of each of args, all of them in one
// allocation of exactly their bytes, for the elements a command stores
// together. A request's arguments share one buffer the reader sized for
// the whole command, with room to spare, so a stored argument would keep
// every other argument and that room alive as long as the key lives (a
// 16-byte value pinned 112 bytes); a value stored alone is copied with
// bytes.Clone for the same reason, as Redis trims a stored string's spare
// room. Many elements stored together cost one allocation.
func OwnEach(args [][]byte, fn func(b []byte)) {
	total := 0
	for _, a := range args {
		total += len(a)
	}
	buf := make([]byte, total)
	for _, a := range args {
		n := copy(buf, a)
		fn(buf[:n:n])
		buf = buf[n:]
	}
}
