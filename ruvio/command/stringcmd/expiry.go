package stringcmd

import (
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
)

// expiryArg is an EX/PX/EXAT/PXAT option as given. Redis checks the amount
// only after the whole option list parsed, so a syntax error later in the
// list wins over a bad number.
type expiryArg struct {
	unit, amount []byte // unit nil: no expiry option
}

// isExpiryUnit reports whether a names one of the four expiry options.
func isExpiryUnit(a []byte) bool {
	return command.Eq(a, "ex") || command.Eq(a, "px") || command.Eq(a, "exat") || command.Eq(a, "pxat")
}

// accepts reports whether option a may follow the options seen so far:
// Redis lets the same unit repeat (the last amount wins) but not mix.
func (x expiryArg) accepts(a []byte) bool {
	return isExpiryUnit(a) && (x.unit == nil || command.Eq(a, string(x.unit)))
}

// resolve turns the option into an absolute Unix ms time, or returns the
// error reply cmd gives for it.
func (x expiryArg) resolve(now int64, cmd string) (int64, string) {
	n, ok := command.ParseInt(x.amount)
	if !ok {
		return 0, command.ErrNotInteger
	}
	at, ok := absoluteExpiry(now, x.unit, n)
	if !ok {
		return 0, command.ErrInvalidExpireIn(cmd)
	}
	return at, ""
}

// absoluteExpiry converts an EX/PX/EXAT/PXAT amount to Unix ms. It fails,
// as Redis's "invalid expire time", on a non-positive amount or when the
// conversion to milliseconds or the addition of now would overflow.
func absoluteExpiry(now int64, unit []byte, n int64) (int64, bool) {
	if n <= 0 {
		return 0, false
	}
	if command.Eq(unit, "ex") || command.Eq(unit, "exat") {
		if n > math.MaxInt64/1000 {
			return 0, false
		}
		n *= 1000
	}
	if command.Eq(unit, "ex") || command.Eq(unit, "px") {
		if n > math.MaxInt64-now {
			return 0, false
		}
		n += now
	}
	return n, true
}
