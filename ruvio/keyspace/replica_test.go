package keyspace

import "testing"

// A replica's keyspace hides a key whose time ran out but leaves removing
// it to the primary's DEL, so its log stays the primary's.
func TestReplicaHidesExpiredKeysWithoutRemovingThem(t *testing.T) {
	now := int64(1000)
	db := New(func() int64 { return now })
	db.Replica = true
	var expired []string
	db.OnExpire = func(k string) { expired = append(expired, k) }
	db.SetWithExpiry("k", []byte("v"), 1500)
	db.SetWithExpiry("other", []byte("v"), 1200)
	if db.Get("k") == nil {
		t.Fatal("live key missing")
	}
	now = 2000
	if db.Get("k") != nil {
		t.Fatal("an expired key reads as present on a replica")
	}
	if n := db.ActiveExpire(16); n != 0 {
		t.Fatalf("active expiry removed %d keys on a replica", n)
	}
	if db.Len() != 2 || len(expired) != 0 {
		t.Fatalf("replica removed keys itself: len %d, OnExpire %v", db.Len(), expired)
	}
	db.Replica = false
	if db.Get("k") != nil || db.Len() != 1 || len(expired) != 1 {
		t.Fatalf("once promoted, lazy expiry resumes: len %d, OnExpire %v", db.Len(), expired)
	}
}
