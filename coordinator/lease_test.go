package coordinator

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
)

// twoClocks has a boot clock and a monotonic clock that tests move apart,
// as a suspend does (the boot clock counts the suspended time).
type twoClocks struct {
	clock.System
	boot, mono atomic.Int64
}

func (c *twoClocks) LeaseNow() time.Duration { return time.Duration(c.boot.Load()) }
func (c *twoClocks) MonoNow() time.Duration  { return time.Duration(c.mono.Load()) }

// A coordinator measures its grants' ages on the monotonic clock, through
// the clock package: a jump of the boot clock alone does not end a lease,
// and the monotonic clock running on past the stretched lease does.
func TestLeaseAgesAreMeasuredOnTheMonotonicClock(t *testing.T) {
	clocks := &twoClocks{}
	old := clock.Default
	clock.Default = clocks
	t.Cleanup(func() { clock.Default = old })
	cfg := DefaultConfig()
	cfg.PrimaryLeaseMs = 2000
	c := &Coordinator{cfg: cfg, leases: newLeaseBook()}
	c.leases.granted[[2]string{"main", "a:1"}] = clock.MonoNow()
	clocks.boot.Add(int64(time.Hour)) // the boot clock counted a suspend
	if c.leaseEnded("main", "a:1") {
		t.Fatal("a lease ended by the boot clock: coordinators measure on the monotonic one")
	}
	clocks.mono.Add(int64(2645 * time.Millisecond))
	if !c.leaseEnded("main", "a:1") {
		t.Fatal("the stretched lease (2645 ms) passed on the monotonic clock")
	}
}
