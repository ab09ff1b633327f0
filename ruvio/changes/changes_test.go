package changes

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/repl"
)

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor{Epoch: 3, Seq: 1042, Stretch: 18446744073709551615}
	if got := c.String(); got != "3-1042-18446744073709551615" {
		t.Fatalf("String = %q", got)
	}
	back, err := Parse(c.String())
	if err != nil || back != c {
		t.Fatalf("Parse(%q) = %+v, %v", c.String(), back, err)
	}
	for _, bad := range []string{"", "3-4", "3-4-5-6", "a-1-2", "1--2", "-1-2-3", "1-2-18446744073709551616"} {
		if _, err := Parse(bad); err == nil || err.Error() != ErrBadCursor {
			t.Errorf("Parse(%q) = %v, want %q", bad, err, ErrBadCursor)
		}
	}
}

func TestDecide(t *testing.T) {
	// Epoch 1 from 1 (ID 10); a failover forked epoch 2 at 101 (ID 20).
	h := []repl.EpochStart{{Epoch: 1, FirstSeq: 1, ID: 10}, {Epoch: 2, FirstSeq: 101, ID: 20}}
	newest := func(seq uint64) Cursor { return Cursor{Epoch: 2, Seq: seq, Stretch: 20} }
	for _, tc := range []struct {
		name string
		h    []repl.EpochStart
		last uint64
		c    Cursor
		want Resume
	}{
		{"from the beginning", h, 150, Cursor{}, Resume{From: 1}},
		{"from the beginning of any history", h, 150, Cursor{Epoch: 9, Stretch: 99}, Resume{From: 1}},
		{"inside the old epoch, before the fork", h, 150, Cursor{1, 60, 10}, Resume{From: 61}},
		{"at the fork", h, 150, Cursor{1, 100, 10}, Resume{From: 101}},
		{"past the fork in the old epoch: the new primary never had them", h, 150, Cursor{1, 130, 10},
			Resume{From: 101, Rewound: true, At: newest(100)}},
		{"in the newest epoch", h, 150, Cursor{2, 140, 20}, Resume{From: 141}},
		{"at the end", h, 150, Cursor{2, 150, 20}, Resume{From: 151}},
		{"ahead of a shard that restarted with fewer records", h, 150, Cursor{2, 170, 20},
			Resume{From: 151, Rewound: true, At: newest(150)}},
		{"the same epoch, another stretch (a restart that kept nothing)", h, 150, Cursor{2, 120, 21},
			Resume{From: 1, Rewound: true, At: newest(0)}},
		{"an epoch this shard never had", h, 150, Cursor{3, 120, 30},
			Resume{From: 1, Rewound: true, At: newest(0)}},
		{"an empty history", nil, 0, Cursor{1, 5, 10}, Resume{From: 1, Rewound: true}},
	} {
		if got := Decide(tc.h, tc.last, tc.c); got != tc.want {
			t.Errorf("%s: Decide(%v) = %+v, want %+v", tc.name, tc.c, got, tc.want)
		}
	}
}

func TestAtNamesTheStretchHoldingARecord(t *testing.T) {
	// A restart mark began a second stretch of epoch 1 at 51.
	h := []repl.EpochStart{{Epoch: 1, FirstSeq: 1, ID: 10}, {Epoch: 1, FirstSeq: 51, ID: 11}, {Epoch: 2, FirstSeq: 81, ID: 20}}
	for _, tc := range []struct {
		epoch, seq uint64
		want       Cursor
	}{
		{1, 50, Cursor{1, 50, 10}},
		{1, 51, Cursor{1, 51, 11}},
		{1, 80, Cursor{1, 80, 11}},
		{2, 81, Cursor{2, 81, 20}},
		{2, 500, Cursor{2, 500, 20}},
	} {
		if got := At(h, tc.epoch, tc.seq); got != tc.want {
			t.Errorf("At(%d, %d) = %v, want %v", tc.epoch, tc.seq, got, tc.want)
		}
	}
}

