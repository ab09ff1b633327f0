package rules

import (
	"testing"
	"time"
)

func TestLeaseEnded(t *testing.T) {
	s := time.Second
	cases := []struct {
		name           string
		on             bool
		last, now, len time.Duration
		want           bool
	}{
		{"lease off: every grant has ended", false, 10 * s, 10 * s, 3 * s, true},
		{"granted just now", true, 10 * s, 10 * s, 3 * s, false},
		{"granted less than the stretched lease ago", true, 10 * s, 12 * s, 3 * s, false},
		{"granted exactly the stretched lease ago", true, 10 * s, 13 * s, 3 * s, true},
		{"granted long ago", true, 0, 100 * s, 3 * s, true},
	}
	for _, c := range cases {
		if got := LeaseEnded(c.on, c.last, c.now, c.len); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}
