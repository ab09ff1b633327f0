package coordinator

import (
	"testing"
	"time"
)

// A member unheard for longer than down_after_ms is silent, unless the
// coordinator itself was stalled meanwhile: while its stall watch has
// not run for that long, and after the watch noted the stall, the count
// starts again.
func TestACoordinatorsStallIsNotItsMembersSilence(t *testing.T) {
	const addr = "127.0.0.1:1"
	c := &Coordinator{cfg: &Config{PingIntervalMs: 100, DownAfterMs: 1000}, log: quiet(),
		start: time.Now().Add(-time.Minute), probers: map[string]*prober{}}
	p := newProber(c, Member{Address: addr})
	c.probers[addr] = p
	p.heard.Store(time.Now().Add(-2 * time.Second).UnixNano())
	sinceStart := func() int64 { return int64(time.Since(c.start)) }

	c.lastTick.Store(sinceStart())
	if !c.silent(addr) {
		t.Fatal("unheard for 2 s by a coordinator that was not stalled: want silent")
	}
	c.lastTick.Store(sinceStart() - int64(2*time.Second))
	if c.silent(addr) {
		t.Error("silent while the coordinator's own watch has not run for 2 s")
	}
	now := sinceStart()
	c.lastTick.Store(now)
	c.awake.Store(now)
	if c.silent(addr) {
		t.Error("silent right after a stall the watch noted")
	}
	c.awake.Store(now - int64(1500*time.Millisecond))
	if !c.silent(addr) {
		t.Error("a stall 1.5 s ago still hides a member unheard for 2 s")
	}
}
