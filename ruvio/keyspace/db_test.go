package keyspace

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
