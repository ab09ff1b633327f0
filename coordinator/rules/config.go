package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/lease"
)

// MaxLeaseCoordinators is how many coordinators can grant a primary
// lease: a data node counts grants against at most that many voters.
const MaxLeaseCoordinators = lease.MaxVoters

// LeaseProblems lists why the lease settings (milliseconds, as in
// coordinator.toml) are not allowed with this ping interval,
// down_after_ms and number of coordinators; nil when they are, and always
// nil with the lease off. The drift itself is checked by the caller.
//
// The fit rule reads as the operator documentation says: the stretched
// lease, which already carries its own 200 ms (2645 ms for 2000 ms at
// 10 %), plus another 200 ms must fit in down_after_ms, so a primary's
// lease has ended everywhere before a failover is due.
func LeaseProblems(leaseMs, pingMs, downAfterMs, drift, coordinators int) []string {
	if leaseMs <= 0 {
		return nil
	}
	var ps []string
	add := func(format string, a ...any) { ps = append(ps, fmt.Sprintf(format, a...)) }
	if leaseMs < 3*pingMs {
		add("primary_lease_ms = %d: must be at least three times ping_interval_ms (%d)", leaseMs, 3*pingMs)
	}
	if leaseMs < pingMs+500 {
		add("primary_lease_ms = %d: must be at least ping_interval_ms + 500 (%d)", leaseMs, pingMs+500)
	}
	if leaseMs > 60000 {
		add("primary_lease_ms = %d: must be at most 60000", leaseMs)
	}
	if drift >= 0 && drift < 100 && leaseMs <= 60000 {
		s := StretchedLease(leaseMs, drift)
		if need := s + 200*time.Millisecond; need > time.Duration(downAfterMs)*time.Millisecond {
			add("primary_lease_ms = %d: the stretched lease plus 200 ms must fit in down_after_ms (%d ms + 200 ms = %d ms > %d)",
				leaseMs, s.Milliseconds(), need.Milliseconds(), downAfterMs)
		}
	}
	if coordinators > MaxLeaseCoordinators {
		add("peers: at most %d coordinators can grant a lease (%d listed)", MaxLeaseCoordinators, coordinators)
	}
	return ps
}

// StretchedLease is how long a coordinator waits on its own clock before
// it reports a grant ended: the lease stretched for the worst pair of
// clocks within drift percent, plus 200 ms (2645 ms for 2000 ms at 10 %).
func StretchedLease(leaseMs, drift int) time.Duration {
	return lease.Stretched(time.Duration(leaseMs)*time.Millisecond, drift)
}

// PeersDiffer compares the coordinator ids peers lists with the recorded
// ones, as sets; it also returns both, sorted by number, for the warning.
func PeersDiffer(recorded, peers []int) (differ bool, rec, listed string) {
	r, p := slices.Clone(recorded), slices.Clone(peers)
	slices.Sort(r)
	slices.Sort(p)
	r, p = slices.Compact(r), slices.Compact(p)
	return !slices.Equal(r, p), joinInts(r), joinInts(p)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// JoinRefusal is why COORDINATOR ADD id addr is refused, given the
// target's COORDINATOR STATUS fields; nil when it is coordinator id and
// runs with join = true.
func JoinRefusal(status map[string]string, id int, addr string) error {
	if got := status["id"]; got != strconv.Itoa(id) {
		return fmt.Errorf("the coordinator at %s is coordinator %s, not %d", addr, got, id)
	}
	if status["join"] != "1" {
		return fmt.Errorf("coordinator %d at %s is not running with join = true: refused (a coordinator started without it has a membership of its own)", id, addr)
	}
	return nil
}
