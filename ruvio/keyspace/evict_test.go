package keyspace

import (
	"fmt"
	"testing"
	"unsafe"
)

func TestLFUIncr(t *testing.T) {
	tests := []struct {
		counter uint8
		factor  int64
		r       float64
		want    uint8
	}{
		{0, 10, 0.99, 1}, // below the initial value it always grows
		{5, 10, 0.99, 6}, // at the initial value too: p = 1
		{6, 10, 0.05, 7}, // p = 1/11
		{6, 10, 0.1, 6},  // r above p
		{15, 10, 0.009, 16},
		{15, 10, 0.01, 15}, // p = 1/101
		{15, 0, 0.99, 16},  // factor 0: every access counts
		{255, 0, 0, 255},   // the ceiling
	}
	for _, tc := range tests {
		if got := LFUIncr(tc.counter, tc.factor, tc.r); got != tc.want {
			t.Errorf("LFUIncr(%d, %d, %v) = %d, want %d", tc.counter, tc.factor, tc.r, got, tc.want)
		}
	}
}

func TestLFUDecay(t *testing.T) {
	const min = 60000
	tests := []struct {
		counter     uint8
		last, now   int64
		decay, want int64
	}{
		{10, 0, 59999, 1, 10},
		{10, 0, min, 1, 9},
		{10, 0, 3 * min, 1, 7},
		{10, 0, 3 * min, 2, 9},
		{10, 0, 30 * min, 1, 0},
		{10, 0, 30 * min, 0, 10}, // decay time 0: never
		{10, 5 * min, 0, 1, 10},  // a clock that went back
	}
	for _, tc := range tests {
		if got := LFUDecay(tc.counter, tc.last, tc.now, tc.decay); int64(got) != tc.want {
			t.Errorf("LFUDecay(%d, %d, %d, %d) = %d, want %d", tc.counter, tc.last, tc.now, tc.decay, got, tc.want)
		}
	}
}

func TestPolicyByName(t *testing.T) {
	tests := []struct {
		name string
		want Policy
		ok   bool
	}{
		{"volatile-lru", Policy{true, ByIdle}, true},
		{"allkeys-lru", Policy{false, ByIdle}, true},
		{"volatile-lfu", Policy{true, ByFreq}, true},
		{"allkeys-lfu", Policy{false, ByFreq}, true},
		{"volatile-random", Policy{true, ByRandom}, true},
		{"allkeys-random", Policy{false, ByRandom}, true},
		{"volatile-ttl", Policy{true, ByTTL}, true},
		{"noeviction", Policy{}, false},
	}
	for _, tc := range tests {
		if got, ok := PolicyByName(tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("PolicyByName(%q) = %v, %v", tc.name, got, ok)
		}
	}
}

// entry is an Entry with the given LFU counter, access time and expiry.
func entry(freq uint8, access, expireAt int64) Entry {
	e := Entry{ExpireAt: expireAt}
	e.SetFreq(freq)
	e.SetAccess(access)
	return e
}

// Score orders candidates as each policy wants: the winner is the one
// with the higher score.
func TestScoreOrders(t *testing.T) {
	const now = 10 * 60000
	tests := []struct {
		name          string
		p             Policy
		first, second Entry
	}{
		{"lru: idle longer", Policy{false, ByIdle}, entry(0, 1000, 0), entry(0, 5000, 0)},
		{"lfu: rarer", Policy{false, ByFreq}, entry(3, now, 0), entry(9, now-5, 0)},
		{"lfu: equal, idle longer", Policy{false, ByFreq}, entry(5, now-5, 0), entry(5, now, 0)},
		{"lfu: decayed", Policy{false, ByFreq}, entry(9, 0, 0), entry(6, now, 0)},
		{"ttl: sooner", Policy{true, ByTTL}, entry(0, 0, now+10), entry(0, 0, now+20)},
		{"expired beats all", Policy{false, ByIdle}, entry(0, now, now), entry(0, 0, 0)},
	}
	for _, tc := range tests {
		a, b := tc.p.Score(&tc.first, now, 1), tc.p.Score(&tc.second, now, 1)
		if a <= b {
			t.Errorf("%s: score %d, want above %d", tc.name, a, b)
		}
	}
}

