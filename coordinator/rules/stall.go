package rules

import "time"

// A coordinator that is itself frozen or starved of the CPU hears no
// member while it is: a whole machine paused for a second, for one,
// leaves every coordinator finding every member silent the moment it
// runs again, before any ping has had a chance to be answered. That
// silence is the coordinator's own deafness, not evidence against the
// members. Sentinel answers the same danger with its TILT mode, acting
// on nothing for 30 seconds; a coordinator instead counts a member's
// silence again from the end of its own stall, so a primary that really
// died during it is still failed over, down_after_ms later.

// StallTick is how often a coordinator's watch looks at its own clock.
const StallTick = 50 * time.Millisecond

// Stalled reports whether a coordinator whose watch runs again gap
// after its last run (StallTick when all is well) was stalled in between
// for long enough to matter: more than half of downAfter. A
// shorter stall leaves a member that answers every ping interval heard
// within downAfter, unless the interval itself takes up most of it.
func Stalled(gap, downAfter time.Duration) bool {
	return gap > StallTick+downAfter/2
}

// CountFrom is the moment from which a coordinator counts a member's
// silence, at now: its own start, or the end of its last stall (awake,
// zero for none), whichever is later; and now itself while its watch has
// not run since lastTick for so long that it is stalled at this moment
// and has not yet noted it.
func CountFrom(start, awake, lastTick, now time.Time, downAfter time.Duration) time.Time {
	if Stalled(now.Sub(lastTick), downAfter) {
		return now
	}
	if awake.After(start) {
		return awake
	}
	return start
}
