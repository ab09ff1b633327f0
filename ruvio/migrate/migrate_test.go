package migrate

import (
	"fmt"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"pgregory.net/rapid"
)

func TestAfterRound(t *testing.T) {
	for _, tc := range []struct {
		dirty, round int
		want         Step
	}{
		{0, 1, StepFreeze},
		{FewLeft, 1, StepFreeze},
		{FewLeft + 1, 1, StepCatchUp},
		{100000, MaxCatchUpRounds - 1, StepCatchUp},
		{100000, MaxCatchUpRounds, StepFreeze},
	} {
		if got := AfterRound(tc.dirty, tc.round); got != tc.want {
			t.Errorf("AfterRound(%d, %d) = %v, want %v", tc.dirty, tc.round, got, tc.want)
		}
	}
}

func TestWhileFrozen(t *testing.T) {
	for _, tc := range []struct {
		f    Frozen
		want Step
	}{
		{Frozen{Elapsed: 0, Dirty: 3}, StepSend},
		{Frozen{Elapsed: 0, Dirty: 0}, StepSync},
		{Frozen{Elapsed: 10 * time.Millisecond, Dirty: 0, Synced: true}, StepPrepared},
		// A key changed after the sync: sent and synced again.
		{Frozen{Elapsed: 10 * time.Millisecond, Dirty: 1, Synced: true}, StepSend},
		{Frozen{Elapsed: FreezeBudget, Dirty: 0}, StepGiveUp},
		{Frozen{Elapsed: FreezeBudget + time.Millisecond, Dirty: 5}, StepGiveUp},
		// Done in time is done, however late it is looked at.
		{Frozen{Elapsed: 2 * FreezeBudget, Synced: true}, StepPrepared},
	} {
		if got := WhileFrozen(tc.f); got != tc.want {
			t.Errorf("WhileFrozen(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func TestBatchLen(t *testing.T) {
	for _, tc := range []struct {
		sizes             []int
		maxKeys, maxBytes int
		want              int
	}{
		{nil, 10, 100, 0},
		{[]int{10, 10, 10}, 10, 100, 3},
		{[]int{10, 10, 10}, 2, 100, 2},
		{[]int{60, 60}, 10, 100, 1},
		{[]int{500, 1}, 10, 100, 1},
		{[]int{50, 50, 1}, 10, 100, 2},
	} {
		if got := BatchLen(tc.sizes, tc.maxKeys, tc.maxBytes); got != tc.want {
			t.Errorf("BatchLen(%v, %d, %d) = %d, want %d", tc.sizes, tc.maxKeys, tc.maxBytes, got, tc.want)
		}
	}
}

func TestThrottle(t *testing.T) {
	for _, tc := range []struct {
		sent    int64
		elapsed time.Duration
		limit   int64
		want    time.Duration
	}{
		{1 << 20, 0, 0, 0},
		{1000, 0, 1000, time.Second},
		{1000, 400 * time.Millisecond, 1000, 600 * time.Millisecond},
		{1000, 2 * time.Second, 1000, 0},
		{0, 0, 1000, 0},
	} {
		if got := Throttle(tc.sent, tc.elapsed, tc.limit); got != tc.want {
			t.Errorf("Throttle(%d, %v, %d) = %v, want %v", tc.sent, tc.elapsed, tc.limit, got, tc.want)
		}
	}
}

// The copy never runs faster than its limit: after waiting what
// Throttle says, the rate is at most the limit.
func TestPropertyThrottleKeepsTheRate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sent := rapid.Int64Range(1, 1<<30).Draw(t, "sent")
		limit := rapid.Int64Range(1, 1<<30).Draw(t, "limit")
		elapsed := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "elapsed"))
		total := elapsed + Throttle(sent, elapsed, limit)
		if float64(sent)/total.Seconds() > float64(limit)*1.000001 {
			t.Fatalf("%d bytes in %v is over %d/s", sent, total, limit)
		}
	})
}

func TestReplicasWaitFor(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want time.Duration
	}{
		{0, ReplicasWait}, {-1, ReplicasWait}, {250, 250 * time.Millisecond}, {60000, ReplicasWait},
	} {
		if got := ReplicasWaitFor(tc.ms); got != tc.want {
			t.Errorf("ReplicasWaitFor(%d) = %v, want %v", tc.ms, got, tc.want)
		}
	}
}

func TestMoveFileParsesBack(t *testing.T) {
	for _, m := range []Move{
		{Out: true, ID: "17", First: 100, Last: 199, Shard: 1, Peer: "127.0.0.1:7001"},
		{ID: "18", First: 0, Last: 16383, Shard: 0, Peer: "b1:6379", State: StateImporting},
		{ID: "x", First: 5, Last: 5, Shard: 3, Peer: "[::1]:7000", State: StatePrepared},
	} {
		got, err := ParseMove(m.Format())
		if err != nil || got != m {
			t.Errorf("ParseMove(%q) = %+v, %v; want %+v", m.Format(), got, err, m)
		}
	}
	for _, bad := range []string{"", "out 1 100-199@0", "in 1 100-199@0 h:1 done", "out 1 200-100@0 h:1", "out 1 0-16384@0 h:1", "out 1 1-2 h:1"} {
		if _, err := ParseMove(bad); err == nil {
			t.Errorf("ParseMove(%q) accepted", bad)
		}
	}
}

