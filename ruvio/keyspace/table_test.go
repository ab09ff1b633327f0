package keyspace

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// A table answers like a Go map under any sequence of inserts, removals
// and lookups, through growth, deleted positions and the move to a map.
func TestTableBehavesLikeAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tb table
		model := map[string]*Entry{}
		// Few distinct keys make removals and reinserts common; many
		// make the table grow past maxGroups.
		keys := rapid.IntRange(1, 3000).Draw(t, "keys")
		for range rapid.IntRange(1, 4000).Draw(t, "ops") {
			k := fmt.Sprintf("k%d", rapid.IntRange(0, keys-1).Draw(t, "key"))
			h := hashKey(k)
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				if model[k] == nil {
					e := &Entry{key: k}
					tb.insert(e, h)
					model[k] = e
				}
			case 1:
				if got, want := tb.remove(k, h), model[k]; got != want {
					t.Fatalf("remove(%s) = %p, want %p", k, got, want)
				}
				delete(model, k)
			case 2:
				if got, want := tb.get(k, h), model[k]; got != want {
					t.Fatalf("get(%s) = %p, want %p", k, got, want)
				}
			}
			if tb.len() != len(model) {
				t.Fatalf("len %d, want %d", tb.len(), len(model))
			}
		}
		seen := map[string]bool{}
		tb.each(rapid.Int().Draw(t, "start"), func(e *Entry) bool {
			if seen[e.key] || model[e.key] != e {
				t.Fatalf("each gave %s twice or not stored", e.key)
			}
			seen[e.key] = true
			return true
		})
		if len(seen) != len(model) {
			t.Fatalf("each gave %d entries, want %d", len(seen), len(model))
		}
	})
}

// each lets its callback remove the entry it is given and still visits
// every other entry once.
func TestTableEachAllowsRemoval(t *testing.T) {
	for _, n := range []int{5, 100, 2000} {
		var tb table
		for i := range n {
			k := fmt.Sprint(i)
			tb.insert(&Entry{key: k}, hashKey(k))
		}
		visited := 0
		tb.each(7, func(e *Entry) bool {
			visited++
			if tb.remove(e.key, hashKey(e.key)) != e {
				t.Fatalf("n=%d: remove(%s) missed", n, e.key)
			}
			return true
		})
		if visited != n || tb.len() != 0 {
			t.Fatalf("n=%d: visited %d, %d left", n, visited, tb.len())
		}
	}
}

// A table of keys that keep coming and going does not grow: rehashing
// drops deleted positions.
func TestTableChurnKeepsItsSize(t *testing.T) {
	var tb table
	for i := range 100_000 {
		k := fmt.Sprint(i)
		tb.insert(&Entry{key: k}, hashKey(k))
		if i >= 40 {
			old := fmt.Sprint(i - 40)
			tb.remove(old, hashKey(old))
		}
	}
	if tb.big != nil || len(tb.groups) > 8 {
		t.Fatalf("41 live keys take %d groups (map: %v)", len(tb.groups), tb.big != nil)
	}
}

// An entry keeps its key whatever its length, in one allocation.
func TestNewEntryKeepsItsKey(t *testing.T) {
	for n := range 200 {
		key := strings.Repeat("k", n)
		e := newEntry(key)
		if e.key != key {
			t.Fatalf("newEntry(%d bytes).key = %q", n, e.key)
		}
		if n == 0 {
			continue
		}
		together := testing.AllocsPerRun(10, func() { newEntry(key) })
		if together > 1 {
			t.Fatalf("newEntry(%d bytes) made %v allocations", n, together)
		}
		// Up to 128 bytes, the key lies right behind the entry, in the
		// room KeyRoom says.
		behind := uintptr(unsafe.Pointer(unsafe.StringData(e.key))) == uintptr(unsafe.Pointer(e))+unsafe.Sizeof(*e)
		if behind != (KeyRoom(n) > 0) || KeyRoom(n) > 0 && KeyRoom(n) < n {
			t.Errorf("newEntry(%d bytes): key behind the entry %v, KeyRoom %d", n, behind, KeyRoom(n))
		}
	}
	// The key's bytes are a copy: changing the caller's buffer leaves
	// the stored key as it was.
	b := []byte("a-sixteen-b-key!")
	e := newEntry(string(b))
	b[0] = 'X'
	if e.key != "a-sixteen-b-key!" {
		t.Fatalf("stored key changed to %q", e.key)
	}
}

func TestKeyRoom(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 0}, {1, 8}, {8, 8}, {9, 16}, {16, 16}, {17, 24}, {24, 24}, {25, 32}, {32, 32},
		{33, 48}, {48, 48}, {49, 64}, {100, 112}, {128, 128}, {129, 0},
	} {
		if got := KeyRoom(tc.n); got != tc.want {
			t.Errorf("KeyRoom(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}
