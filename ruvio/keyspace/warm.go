package keyspace

import (
	"unsafe"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// WarmMax is the most keys Warm fetches at once.
const WarmMax = 16

// warmMinKeys is the size below which a keyspace is not worth warming:
// a few thousand keys, their tables and values fit in a processor's
// second-level cache, where fetching ahead only costs the time to read
// the upcoming keys.
const warmMinKeys = 4096

// WarmWorthwhile reports whether the keyspace holds enough keys for Warm
// to pay for finding the keys to warm.
func (db *DB) WarmWorthwhile() bool { return db.count >= warmMinKeys }

// Warm brings into the processor's caches what looking keys up will
// read: each key's slot cell, the group its probe starts at, the entry
// there and the entry's value. With many keys and random requests each
// of those is a cache miss, and a lookup takes them one after the other:
// with 100k keys they were a quarter of a server's time serving a
// pipeline of GETs and a third of a replica's applying its primary's
// records. A caller that knows the keys it will look up next (the
// commands of a pipeline, the records buffered behind the one it
// applies) warms them together, as Redis's batch prefetching does: in
// four rounds, each reading only what the round before fetched and
// asking, with a prefetch instruction, for the next lines of every key
// without waiting for any, so the misses of different keys overlap.
//
// Warm only reads, and only hints: a key warmed and never looked up
// costs a wasted fetch. It must be called under the lock that guards db.
// Keys past WarmMax are ignored.
func (db *DB) Warm(keys [][]byte) {
	var spots [WarmMax]Spot
	n := min(len(keys), WarmMax)
	for i, key := range keys[:n] {
		spots[i] = Spot{Slot: slots.Of(key), Hash: HashKey(key)}
	}
	db.WarmSpots(spots[:n])
}

// A Spot is where a key lives in a keyspace: its slot and its hash
// (HashKey). A caller that looks ahead for several keyspaces finds each
// key's once, and warms each keyspace's keys with WarmSpots.
type Spot struct {
	Slot int
	Hash uint64
}

// HashKey is the hash a keyspace's tables place key by.
func HashKey(key []byte) uint64 { return hashKey(unsafe.String(unsafe.SliceData(key), len(key))) }

// WarmSpots is Warm for keys the caller found the spots of.
func (db *DB) WarmSpots(spots []Spot) {
	var at [WarmMax]struct {
		t *table
		h uint64
		e *Entry
	}
	n := min(len(spots), WarmMax)
	for i := range n {
		t := &db.bySlot[spots[i].Slot]
		at[i].t, at[i].h = t, spots[i].Hash
		prefetch(uintptr(unsafe.Pointer(t)))
	}
	for i := range n {
		t := at[i].t
		if t.big != nil || len(t.groups) == 0 {
			at[i].t = nil
			continue
		}
		g := &t.groups[int(at[i].h>>7)&(len(t.groups)-1)]
		prefetch(uintptr(unsafe.Pointer(g)))
		prefetch(uintptr(unsafe.Pointer(g)) + 64)
	}
	for i := range n {
		t := at[i].t
		if t == nil {
			continue
		}
		g := &t.groups[int(at[i].h>>7)&(len(t.groups)-1)]
		if m := matchTag(g.ctrl, uint8(at[i].h&0x7f)); m != 0 {
			if e := g.ents[bitsIndex(m)]; e != nil {
				at[i].e = e
				// The entry, and the key's bytes behind it (newEntry),
				// which start on the next line for most entries whose
				// size class is not a multiple of 64 bytes.
				prefetch(uintptr(unsafe.Pointer(e)))
				prefetch(uintptr(unsafe.Pointer(e)) + unsafe.Sizeof(*e))
			}
		}
	}
	for i := range n {
		// The data word of the value's interface: for a string the slice
		// header, with the bytes behind it.
		if e := at[i].e; e != nil {
			if p := (*[2]unsafe.Pointer)(unsafe.Pointer(&e.Val))[1]; p != nil {
				prefetch(uintptr(p))
			}
		}
	}
}
