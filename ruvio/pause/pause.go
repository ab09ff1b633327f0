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
