package rules

import "time"

// Leadership confirmations. hashicorp/raft keeps a leader that lost its
// majority believing it leads for a while, so the coordinator confirms
// with a heartbeat to a majority before it acts, and trusts a
// confirmation only for a window that ends before another coordinator
// could have been elected.

// MaxConfirmWindow caps the window whatever the ping interval.
const MaxConfirmWindow = time.Second

// ConfirmWindow is how long a confirmation taken at the start of a
// heartbeat round is trusted: one ping interval, at most a second, and
// always shorter than the earliest a follower of the confirming majority
// can take part in electing someone else. Such a follower heard the
// leader at or after the round started and neither votes for another
// candidate nor stands itself before its heartbeat timeout (at least
// heartbeat, and election for a candidate) has run on its own clock. With
// every clock within drift percent of real time, the leader's window,
// measured on a clock that may run slow, must end before a follower clock
// that may run fast reaches that timeout: window * (100+d) < timeout *
// (100-d), strictly.
func ConfirmWindow(ping, heartbeat, election time.Duration, driftPercent int) time.Duration {
	d := int64(min(max(driftPercent, 0), 99))
	timeout := min(heartbeat, election)
	bound := time.Duration((int64(timeout)*(100-d) - 1) / (100 + d))
	return max(min(ping, MaxConfirmWindow, bound), 0)
}

// Confirmation is a heartbeat round a majority answered: when it started
// (a monotonic reading) and in which Raft term.
type Confirmation struct {
	At   time.Time
	Term uint64
}

// Trusted reports whether c still lets the coordinator act at now: only
// while the local Raft state is leader, in the same term, and within the
// window from the round's start. A cached confirmation is dropped the
// moment the state is no longer leader.
func Trusted(c Confirmation, now time.Time, window time.Duration, leader bool, term uint64) bool {
	if !leader || c.At.IsZero() || c.Term != term {
		return false
	}
	age := now.Sub(c.At)
	return age >= 0 && age < window
}
