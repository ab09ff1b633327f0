package keyspace

import (
	"maps"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// Snapshots are copy-on-write at key granularity. BeginSnapshot marks the
// instant (under the shard's lock, so it matches one log sequence). A
// snapshot then walks the slots in order, a few at a time, under the lock.
// Before any key in a slot not yet walked changes, WillModify keeps a deep
// copy of its value as it was at the instant (or notes that it was
// absent). The walk emits, for each slot, the kept copies and the keys that
// did not change: together, the keyspace exactly as it was at the instant,
// while writes go on. A key is copied at most once per snapshot, and only
// if it is written before its slot is saved.

type cowState struct {
	// cursor is the first slot not yet emitted.
	cursor int
	// before holds, per slot, the values of keys changed since the
	// instant; a nil *Entry means the key did not exist then.
	before map[int]map[string]*Entry
	// frozen holds, per slot, the whole table a FLUSH swapped out while
	// the slot was not yet emitted: nothing writes to it any more.
	frozen map[int]table
}

// BeginSnapshot starts a copy-on-write image of the keyspace as it is now.
func (db *DB) BeginSnapshot() {
	db.cow = &cowState{before: map[int]map[string]*Entry{}, frozen: map[int]table{}}
}

// EndSnapshot drops the snapshot state; writes stop paying for copies.
func (db *DB) EndSnapshot() { db.cow = nil }

// Snapshotting reports whether a snapshot is in progress.
func (db *DB) Snapshotting() bool { return db.cow != nil }

// WillModify must be called before key changes in any way, while a
// snapshot may be running. The keyspace calls it itself for changes it
// makes (Set, Delete, expiry, Rename); the server calls it for every key of
// a write command before running it, since commands change values in place.
func (db *DB) WillModify(key string) {
	if db.cow == nil {
		return
	}
	slot := db.keySlot(key)
	if slot < db.cow.cursor {
		return
	}
	kept := db.cow.before[slot]
	if _, done := kept[key]; done {
		return
	}
	if kept == nil {
		kept = map[string]*Entry{}
		db.cow.before[slot] = kept
	}
	var e *Entry
	if ft, ok := db.cow.frozen[slot]; ok {
		e = ft.get(key, hashKey(key))
	} else {
		e = db.raw(key)
	}
	if e == nil {
		kept[key] = nil
		return
	}
	kept[key] = &Entry{Val: CloneValue(e.Val), ExpireAt: e.ExpireAt}
}

// SnapshotSlot emits every key of slot as it was when BeginSnapshot ran,
// and marks the slot done so its keys are no longer copied. Slots must be
// emitted in increasing order. fn must not keep e past the call.
func (db *DB) SnapshotSlot(slot int, fn func(key string, e *Entry)) {
	c := db.cow
	kept := c.before[slot]
	base, isFrozen := c.frozen[slot]
	if !isFrozen {
		base = db.bySlot[slot]
	}
	base.each(0, func(e *Entry) bool {
		if _, changed := kept[e.key]; !changed {
			fn(e.key, e)
		}
		return true
	})
	for k, e := range kept {
		if e != nil {
			fn(k, e)
		}
	}
	delete(c.before, slot)
	delete(c.frozen, slot)
	c.cursor = slot + 1
}

// freezeForSnapshot hands the slot tables a FLUSH is about to drop to the
// running snapshot, so the image keeps them.
func (db *DB) freezeForSnapshot() {
	if db.cow == nil {
		return
	}
	for s := db.cow.cursor; s < slots.Count; s++ {
		if _, ok := db.cow.frozen[s]; ok {
			continue
		}
		// An empty slot stays empty in the image even if keys are
		// created in it after the flush.
		db.cow.frozen[s] = db.bySlot[s]
	}
}

// CloneValue deep-copies a stored value, so later in-place changes to the
// original do not reach the copy. A string keeps its layout (Embedded),
// as Redis's COPY keeps a string's encoding.
func CloneValue(v any) any {
	switch x := v.(type) {
	case []byte:
		if Embedded(v) {
			return NewString(x)
		}
		return append([]byte(nil), x...)
	case *hash.Hash:
		return x.Clone()
	case map[string]struct{}:
		return maps.Clone(x)
	case *deque.Deque:
		return x.Clone()
	case *sortedset.Set:
		return x.Clone()
	case *stream.Stream:
		return x.Clone()
	}
	return v
}