// A volatile policy picks only keys with a time to live; volatile-ttl the
// nearest expiry among those sampled, which with every key sampled is the
// nearest of all.
func TestCandidate(t *testing.T) {
	now := int64(1_000_000)
	db := New(func() int64 { return now })
	for i := range 50 {
		db.Set(fmt.Sprint("p", i), []byte("v"))
	}
	if _, _, ok := db.Candidate(Policy{true, ByIdle}, 5); ok {
		t.Fatal("a volatile policy found a candidate among keys without TTL")
	}
	for i := range 10 {
		db.SetWithExpiry(fmt.Sprint("v", i), []byte("v"), now+int64(1000-i))
	}
	for range 20 {
		k, _, ok := db.Candidate(Policy{true, ByRandom}, 5)
		if !ok || k[0] != 'v' {
			t.Fatalf("volatile-random picked %q %v", k, ok)
		}
	}
	if k, _, _ := db.Candidate(Policy{true, ByTTL}, 64); k != "v9" {
		t.Errorf("volatile-ttl with every key sampled picked %q, want v9", k)
	}
	n := 0
	db.Sample(100, false, func(string, *Entry) { n++ })
	if n != 60 {
		t.Errorf("Sample(100) of 60 keys gave %d", n)
	}
	if !db.Evict("p1") || db.Evict("p1") || db.Stats.EvictedKeys != 1 || db.Len() != 59 {
		t.Errorf("Evict: stats %+v, len %d", db.Stats, db.Len())
	}
}

// Only an LFU policy keeps counters; a new key starts at LFUInit and
// accesses raise it.
func TestLFUCounting(t *testing.T) {
	now := int64(0)
	db := New(func() int64 { return now })
	db.LFU = &LFU{}
	db.Set("k", []byte("v"))
	for range 100 {
		db.Get("k")
	}
	if f := db.raw("k").Freq(); f != LFUInit {
		t.Errorf("without an LFU policy the counter moved to %d", f)
	}
	db.LFU.Set(true, 0, 1)
	for range 100 {
		db.Get("k")
	}
	if f := db.Freq(db.raw("k")); f != LFUInit+100 {
		t.Errorf("factor 0, 100 accesses: counter %d, want %d", f, LFUInit+100)
	}
	now += 10 * 60000
	if f := db.Freq(db.raw("k")); f != LFUInit+90 {
		t.Errorf("after 10 minutes: counter %d, want %d", f, LFUInit+90)
	}
}

// With the pool, sampled LRU comes close to true LRU: evicting half the
// keys five samples at a time takes mostly the older half. The pool is
// scored afresh, so a key read since it entered the pool is spared.
func TestCandidatePoolApproachesLRU(t *testing.T) {
	now := int64(1_000_000)
	db := New(func() int64 { return now })
	const n = 2000
	for i := range n {
		db.Set(fmt.Sprint("k", i), []byte("v")).SetAccess(int64(i))
	}
	p := Policy{false, ByIdle}
	for range n / 2 {
		k, _, ok := db.Candidate(p, 5)
		if !ok {
			t.Fatal("no candidate")
		}
		db.Evict(k)
	}
	newer := 0
	db.Each(func(key string, e *Entry) bool {
		if e.Access() >= n/2 {
			newer++
		}
		return true
	})
	if f := float64(newer) / float64(db.Len()); f < 0.85 {
		t.Errorf("%.2f of the survivors are of the newer half, want most", f)
	}
	// A pool key that is read is no longer the best candidate.
	db.Candidate(p, 5)
	for _, k := range db.pool.keys {
		db.Get(k)
	}
	if k, _, _ := db.Candidate(p, 5); k != "" && db.raw(k).Access() == now {
		t.Errorf("picked %s, read just now", k)
	}
}

// An Entry stays within the 48-byte size class: it is allocated once per
// key, so a field more is a tenth of a small string key's memory.
func TestEntryFitsFortyEightBytes(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 48 {
		t.Fatalf("Entry is %d bytes, want at most 48", n)
	}
}

// Access and Freq share a word without disturbing each other.
func TestEntryAccessAndFreqShareAWord(t *testing.T) {
	var e Entry
	e.SetFreq(200)
	e.SetAccess(1_800_000_000_123)
	e.SetFreq(7)
	if e.Freq() != 7 || e.Access() != 1_800_000_000_123 {
		t.Fatalf("freq %d access %d, want 7 and 1800000000123", e.Freq(), e.Access())
	}
	e.SetAccess(-5)
	if e.Access() != 0 || e.Freq() != 7 {
		t.Fatalf("after a negative access: freq %d access %d, want 7 and 0", e.Freq(), e.Access())
	}
}
