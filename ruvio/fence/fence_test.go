package fence

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestGeneration(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    Basis
		gen  uint64
		err  string
	}{
		{"no map: the replication epoch", Basis{Epoch: 7}, 7, ""},
		{"a fresh node: generation 1", Basis{}, 1, ""},
		{"a map written by hand, smaller than the epoch", Basis{Epoch: 7, MapVersion: 1}, 7, ""},
		{"a map written by hand, larger than the epoch", Basis{Epoch: 2, MapVersion: 9}, 9, ""},
		{"the coordinators' map naming this node: its version", Basis{Epoch: 40, MapVersion: 12, FromCoordinators: true, NamesSelf: true}, 12, ""},
		{"the coordinators' map naming another node: refused", Basis{Epoch: 40, MapVersion: 12, FromCoordinators: true}, 0, "TRYAGAIN"},
		{"too large", Basis{Epoch: MaxGeneration + 1}, 0, "ERR the generation"},
		{"a restart that started the epoch over: the generation granted before", Basis{Epoch: 1, Granted: 3}, 3, ""},
		{"the coordinators' map below a generation granted before: refused", Basis{Epoch: 3, MapVersion: 2, FromCoordinators: true, NamesSelf: true, Granted: 3}, 0, "TRYAGAIN this node granted"},
		{"the coordinators' map at the generation granted before", Basis{Epoch: 3, MapVersion: 3, FromCoordinators: true, NamesSelf: true, Granted: 3}, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen, err := Generation(tc.b)
			if gen != tc.gen || !strings.HasPrefix(err, tc.err) || (tc.err == "") != (err == "") {
				t.Fatalf("Generation(%+v) = %d, %q; want %d, %q...", tc.b, gen, err, tc.gen, tc.err)
			}
		})
	}
}

func TestCounterNeverBelowTheClock(t *testing.T) {
	var c Counter
	now := int64(Base + 5000)
	a, _ := c.Next(3, now)
	b, _ := c.Next(3, now) // the same millisecond
	if _, n := Split(a); n != 5000 {
		t.Fatalf("first counter %d, want the ms since Base (5000)", n)
	}
	if b != a+1 {
		t.Fatalf("second token in the same ms %d, want %d", b, a+1)
	}
	// A restarted node (a new Counter) a millisecond later goes on above.
	var restarted Counter
	if r, _ := restarted.Next(3, now+2); r <= b {
		t.Fatalf("token after a restart %d is not above %d", r, b)
	}
	// A clock before Base still gives positive counters.
	var early Counter
	if e, _ := early.Next(1, 0); e != Token(1, 1) {
		t.Fatalf("token at Unix 0 = %d, want %d", e, Token(1, 1))
	}
	var late Counter
	if _, err := late.Next(1, Base+MaxCounter+1); err == "" {
		t.Fatal("a counter past 2^41 was not refused")
	}
	failing := Counter{Store: func(Mark) error { return errors.New("disk full") }}
	if _, err := failing.Next(1, Base); !strings.Contains(err, "disk full") {
		t.Fatalf("a counter that cannot store its mark granted (%q)", err)
	}
}

// A node restarted from its stored Mark grants above every token it
// granted before, however far its counter ran ahead of the clock and
// whatever its epoch starts at again; and it stores at most once per
// Reserve counters of one generation.
func TestPropertyTokensRiseAcrossRestarts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var disk Mark
		stores := 0
		store := func(m Mark) error { disk = m; stores++; return nil }
		c := &Counter{Store: store}
		now := rapid.Int64Range(Base, Base+1<<40).Draw(t, "now")
		epoch := rapid.Uint64Range(1, 100).Draw(t, "epoch")
		granted, prev := 0, int64(0)
		for i := range rapid.IntRange(1, 40).Draw(t, "rounds") {
			if rapid.Bool().Draw(t, "restart") {
				c = &Counter{Store: store}
				c.Restore(disk)
				epoch = rapid.Uint64Range(1, epoch).Draw(t, "epoch after restart") // a memory node starts over
			}
			now += rapid.Int64Range(-5000, 5000).Draw(t, "tick")
			gen, msg := Generation(Basis{Epoch: epoch, Granted: c.Granted()})
			if msg != "" {
				t.Fatalf("round %d: %s", i, msg)
			}
			for range rapid.IntRange(1, 3*Reserve).Draw(t, "burst") {
				tok, msg := c.Next(gen, now)
				if msg != "" || tok <= prev {
					t.Fatalf("round %d: token %d (%s) not above %d", i, tok, msg, prev)
				}
				prev = tok
				granted++
			}
		}
		if stores > granted/Reserve+2*40+1 {
			t.Fatalf("%d stores for %d tokens", stores, granted)
		}
	})
}

// Tokens rise: within a node as its generation rises or stays, and from
// any node of a larger generation over any of a smaller one.
func TestPropertyTokensRise(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var c Counter
		gen := rapid.Uint64Range(1, 1000).Draw(t, "gen")
		now := rapid.Int64Range(0, Base+1<<40).Draw(t, "now")
		prev := int64(0)
		for i := range rapid.IntRange(1, 50).Draw(t, "grants") {
			gen += rapid.Uint64Range(0, 2).Draw(t, "raise")
			now += rapid.Int64Range(-1000, 1000).Draw(t, "tick") // clocks step back too
			tok, err := c.Next(gen, now)
			if err != "" {
				t.Fatalf("grant %d: %s", i, err)
			}
			if tok <= prev {
				t.Fatalf("grant %d: token %d not above %d", i, tok, prev)
			}
			if g, _ := Split(tok); g != gen {
				t.Fatalf("grant %d: token %d carries generation %d, want %d", i, tok, g, gen)
			}
			prev = tok
		}
		lo := rapid.Uint64Range(1, MaxGeneration-1).Draw(t, "lo")
		hi := rapid.Uint64Range(lo+1, MaxGeneration).Draw(t, "hi")
		if Token(hi, 1) <= Token(lo, MaxCounter) {
			t.Fatalf("generation %d's smallest token is not above generation %d's largest", hi, lo)
		}
		if Token(MaxGeneration, MaxCounter) <= 0 {
			t.Fatal("the largest token is not positive")
		}
	})
}
