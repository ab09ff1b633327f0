package keyspace

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// Warm only hints: warming present and absent keys (their spots known
// or not), interleaved with
// writes that grow tables, move a slot to a map, delete keys and flush,
// leaves every lookup answering as a keyspace that was never warmed.
func TestWarmNeverChangesAnswers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		db := New(func() int64 { return 1 })
		model := map[string]string{}
		var warm [][]byte
		keys := rapid.IntRange(1, 2000).Draw(t, "keys")
		key := func(label string) string {
			// A shared hash tag puts some keys in one slot, which grows
			// past its groups into a map.
			k := rapid.IntRange(0, keys-1).Draw(t, label)
			if k%2 == 0 {
				return fmt.Sprintf("{tag}%d", k)
			}
			return fmt.Sprintf("key:%012d", k)
		}
		for range rapid.IntRange(1, 3000).Draw(t, "ops") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2:
				warm = append(warm, []byte(key("warm")))
			case 3:
				// More than WarmMax keys at times: the rest are ignored.
				if rapid.Bool().Draw(t, "spots known") {
					spots := make([]Spot, len(warm))
					for i, k := range warm {
						spots[i] = Spot{Slot: slots.Of(k), Hash: HashKey(k)}
					}
					db.WarmSpots(spots)
				} else {
					db.Warm(warm)
				}
				warm = warm[:0]
			case 4, 5:
				k := key("set")
				db.Set(k, []byte(k))
				model[k] = k
			case 6:
				k := key("del")
				db.Delete(k)
				delete(model, k)
			case 7:
				if rapid.IntRange(0, 50).Draw(t, "flush") == 0 {
					db.Flush()
					clear(model)
				}
			default:
				k := key("get")
				e := db.Get(k)
				if want, ok := model[k]; ok != (e != nil) || ok && string(e.Val.([]byte)) != want {
					t.Fatalf("Get(%s) = %v, want %q (present %v)", k, e, want, ok)
				}
			}
		}
	})
}

// Warming starts to pay once the keys outgrow a processor's caches.
func TestWarmWorthwhileFromAFewThousandKeys(t *testing.T) {
	db := New(func() int64 { return 1 })
	for i := range warmMinKeys - 1 {
		db.Set(fmt.Sprint(i), []byte("v"))
	}
	if db.WarmWorthwhile() {
		t.Fatalf("worth warming at %d keys", db.Len())
	}
	db.Set("one more", []byte("v"))
	if !db.WarmWorthwhile() {
		t.Fatalf("not worth warming at %d keys", db.Len())
	}
}
