package rules

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// For every allowed ping interval, Raft timeout and drift, and any clock
// rates within the drift: the window is positive, at most one ping
// interval and a second, and ends in real time before a follower that
// heard the round's heartbeat could time out and help elect another
// leader.
func TestConfirmWindowEndsBeforeAnotherLeaderCanBeElected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ping := time.Duration(rapid.IntRange(10, 120000).Draw(t, "ping_ms")) * time.Millisecond
		hb := time.Duration(rapid.IntRange(50, 5000).Draw(t, "heartbeat_ms")) * time.Millisecond
		el := time.Duration(rapid.IntRange(50, 5000).Draw(t, "election_ms")) * time.Millisecond
		d := rapid.IntRange(0, 99).Draw(t, "drift")
		w := ConfirmWindow(ping, hb, el, d)
		if w <= 0 || w > ping || w > MaxConfirmWindow {
			t.Fatalf("window %v for ping %v", w, ping)
		}
		// A leader clock running at rate rl measures w in w/rl of real
		// time; a follower clock at rate rf reaches its timeout after
		// timeout/rf.
		df := float64(d) / 100
		rl := rapid.Float64Range(1-df, 1+df).Draw(t, "leader rate")
		rf := rapid.Float64Range(1-df, 1+df).Draw(t, "follower rate")
		timeout := float64(min(hb, el))
		for _, r := range [][2]float64{{rl, rf}, {1 - df, 1 + df}} {
			if float64(w)/r[0] >= timeout/r[1] {
				t.Fatalf("window %v (leader rate %.3f) outlasts the follower timeout %v (rate %.3f)", w, r[0], min(hb, el), r[1])
			}
		}
	})
}

func TestConfirmWindow(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		ping, hb, el time.Duration
		d            int
		want         time.Duration
	}{
		{100 * ms, 500 * ms, 500 * ms, 10, 100 * ms},
		{500 * ms, 500 * ms, 500 * ms, 10, 409090909},     // below 500 * 90/110
		{2000 * ms, 500 * ms, 500 * ms, 0, 500*ms - 1},    // below the timeout even without drift
		{5000 * ms, 3000 * ms, 3000 * ms, 0, time.Second}, // the cap
	}
	for _, c := range cases {
		if got := ConfirmWindow(c.ping, c.hb, c.el, c.d); got != c.want {
			t.Errorf("ConfirmWindow(%v, %v, %v, %d) = %v, want %v", c.ping, c.hb, c.el, c.d, got, c.want)
		}
	}
}

func TestTrusted(t *testing.T) {
	at := time.Unix(100, 0)
	c := Confirmation{At: at, Term: 3}
	w := 100 * time.Millisecond
	cases := []struct {
		name   string
		now    time.Time
		leader bool
		term   uint64
		want   bool
	}{
		{"inside the window", at.Add(50 * time.Millisecond), true, 3, true},
		{"at its end", at.Add(w), true, 3, false},
		{"no longer leader", at.Add(time.Millisecond), false, 3, false},
		{"a later term", at.Add(time.Millisecond), true, 4, false},
		{"before the round", at.Add(-time.Millisecond), true, 3, false},
	}
	for _, x := range cases {
		if got := Trusted(c, x.now, w, x.leader, x.term); got != x.want {
			t.Errorf("%s: %v", x.name, got)
		}
	}
	if Trusted(Confirmation{}, at, w, true, 0) {
		t.Error("no confirmation is trusted")
	}
}
