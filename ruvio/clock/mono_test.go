package clock

import (
	"testing"
	"time"
)

// The skewed monotonic clock runs at the spec's rate, on from where it
// was when the rate changes, and ignores offsets.
func TestSkewedMonoFollowsTheRate(t *testing.T) {
	raw := time.Duration(0)
	s := &Skewed{real: time.Now, boot: func() time.Duration { return raw }, mono: func() time.Duration { return raw }}
	s.Set(Spec{Rate: 1})
	raw = 10 * time.Second
	if got := s.MonoNow(); got != 10*time.Second {
		t.Fatalf("rate 1: %v", got)
	}
	s.Set(Spec{Offset: time.Hour, Rate: 2})
	raw += time.Second
	if got := s.MonoNow(); got != 12*time.Second {
		t.Fatalf("rate 2 after 10 s: %v, want 12s", got)
	}
	s.Set(Spec{Rate: 0.5})
	raw += 2 * time.Second
	if got := s.MonoNow(); got != 13*time.Second {
		t.Fatalf("rate 0.5: %v, want 13s", got)
	}
}

// Without a skew, MonoNow is the process's monotonic clock.
func TestMonoNowIsMonotonic(t *testing.T) {
	a := MonoNow()
	b := MonoNow()
	if b < a {
		t.Fatalf("went back: %v then %v", a, b)
	}
}
