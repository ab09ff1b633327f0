// Package poll waits for conditions in tests: Until a condition holds, or
// that it Stays true for a while. Tests use it instead of sleeping a fixed
// time, so they are as fast as the system under test and fail with the
// condition's name when it never comes.
package poll

import (
	"testing"
	"time"
)

// Interval is the pause between two checks of a condition.
const Interval = 10 * time.Millisecond

// Until checks cond every Interval until it holds, and fails the test
// naming what it waited for if it still does not hold after d.
func Until(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !wait(d, cond) {
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// UntilNil calls f every Interval until it returns nil, and fails the test
// with the last error if it has not after d.
func UntilNil(t testing.TB, d time.Duration, what string, f func() error) {
	t.Helper()
	var last error
	if !wait(d, func() bool { last = f(); return last == nil }) {
		t.Fatalf("timed out after %v waiting for %s: %v", d, what, last)
	}
}

// Stays checks cond every Interval for d and fails the test the first time
// it does not hold: the way to say "this never happens within d".
func Stays(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for {
		if !cond() {
			t.Fatalf("%s stopped holding after %v (it had to hold for %v)", what, time.Since(start).Round(time.Millisecond), d)
			return
		}
		if time.Since(start) >= d {
			return
		}
		time.Sleep(Interval)
	}
}

// wait reports whether cond held within d, checking every Interval.
func wait(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(Interval)
	}
	return true
}
