package keyspace

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// SetFound and SetStringFound change a found key as SetWithExpiry would:
// the same entry, the new value and expiry, the expiry index kept, WATCH
// told.
func TestSetFoundIsSetWithExpiry(t *testing.T) {
	for _, store := range []struct {
		name string
		set  func(db *DB, found *Entry, exp int64) *Entry
	}{
		{"SetFound", func(db *DB, found *Entry, exp int64) *Entry {
			return db.SetFound("k", found, NewString([]byte("new")), exp)
		}},
		{"SetStringFound", func(db *DB, found *Entry, exp int64) *Entry {
			return db.SetStringFound("k", found, []byte("new"), exp)
		}},
	} {
		t.Run(store.name, func(t *testing.T) { testSetFound(t, store.set) })
	}
}

func testSetFound(t *testing.T, set func(db *DB, found *Entry, exp int64) *Entry) {
	now := int64(1000)
	for _, tc := range []struct {
		name           string
		exists         bool
		oldExp, newExp int64
	}{
		{"missing key", false, 0, 0},
		{"missing key, with expiry", false, 0, 5000},
		{"existing key", true, 0, 0},
		{"existing key gains an expiry", true, 0, 5000},
		{"existing key loses its expiry", true, 4000, 0},
		{"existing key's expiry changes", true, 4000, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := New(func() int64 { return now })
			var before *Entry
			if tc.exists {
				before = db.SetWithExpiry("k", NewString([]byte("old")), tc.oldExp)
			}
			tok := db.Watch("k")
			found := db.Get("k")
			got := set(db, found, tc.newExp)
			if tc.exists && got != before {
				t.Error("an existing key got a new entry")
			}
			if e := db.Get("k"); e != got || string(e.Val.([]byte)) != "new" || e.ExpireAt != tc.newExp {
				t.Fatalf("after SetFound: entry %+v, want value new, expiry %d", e, tc.newExp)
			}
			wantExpires := 0
			if tc.newExp != 0 {
				wantExpires = 1
			}
			if db.Expires() != wantExpires {
				t.Errorf("Expires() = %d, want %d", db.Expires(), wantExpires)
			}
			if db.Len() != 1 {
				t.Errorf("Len() = %d, want 1", db.Len())
			}
			if !db.Changed(tok) {
				t.Error("a WATCH of the key did not see the change")
			}
		})
	}
}

// SetStringFound overwrites a string of the same length where it is,
// allocating nothing; any other length, or another type, gets a new value
// and leaves the old bytes as they were.
func TestSetStringFoundInPlace(t *testing.T) {
	db := New(func() int64 { return 1000 })
	db.Set("k", NewString([]byte("aaa")))
	old := db.Get("k").Val.([]byte)
	allocs := testing.AllocsPerRun(100, func() {
		db.SetStringFound("k", db.Get("k"), []byte("bbb"), 0)
	})
	if allocs != 0 {
		t.Errorf("a same-length SET allocated %.1f times", allocs)
	}
	if got := db.Get("k").Val.([]byte); string(got) != "bbb" || &got[0] != &old[0] || !Embedded(db.Get("k").Val) {
		t.Fatalf("after a same-length SET: %q, same bytes %v", got, &got[0] == &old[0])
	}
	for _, next := range []string{"cccc", "dd"} {
		prev := db.Get("k").Val.([]byte)
		prevText := string(prev)
		db.SetStringFound("k", db.Get("k"), []byte(next), 0)
		if got := db.Get("k").Val.([]byte); string(got) != next || string(prev) != prevText {
			t.Fatalf("SET of %q: value %q, the old bytes now %q (were %q)", next, got, prev, prevText)
		}
	}
	db.Set("h", map[string]struct{}{"m": {}})
	db.SetStringFound("h", db.Get("h"), []byte("m"), 0)
	if got, ok := db.Get("h").Val.([]byte); !ok || string(got) != "m" {
		t.Fatalf("a SET over a set: %v", db.Get("h").Val)
	}
}

// A snapshot that has not saved the key yet still sees the bytes from
// before an in-place SET.
func TestSetStringFoundKeepsTheSnapshotsBytes(t *testing.T) {
	db := New(func() int64 { return 1000 })
	db.Set("k", NewString([]byte("old")))
	db.BeginSnapshot()
	db.SetStringFound("k", db.Get("k"), []byte("new"), 0)
	var saved []string
	for slot := 0; slot < 16384; slot++ {
		db.SnapshotSlot(slot, func(key string, e *Entry) {
			saved = append(saved, key+"="+string(e.Val.([]byte)))
		})
	}
	db.EndSnapshot()
	if len(saved) != 1 || saved[0] != "k=old" {
		t.Fatalf("the snapshot saved %v, want [k=old]", saved)
	}
	if got := db.Get("k").Val.([]byte); string(got) != "new" {
		t.Fatalf("after the snapshot the key holds %q", got)
	}
}

