package keyspace

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// The slot memo answers only for the very string it saw: keys of the
// same length with other bytes, or the same bytes in another string,
// get their own slot.
func TestSlotMemoAnswersOnlyForTheSameString(t *testing.T) {
	db := New(func() int64 { return 0 })
	keys := []string{"user:1", "user:2", "{a}bcd", "{b}bcd", string([]byte("user:1"))}
	for _, k := range keys {
		for range 2 {
			if got, want := db.slotOf(k), slots.OfString(k); got != want {
				t.Fatalf("slotOf(%q) = %d, want %d", k, got, want)
			}
		}
	}
	db.Set("user:1", []byte("a"))
	if e := db.Get("user:2"); e != nil {
		t.Fatalf("user:2 found after storing user:1: %q", e.Val)
	}
	if e := db.Get(string([]byte("user:1"))); e == nil {
		t.Fatal("user:1 not found through another string with its bytes")
	}
}