func TestArrivals(t *testing.T) {
	a := Arrival{First: 100, Last: 199, Shard: 0, Version: 5}
	b := Arrival{First: 300, Last: 399, Shard: 1, Version: 7}
	as := Arrive(Arrive(nil, b), a)
	if got := Arrive(as, a); len(got) != 2 {
		t.Fatalf("the same arrival twice: %v", got)
	}
	text := FormatArrivals(as)
	back, err := ParseArrivals(text)
	if err != nil || len(back) != 2 || back[0] != a || back[1] != b {
		t.Fatalf("ParseArrivals(%q) = %v, %v", text, back, err)
	}
	// A newer arrival over some of an older one's slots takes those;
	// the older one keeps the rest, and an older one replayed later
	// changes nothing.
	c := Arrival{First: 150, Last: 160, Shard: 1, Version: 9}
	want := []Arrival{{100, 149, 0, 5}, c, {161, 199, 0, 5}, b}
	got := Arrive(as, c)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Arrive over an older one: %v, want %v", got, want)
	}
	if again := Arrive(got, a); fmt.Sprint(again) != fmt.Sprint(want) {
		t.Fatalf("the older arrival replayed: %v, want %v", again, want)
	}
	for _, tc := range []struct {
		version uint64
		want    int
	}{{4, 2}, {5, 1}, {6, 1}, {7, 0}} {
		if got := Pending(as, tc.version); len(got) != tc.want {
			t.Errorf("Pending(version %d) = %v, want %d", tc.version, got, tc.want)
		}
	}
	if _, err := ParseArrivals("100-199@0\n"); err == nil {
		t.Error("a line without a version was accepted")
	}
}

func TestEntryOps(t *testing.T) {
	z := sortedset.New()
	z.Add("m", 1.5)
	elems := make([][]byte, OpElems+1)
	for i := range elems {
		elems[i] = []byte{byte(i)}
	}
	for _, tc := range []struct {
		name     string
		val      any
		expireAt int64
		want     []string // each op's name
	}{
		{"string", []byte("v"), 0, []string{"DEL", "SET"}},
		{"string with ttl", []byte("v"), 1700000000000, []string{"DEL", "SET", "PEXPIREAT"}},
		{"long list", deque.New(elems...), 0, []string{"DEL", "RPUSH", "RPUSH"}},
		{"set", map[string]struct{}{"a": {}}, 0, []string{"DEL", "SADD"}},
		{"hash", hash.FromMap(map[string][]byte{"f": []byte("v")}), 0, []string{"DEL", "HSET"}},
		{"zset", z, 0, []string{"DEL", "ZADD"}},
	} {
		ops, size, err := EntryOps("k", tc.val, tc.expireAt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var names []string
		for _, op := range ops {
			names = append(names, string(op[0]))
		}
		if len(names) != len(tc.want) || size <= 0 {
			t.Fatalf("%s: ops %v size %d, want %v", tc.name, names, size, tc.want)
		}
		for i := range names {
			if names[i] != tc.want[i] {
				t.Fatalf("%s: ops %v, want %v", tc.name, names, tc.want)
			}
		}
	}
	if _, _, err := EntryOps("k", 42, 0); err == nil {
		t.Error("an unknown value type was accepted")
	}
}

// Arrivals come in log order, each of a newer map; a restart replays
// the records after the last snapshot. Whatever the ranges, no two
// kept arrivals overlap, each slot is held by the last arrival that
// covered it, and a replay changes nothing.
func TestPropertyArrivalsNeverOverlapAndTheLastWins(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var as []Arrival
		last := map[int]Arrival{}
		var seen []Arrival
		version := uint64(1)
		n := rapid.IntRange(1, 20).Draw(t, "n")
		for i := 0; i < n; i++ {
			if len(seen) > 0 && rapid.Bool().Draw(t, "replay") {
				// A restart replays the log after the last snapshot: a
				// suffix of the records, in order.
				from := rapid.IntRange(0, len(seen)-1).Draw(t, "from")
				before := fmt.Sprint(as)
				for _, r := range seen[from:] {
					as = Arrive(as, r)
				}
				if fmt.Sprint(as) != before {
					t.Fatalf("replaying from record %d changed %s into %v", from, before, as)
				}
				continue
			}
			version += uint64(rapid.IntRange(1, 2).Draw(t, "step")) // each move raises the map version
			first := rapid.IntRange(0, 60).Draw(t, "first")
			a := Arrival{First: first, Last: first + rapid.IntRange(0, 20).Draw(t, "len"),
				Shard: rapid.IntRange(0, 2).Draw(t, "shard"), Version: version}
			as = Arrive(as, a)
			seen = append(seen, a)
			for s := a.First; s <= a.Last; s++ {
				last[s] = a
			}
		}
		for i, a := range as {
			for _, b := range as[i+1:] {
				if Overlaps(a.First, a.Last, b.First, b.Last) {
					t.Fatalf("kept arrivals overlap: %v and %v", a, b)
				}
			}
		}
		for s, want := range last {
			held := 0
			for _, a := range as {
				if s >= a.First && s <= a.Last {
					held++
					if a.Shard != want.Shard || a.Version != want.Version {
						t.Fatalf("slot %d held by %v, the last covering it was %v", s, a, want)
					}
				}
			}
			if held != 1 {
				t.Fatalf("slot %d held %d times in %v", s, held, as)
			}
		}
	})
}
