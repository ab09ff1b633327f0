// Package wakeup holds one-shot wake-ups for callers that must not block:
// an event loop registers a function, checks its condition, and is called
// once at the next progress that may change the answer (a log's publish,
// a replica's acknowledgement). The register-then-check order means no
// progress falls between the two unseen.
package wakeup

import (
	"sync"
	"sync/atomic"
)

// Set is the wake-ups registered since the last Fire. Registering the same
// function again before then changes nothing: an event loop registers at
// every turn for each client it parks, and a list of those registrations
// once had a log's writer make hundreds of calls per fsync, each waking
// the loop to register again, and stalled replies for seconds.
type Set struct {
	mu  sync.Mutex
	fns map[*func()]struct{}
	// any says there may be registrations, so Fire costs one atomic load
	// when there are none (a log publishes on every fsync).
	any atomic.Bool
}

// Add registers *fn to be called at the next Fire.
func (s *Set) Add(fn *func()) {
	s.mu.Lock()
	if s.fns == nil {
		s.fns = make(map[*func()]struct{})
	}
	s.fns[fn] = struct{}{}
	s.mu.Unlock()
	s.any.Store(true)
}

// Fire calls, once each, the functions registered since the last Fire and
// forgets them. They run on the caller's goroutine, after the set's lock is
// released, and must return at once.
func (s *Set) Fire() {
	if !s.any.Load() || !s.any.Swap(false) {
		return
	}
	var buf [4]*func()
	fns := buf[:0]
	s.mu.Lock()
	for fn := range s.fns {
		fns = append(fns, fn)
	}
	clear(s.fns)
	s.mu.Unlock()
	for _, fn := range fns {
		(*fn)()
	}
}
