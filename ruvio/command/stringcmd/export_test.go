package stringcmd

// SetMaxStringLen lowers the string size limit for a test and returns the
// function that restores it.
func SetMaxStringLen(n int64) (restore func()) {
	old := maxStringLen
	maxStringLen = n
	return func() { maxStringLen = old }
}
