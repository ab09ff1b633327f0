// Package clock is the one place data nodes and coordinators read time:
// wall time for expiry and timeouts, and the lease clock for primary
// leases. The chaos harness skews it through a FAKETIME-style spec (see
// fake.go), because Go programs ignore libfaketime.
package clock

import "time"

// Clock reads wall time and a monotonic reading.
type Clock interface {
	// Now is wall-clock time (key expiry, LASTSAVE, TIME).
	Now() time.Time
	// Since is the monotonic time elapsed since t was read from Now.
	Since(t time.Time) time.Duration
}

// System is the machine's clock.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (System) Since(t time.Time) time.Duration { return time.Since(t) }

// Default is the clock the node uses unless a test or the chaos harness
// installs another before start.
var Default Clock = System{}

// NowMs is the default clock's wall time in Unix milliseconds.
func NowMs() int64 { return Default.Now().UnixMilli() }

var processStart = time.Now()

// Leaser is a clock that also gives the lease clock: a monotonic reading
// that the chaos clock nemesis can speed up or slow down.
type Leaser interface {
	LeaseNow() time.Duration
}

// LeaseNow reads the lease clock of Default: CLOCK_BOOTTIME on Linux,
// scaled by the rate of a skew spec when one is installed. Offsets (jumps)
// do not move it: a monotonic clock does not jump.
func LeaseNow() time.Duration {
	if l, ok := Default.(Leaser); ok {
		return l.LeaseNow()
	}
	return bootTime()
}
