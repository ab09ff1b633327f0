package keyspace

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// SetFound changes a found key as SetWithExpiry would: the same entry,
// the new value and expiry, the expiry index kept, WATCH told.
func TestSetFoundIsSetWithExpiry(t *testing.T) {
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
				before = db.SetWithExpiry("k", []byte("old"), tc.oldExp)
			}
			tok := db.Watch("k")
			found := db.Get("k")
			got := db.SetFound("k", found, NewString([]byte("new")), tc.newExp)
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