func TestVisibleLeavesOutTheLogsOwnOperations(t *testing.T) {
	op := func(args ...string) [][]byte {
		out := make([][]byte, len(args))
		for i, a := range args {
			out[i] = []byte(a)
		}
		return out
	}
	set, incr := op("SET", "k", "v"), op("INCR", "n")
	mark, arrived := op("ruvio-history", "12"), op("RUVIO-SLOTS-ARRIVED", "0", "99")
	for _, tc := range []struct {
		in, want [][][]byte
	}{
		{[][][]byte{set, incr}, [][][]byte{set, incr}},
		{[][][]byte{mark, set}, [][][]byte{set}},
		{[][][]byte{set, arrived, incr}, [][][]byte{set, incr}},
		{[][][]byte{mark}, [][][]byte{}},
	} {
		if got := Visible(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A drawn history tree: a common trunk, then the consumer's branch and
// the shard's branch, each a few stretches. Whatever the branches, the
// stream never resumes the consumer after a record the two do not share,
// and never rewinds a consumer whose records the shard all holds.
func TestDecideNeverSkipsAFork(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nextID := uint64(1)
		grow := func(h []repl.EpochStart, last uint64, label string) ([]repl.EpochStart, uint64) {
			for range rapid.IntRange(0, 3).Draw(t, label+" stretches") {
				epoch := uint64(1)
				if len(h) > 0 {
					epoch = h[len(h)-1].Epoch
					if rapid.Bool().Draw(t, label+" new epoch") {
						epoch += uint64(rapid.IntRange(1, 2).Draw(t, label+" epoch step"))
					}
				}
				// A restart that lost records starts its stretch at or
				// before the end; a fork just after it.
				// before the end, never before the stretch it cuts (the
				// log keeps the history of the records it holds); a
				// stretch beginning where one without records did
				// takes its place, as the shard records it.
				lost := uint64(0)
				if n := len(h); n > 0 && last >= h[n-1].FirstSeq {
					lost = uint64(rapid.IntRange(0, int(min(last-h[n-1].FirstSeq, 5))).Draw(t, label+" lost"))
				}
				first := last + 1 - lost
				e := repl.EpochStart{Epoch: epoch, FirstSeq: first, ID: nextID}
				if n := len(h); n > 0 && h[n-1].FirstSeq == first {
					h[n-1] = e
				} else {
					h = append(h, e)
				}
				nextID++
				last = first - 1 + uint64(rapid.IntRange(0, 10).Draw(t, label+" records"))
			}
			return h, last
		}
		trunk, trunkLast := grow(nil, 0, "trunk")
		mine, myLast := grow(append([]repl.EpochStart(nil), trunk...), trunkLast, "consumer")
		theirs, theirLast := grow(append([]repl.EpochStart(nil), trunk...), trunkLast, "shard")
		if len(mine) == 0 || myLast == 0 {
			t.Skip("the consumer read nothing")
		}
		seq := uint64(rapid.IntRange(1, int(myLast)).Draw(t, "seq"))
		var epoch, id uint64
		for _, s := range mine {
			if s.FirstSeq <= seq {
				epoch, id = s.Epoch, s.ID
			}
		}
		c := Cursor{Epoch: epoch, Seq: seq, Stretch: id}
		shared := repl.ForkPoint(mine, seq, theirs, theirLast)
		got := Decide(theirs, theirLast, c)
		if got.Rewound {
			if got.At.Seq > shared || got.From != got.At.Seq+1 {
				t.Fatalf("rewound to %v past the shared %d (cursor %v, consumer %v, shard %v last %d)", got.At, shared, c, mine, theirs, theirLast)
			}
			return
		}
		if got.From != seq+1 || seq > shared {
			t.Fatalf("resumed from %d with %d shared (cursor %v, consumer %v, shard %v last %d)", got.From, shared, c, mine, theirs, theirLast)
		}
	})
}

func TestHoldingNamesTheStretchOfASequence(t *testing.T) {
	h := []repl.EpochStart{{Epoch: 1, FirstSeq: 1, ID: 10}, {Epoch: 1, FirstSeq: 51, ID: 11}, {Epoch: 2, FirstSeq: 81, ID: 20}}
	for seq, want := range map[uint64]Cursor{0: {}, 1: {1, 1, 10}, 50: {1, 50, 10}, 51: {1, 51, 11}, 81: {2, 81, 20}, 900: {2, 900, 20}} {
		if got := Holding(h, seq); got != want {
			t.Errorf("Holding(%d) = %v, want %v", seq, got, want)
		}
	}
	if NewestID(h) != 20 || NewestID(nil) != 0 {
		t.Errorf("NewestID = %d, %d", NewestID(h), NewestID(nil))
	}
}
