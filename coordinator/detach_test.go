package coordinator

import (
	"testing"
	"time"
)

// The warning that a member refused RUVIO DETACH comes at most once every
// detachWarnEvery.
func TestWarnLimit(t *testing.T) {
	var w warnLimit
	t0 := time.Unix(5000, 0)
	steps := []struct {
		at   time.Duration
		want bool
	}{
		{0, true},
		{time.Second, false},
		{detachWarnEvery - time.Nanosecond, false},
		{detachWarnEvery, true},
		{detachWarnEvery + time.Minute, false},
		{3 * detachWarnEvery, true},
	}
	for _, s := range steps {
		if got := w.allow(t0.Add(s.at)); got != s.want {
			t.Errorf("at %v: %v, want %v", s.at, got, s.want)
		}
	}
}
