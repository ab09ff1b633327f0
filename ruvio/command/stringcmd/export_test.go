package stringcmd

// SetMaxStringLen lowers the string size limit for a test and returns the
// function that restores it.
func SetMaxStringLen(n int64) (restore func()) {
	old := maxStringLen
	maxStringLen = n
	return func() { maxStringLen = old }
}

// CountUp is countUp, for its tests.
func CountUp(dst, val []byte) ([]byte, bool) { return countUp(dst, val) }
