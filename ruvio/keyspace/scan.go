package keyspace

import (
	"iter"
	"math/bits"
	"math/rand/v2"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// Each calls fn for every live key until fn returns false.
func (db *DB) Each(fn func(key string, e *Entry) bool) {
	now := db.Now()
	for slot := range db.bySlot {
		live := db.bySlot[slot].each(0, func(e *Entry) bool {
			return (e.ExpireAt != 0 && e.ExpireAt <= now) || fn(e.key, e)
		})
		if !live {
			return
		}
	}
}

// ScanSlot calls fn for every live key of slot. A SCAN cursor walks slots
// in order, which gives Redis's guarantee: a key present for the whole
// iteration is returned at least once.
func (db *DB) ScanSlot(slot int, fn func(key string, e *Entry)) {
	now := db.Now()
	db.bySlot[slot].each(0, func(e *Entry) bool {
		if e.ExpireAt == 0 || e.ExpireAt > now {
			fn(e.key, e)
		}
		return true
	})
}

// ScanSlotRemovingExpired is ScanSlot for SCAN, which removes the expired
// keys it comes across (on a primary), as Redis's SCAN does.
func (db *DB) ScanSlotRemovingExpired(slot int, fn func(key string, e *Entry)) {
	now := db.Now()
	var expired []*Entry
	db.bySlot[slot].each(0, func(e *Entry) bool {
		if e.ExpireAt == 0 || e.ExpireAt > now {
			fn(e.key, e)
		} else {
			expired = append(expired, e)
		}
		return true
	})
	for _, e := range expired {
		db.gone(e, e.key, now)
	}
}

// SlotLen is the number of keys stored in slot (expired ones included).
func (db *DB) SlotLen(slot int) int { return db.bySlot[slot].len() }

// RandomKey returns a random live key, or "" and false when there is none.
func (db *DB) RandomKey() (string, bool) {
	if db.count == 0 {
		return "", false
	}
	// Pick a random starting slot and take the first live key from there:
	// not uniform across keys, as Redis's is not either, but never stuck.
	for tries := 0; tries < 100; tries++ {
		// Get may remove an expired key and empty its slot: usedSlots
		// looks for each next slot after the last one was tried.
		for slot := range db.usedSlots(rand.IntN(slots.Count)) {
			var key string
			found := false
			db.bySlot[slot].each(rand.Int(), func(e *Entry) bool {
				key, found = e.key, true
				return false
			})
			if found && db.Get(key) != nil {
				return key, true
			}
		}
		if db.count == 0 {
			break
		}
	}
	return "", false
}

// ActiveExpire samples keys with a time to live and removes the expired
// ones, repeating while more than a quarter of a sample had expired, up to
// maxRounds samples. It returns how many keys it removed.
func (db *DB) ActiveExpire(maxRounds int) int {
	if db.Replica || db.Loading || db.ActiveExpireOff {
		return 0
	}
	removed := 0
	for round := 0; round < maxRounds && len(db.expires) > 0; round++ {
		now := db.Now()
		sampled, expired := 0, 0
		// Map iteration starts at a random position, which makes this a
		// random sample of the keys that have a time to live.
		var victims []string
		for k := range db.expires {
			if sampled == 20 {
				break
			}
			sampled++
			if e := db.raw(k); e != nil && e.ExpireAt <= now {
				victims = append(victims, k)
			}
		}
		for _, k := range victims {
			db.expire(k)
			expired++
		}
		removed += expired
		if expired*4 <= sampled {
			break
		}
	}
	return removed
}

// usedSlots yields the slots that hold keys, from the first at or after
// from onwards, wrapping past the last slot, each at most once. Each next
// slot is looked up once the caller's loop body has run, so one it
// emptied meanwhile is skipped.
func (db *DB) usedSlots(from int) iter.Seq[int] {
	return func(yield func(int) bool) {
		// covered counts the positions from from on already looked at.
		for covered := 0; covered < slots.Count; {
			slot := db.usedFrom((from + covered) % slots.Count)
			if slot < 0 {
				return
			}
			dist := (slot - from + slots.Count) % slots.Count
			if dist < covered || !yield(slot) {
				return // wrapped past from, or the caller stopped
			}
			covered = dist + 1
		}
	}
}

// usedFrom returns the first slot at or after from, wrapping past the
// last slot, that holds a key; -1 when none does.
func (db *DB) usedFrom(from int) int {
	const words = slots.Count / 64
	w := from / 64
	// The first word without the slots before from, then every word
	// once, then the first word's slots before from.
	if m := db.used[w] >> (from % 64); m != 0 {
		return from + bits.TrailingZeros64(m)
	}
	for i := 1; i <= words; i++ {
		j := (w + i) % words
		if m := db.used[j]; m != 0 {
			return j*64 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// EachStored calls fn for every key the keyspace holds, expired or not,
// in slot order: what a snapshot of it would hold.
func (db *DB) EachStored(fn func(key string, e *Entry)) {
	for slot := range db.bySlot {
		db.bySlot[slot].each(0, func(e *Entry) bool {
			fn(e.key, e)
			return true
		})
	}
}
