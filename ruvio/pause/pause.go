// Package pause is CLIENT PAUSE's state: until when clients wait, and
// whether all of their commands wait or only those that may write.
package pause

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pause is safe for use by several goroutines. The zero value is not
// paused.
type Pause struct {
	mu      sync.Mutex
	until   time.Time
	all     bool
	changed chan struct{} // closed and replaced when the pause changes
	// set is false while no pause can be in force, so that every
	// command's check costs one atomic load, not a lock and a clock read.
	// It is written under mu: set by Start, cleared by End and by the
	// first check that finds the pause over.
	set atomic.Bool
	// inflight counts the writes in flight (Enter), by lane, a cache line
	// away from set, which every command reads.
	_        [64]byte
	inflight [lanes]lane
}

// Start pauses clients until now+d: all commands when all is set, else
// only those that may write. As in Redis, a pause already running is only
// extended and made stricter, never shortened or relaxed.
func (p *Pause) Start(d time.Duration, all bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !now.Before(p.until) {
		p.all = false
	}
	if end := now.Add(d); end.After(p.until) {
		p.until = end
	}
	p.all = p.all || all
	p.set.Store(true)
	p.wakeLocked()
}

// End lifts the pause (CLIENT UNPAUSE).
func (p *Pause) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until = time.Time{}
	p.all = false
	p.set.Store(false)
	p.wakeLocked()
}

func (p *Pause) wakeLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// Active reports whether a pause runs, and whether it holds all commands.
func (p *Pause) Active() (active, all bool) {
	if !p.set.Load() {
		return false, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Now().Before(p.until) {
		return true, p.all
	}
	p.set.Store(false)
	return false, false
}

// Holds reports whether a command (write: one that may write) must wait.
func (p *Pause) Holds(write bool) bool {
	active, all := p.Active()
	return active && (all || write)
}

// Wait returns true once a command (write: one that may write) may run,
// or false early when either cancel channel is closed (nil ones never are).
func (p *Pause) Wait(write bool, cancel, cancel2 <-chan struct{}) bool {
	if !p.set.Load() {
		return true
	}
	for {
		p.mu.Lock()
		now := time.Now()
		if !now.Before(p.until) || !(p.all || write) {
			p.mu.Unlock()
			return true
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		ch, left := p.changed, p.until.Sub(now)
		p.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		case <-cancel:
			t.Stop()
			return false
		case <-cancel2:
			t.Stop()
			return false
		}
		t.Stop()
	}
}

// Writes in flight. A write that found no pause may still be on its way
// to the shard lock when a pause begins, and would land after CLIENT PAUSE
// answered. So a write enters (Enter) before it looks at the pause, and
// leaves (Leave) once it ran; InFlight counts those that entered and did
// not leave. Entering first and looking second, against a pause that is
// set first and counts second, means that once a pause is set and
// InFlight reads 0, every later write sees the pause and waits: a caller
// that wants the log to stand still (a switchover) waits for that.

// lanes spreads the counter over cache lines, one per connection home
// shard, so event loops on different cores do not share one.
const lanes = 16

type lane struct {
	n atomic.Int64
	_ [56]byte
}

// Enter counts a write in flight on lane i (any int) and reports whether
// a pause holds it; when it does, the write is not counted (nothing to
// Leave) and must wait.
func (p *Pause) Enter(i int) (held bool) {
	l := &p.inflight[i%lanes]
	l.n.Add(1)
	if p.Holds(true) {
		l.n.Add(-1)
		return true
	}
	return false
}

// Leave ends a write Enter counted on lane i.
func (p *Pause) Leave(i int) { p.inflight[i%lanes].n.Add(-1) }

// InFlight is the number of writes that entered and did not leave.
func (p *Pause) InFlight() int64 {
	var n int64
	for i := range p.inflight {
		n += p.inflight[i].n.Load()
	}
	return n
}
