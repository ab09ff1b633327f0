package rules

import (
	"testing"
	"time"
)

func TestStalled(t *testing.T) {
	downAfter := time.Second
	for _, tc := range []struct {
		name string
		gap  time.Duration
		want bool
	}{
		{"on time", StallTick, false},
		{"late by a scheduling hiccup", StallTick + 100*time.Millisecond, false},
		{"late by exactly half of down_after", StallTick + downAfter/2, false},
		{"late by more than half of down_after", StallTick + downAfter/2 + time.Millisecond, true},
		{"frozen for seconds", 5 * time.Second, true},
	} {
		if got := Stalled(tc.gap, downAfter); got != tc.want {
			t.Errorf("%s: Stalled after %v = %v, want %v", tc.name, tc.gap, got, tc.want)
		}
	}
}

func TestCountFrom(t *testing.T) {
	start := time.Unix(1000, 0)
	downAfter := time.Second
	at := func(d time.Duration) time.Time { return start.Add(d) }
	for _, tc := range []struct {
		name                 string
		awake, lastTick, now time.Time
		want                 time.Time
	}{
		{"never stalled", time.Time{}, at(10 * time.Second), at(10*time.Second + 10*time.Millisecond), start},
		{"stalled before it started", at(-time.Second), at(10 * time.Second), at(10 * time.Second), start},
		{"after a stall", at(8 * time.Second), at(10 * time.Second), at(10 * time.Second), at(8 * time.Second)},
		{"stalled now, not yet noted", at(8 * time.Second), at(10 * time.Second), at(12 * time.Second), at(12 * time.Second)},
	} {
		if got := CountFrom(start, tc.awake, tc.lastTick, tc.now, downAfter); !got.Equal(tc.want) {
			t.Errorf("%s: CountFrom = %v, want %v", tc.name, got.Sub(start), tc.want.Sub(start))
		}
	}
}

// A member answering every ping interval is never silent to a
// coordinator that stalls, however long the stall: after it the count
// restarts, and the next ping lands within down_after.
func TestAStallAloneNeverSilencesAMember(t *testing.T) {
	start := time.Unix(1000, 0)
	downAfter, ping := time.Second, 100*time.Millisecond
	for _, stall := range []time.Duration{600 * time.Millisecond, time.Second, 3 * time.Second, time.Minute} {
		heard := start.Add(5 * time.Second) // the last answer before the stall
		lastTick := heard
		resumed := lastTick.Add(stall)
		// Right after the stall, before the watch has run: the count
		// starts now.
		if Silent(heard, CountFrom(start, time.Time{}, lastTick, resumed, downAfter), resumed, downAfter) {
			t.Errorf("stall %v: silent before the watch ran", stall)
		}
		// The watch notes the stall; the member answers within a ping.
		for now := resumed; now.Before(resumed.Add(ping)); now = now.Add(10 * time.Millisecond) {
			if Silent(heard, CountFrom(start, resumed, now, now, downAfter), now, downAfter) {
				t.Errorf("stall %v: silent %v after it", stall, now.Sub(resumed))
			}
		}
	}
}
