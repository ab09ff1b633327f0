package rules

import "time"

// LeaseEnded reports whether a coordinator's last lease grant to a
// primary, made at lastGrant on its monotonic lease clock, has aged past
// the stretched lease at now. With the lease off every grant has ended.
// A coordinator that never granted passes its own start as lastGrant: a
// lease it may have granted before a restart is counted from there.
func LeaseEnded(on bool, lastGrant, now, stretched time.Duration) bool {
	return !on || now-lastGrant >= stretched
}