// A SET's keyspace work over a keyspace larger than the caches: the
// lookup, then the store with a second lookup or with the entry found.
//
//	go test -run '^$' -bench SetOver -benchmem ./ruvio/keyspace
func BenchmarkSetOver100kKeys(b *testing.B) {
	const keys = 100000
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("key:%012d", i)
	}
	val := []byte("xxx")
	for _, bc := range []struct {
		name  string
		store func(db *DB, key string, found *Entry)
	}{
		{"SetWithExpiry", func(db *DB, key string, _ *Entry) { db.SetWithExpiry(key, NewString(val), 0) }},
		{"SetFound", func(db *DB, key string, found *Entry) { db.SetFound(key, found, NewString(val), 0) }},
		{"SetStringFound", func(db *DB, key string, found *Entry) { db.SetStringFound(key, found, val, 0) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			db := New(func() int64 { return 1000 })
			for _, k := range names {
				db.Set(k, NewString(val))
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				// A fresh string per command, as a request's key is.
				key := string([]byte(names[rng.IntN(keys)]))
				db.CmdNow = 1000
				bc.store(db, key, db.Get(key))
			}
		})
	}
}

// GetForWrite hands back a key the keyspace may keep and never keeps the
// caller's buffer: the entry's own string for a key it holds (with no
// allocation), a copy otherwise, including for a key that just expired.
func TestGetForWriteOwnsTheKeyItReturns(t *testing.T) {
	now := int64(1000)
	db := New(func() int64 { return now })
	db.Set("present:0001", []byte("v"))
	db.SetWithExpiry("expiring:0001", []byte("v"), 1500)

	buf := []byte("present:0001")
	e, key := db.GetForWrite(buf)
	if e == nil || key != "present:0001" {
		t.Fatalf("GetForWrite(present) = %v, %q", e, key)
	}
	if unsafe.StringData(key) != unsafe.StringData(e.key) {
		t.Fatal("an existing key is returned as a copy, not the entry's own")
	}
	if n := testing.AllocsPerRun(100, func() { db.GetForWrite(buf) }); n != 0 {
		t.Fatalf("GetForWrite of an existing key allocates %v times", n)
	}

	for _, name := range []string{"missing:0001", "expiring:0001"} {
		if name == "expiring:0001" {
			now = 2000
		}
		buf := []byte(name)
		e, key := db.GetForWrite(buf)
		if e != nil || key != name {
			t.Fatalf("GetForWrite(%s) = %v, %q", name, e, key)
		}
		copy(buf, "XXXXXXXX")
		if key != name {
			t.Fatalf("the key returned for %s changed with the caller's buffer: %q", name, key)
		}
		// The store that follows finds the key's slot and hash computed.
		db.Set(key, []byte("new"))
		if got := db.Get(name); got == nil || string(got.Val.([]byte)) != "new" {
			t.Fatalf("after storing under the returned key, %s = %v", name, got)
		}
	}
	if db.Len() != 3 {
		t.Fatalf("%d keys, want 3", db.Len())
	}
}

// A slot hint serves the very bytes it names and nothing else: a lookup
// of the same key from another buffer works its slot out. The hint
// below is deliberately wrong, so a lookup that took it would miss.
func TestSlotHintServesOnlyTheBytesItNames(t *testing.T) {
	db := New(func() int64 { return 1000 })
	db.Set("user:1", []byte("v"))
	slot := slots.OfString("user:1")

	arg := []byte("user:1")
	db.Hint = SlotHint{Key: arg, Slot: (slot + 1) % slots.Count}
	if e := db.Read("user:1"); e == nil {
		t.Fatal("a lookup from another buffer took the hint")
	}
	if e, _ := db.GetForWrite(arg); e != nil {
		t.Fatal("a lookup of the hinted bytes did not take the hint")
	}
	db.Hint = SlotHint{Key: arg, Slot: slot}
	if e, _ := db.GetForWrite(arg); e == nil {
		t.Fatal("a lookup of the hinted bytes with the right hint missed")
	}
	db.Hint = SlotHint{Key: arg[:4], Slot: (slot + 1) % slots.Count}
	if e, _ := db.GetForWrite(arg); e == nil {
		t.Fatal("a hint for a prefix of the bytes served the whole key")
	}
}

// ReadArg reads a key where the caller holds it, so a hint for those
// bytes serves it, and keeps nothing of them: the expiry it finds hands
// the listeners a key of their own.
func TestReadArgReadsInPlaceAndKeepsNothing(t *testing.T) {
	now := int64(1000)
	db := New(func() int64 { return now })
	db.Set("user:1", []byte("v"))
	db.SetWithExpiry("user:2", []byte("v"), 1500)
	var expired []string
	db.OnExpire = func(key string) { expired = append(expired, key) }

	arg := []byte("user:1")
	if db.ReadArg(arg) == nil {
		t.Fatal("ReadArg missed a present key")
	}
	db.Hint = SlotHint{Key: arg, Slot: (slots.OfString("user:1") + 1) % slots.Count}
	if db.ReadArg(arg) != nil {
		t.Fatal("ReadArg did not read the hinted bytes in place")
	}
	db.Hint = SlotHint{}

	now = 2000
	arg = []byte("user:2")
	if db.ReadArg(arg) != nil {
		t.Fatal("ReadArg found an expired key")
	}
	copy(arg, "XXXXXX")
	if len(expired) != 1 || expired[0] != "user:2" {
		t.Fatalf("expired %q after the caller's buffer changed, want [user:2]", expired)
	}
}
