package keyspace

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/slots"
)

var tagOf = map[int]string{}

// keyIn returns a key prefix that hashes to slot, found by trying tags.
func keyIn(slot int) string {
	if tag, ok := tagOf[slot]; ok {
		return "{" + tag + "}"
	}
	for i := 0; ; i++ {
		tag := fmt.Sprint(i)
		if slots.OfString(tag) == slot {
			tagOf[slot] = tag
			return "{" + tag + "}"
		}
	}
}

func TestUsedFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		used []int
		from int
		want int
	}{
		{"none", nil, 0, -1},
		{"at from", []int{5}, 5, 5},
		{"after from in the word", []int{9}, 5, 9},
		{"before from in the word wraps", []int{3}, 5, 3},
		{"a later word", []int{700}, 5, 700},
		{"wraps to the first slot", []int{0}, slots.Count - 1, 0},
		{"the last slot", []int{slots.Count - 1}, 100, slots.Count - 1},
		{"nearest after, not before", []int{2, 64, 6000}, 65, 6000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := New(func() int64 { return 0 })
			for _, s := range tc.used {
				db.Set(keyIn(s), []byte("v"))
			}
			if got := db.usedFrom(tc.from); got != tc.want {
				t.Errorf("usedFrom(%d) = %d, want %d", tc.from, got, tc.want)
			}
		})
	}
}

// Whatever stores, removals, expiries and flushes happen, a slot's bit
// is set exactly when the slot holds a key, and sampling and RANDOMKEY
// find a key whenever there is one.
func TestUsedSlotsFollowTheKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := int64(1000)
		db := New(func() int64 { return now })
		picks := []int{0, 1, 63, 64, 4000, slots.Count - 1}
		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			slot := rapid.SampledFrom(picks).Draw(t, "slot")
			key := keyIn(slot) + fmt.Sprint(rapid.IntRange(0, 3).Draw(t, "n"))
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2, 3:
				db.Set(key, []byte("v"))
			case 4:
				db.SetWithExpiry(key, []byte("v"), now+1)
			case 5, 6, 7:
				db.Delete(key)
			case 8:
				now += 2 // keys with a time to live expire on access
				db.Get(key)
			case 9:
				if rapid.IntRange(0, 9).Draw(t, "flush") == 0 {
					db.Flush()
				}
			}
			for s := range slots.Count {
				bit := db.used[s/64]>>(s%64)&1 == 1
				if bit != (db.SlotLen(s) > 0) {
					t.Fatalf("slot %d: bit %v with %d keys", s, bit, db.SlotLen(s))
				}
			}
			if db.Len() > 0 {
				found := 0
				db.Sample(1, false, func(string, *Entry) { found++ })
				if found != 1 {
					t.Fatalf("Sample found %d of %d keys", found, db.Len())
				}
			}
		}
	})
}

// usedSlots walks every slot with keys once, from the first at or after
// its start, wrapping; a slot the walk's body empties ahead of it is
// skipped.
func TestUsedSlots(t *testing.T) {
	db := New(func() int64 { return 0 })
	for _, s := range []int{3, 100, 9000} {
		db.Set(keyIn(s), []byte("v"))
	}
	walk := func(from int, body func(slot int)) []int {
		var got []int
		for slot := range db.usedSlots(from) {
			got = append(got, slot)
			if body != nil {
				body(slot)
			}
		}
		return got
	}
	for _, tc := range []struct {
		from int
		want []int
	}{
		{0, []int{3, 100, 9000}},
		{3, []int{3, 100, 9000}},
		{50, []int{100, 9000, 3}},
		{9001, []int{3, 100, 9000}},
	} {
		if got := walk(tc.from, nil); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("from %d: %v, want %v", tc.from, got, tc.want)
		}
	}
	got := walk(50, func(slot int) {
		if slot == 100 {
			db.Delete(keyIn(9000)) // empties the next slot
		}
	})
	if want := []int{100, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("emptying 9000 on the way: %v, want %v", got, want)
	}
	if got := walk(0, func(int) { db.Flush() }); len(got) != 1 {
		t.Errorf("a flush in the first step: walked %v", got)
	}
}
