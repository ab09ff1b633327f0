package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteUnits are the suffixes Redis's memtoull understands. As in Redis, a
// bare letter is a power of 1000 and the two-letter forms are powers of
// 1024: "1k" is 1000 bytes and "1kb" is 1024.
var byteUnits = map[string]int64{
	"":   1,
	"b":  1,
	"k":  1000,
	"kb": KB,
	"m":  1000 * 1000,
	"mb": MB,
	"g":  1000 * 1000 * 1000,
	"gb": GB,
}

// errBytesTooLarge is ParseBytes's error for a well-formed size beyond
// an int64, which CONFIG SET reports as out of range, as Redis does.
var errBytesTooLarge = errors.New("too large")

// ParseBytes reads a byte size the way redis.conf does: a non-negative
// integer, optionally followed by a unit b, k, kb, m, mb, g or gb in any
// case ("100mb", "1GB", "512kb", "10m", "0"). No spaces, signs or fractions
// are accepted, and the result must fit in an int64.
func ParseBytes(s string) (int64, error) {
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	mul, ok := byteUnits[strings.ToLower(s[digits:])]
	if digits == 0 || !ok {
		return 0, fmt.Errorf("invalid byte size %q: want an integer optionally followed by b, k, kb, m, mb, g or gb", s)
	}
	n, err := strconv.ParseInt(s[:digits], 10, 64)
	if err != nil || n > math.MaxInt64/mul {
		return 0, fmt.Errorf("invalid byte size %q: %w", s, errBytesTooLarge)
	}
	return n * mul, nil
}
