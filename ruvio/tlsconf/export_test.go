package tlsconf

import "time"

// SetClock makes s read the time from now, for tests of the warnings'
// rate limit.
func SetClock(s *Store, now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warn.now = now
}
