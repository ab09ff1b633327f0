package keyspace

import (
	"unsafe"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// A Warmer brings into the processor's caches, ahead of time, what
// looking a key up will read: its slot's cell, the group its probe starts
// at, the entry there and the entry's value. Each of those is a cache
// miss when keys are many and requests random, and a lookup takes them
// one after the other: with 100k keys they were a third of a replica's
// time applying its primary's records. A caller that knows the keys it
// will look up next (the records buffered behind the one it applies, the
// commands of a pipeline) pushes each a few lookups before it needs it.
// Every push moves each key in flight one step on, as Redis's batch
// prefetching does: the step reads only what the step before fetched and
// asks for the next line without waiting for it.
//
// A Warmer only reads, and only hints: a key pushed and never looked up,
// or a table changed between steps, costs a wasted fetch. It must be used
// under the lock that guards its DB, and holds no pointer between pushes.
type Warmer struct {
	db    *DB
	ring  [WarmSteps]warmKey
	count int
}

// WarmSteps is how many pushes a key takes to be fully fetched: cell,
// group, entry, value. A key is best pushed WarmSteps-1 lookups before
// its own.
const WarmSteps = 4

type warmKey struct {
	slot int32
	live bool
	h    uint64
}

// Reset points the Warmer at db and forgets the keys in flight.
func (w *Warmer) Reset(db *DB) { *w = Warmer{db: db} }

// Push starts fetching what a lookup of key reads, and moves the keys
// pushed before it on by one step.
func (w *Warmer) Push(key []byte) {
	w.advance()
	k := &w.ring[w.count%WarmSteps]
	slot, h := slots.Of(key), hashKey(unsafe.String(unsafe.SliceData(key), len(key)))
	*k = warmKey{slot: int32(slot), live: true, h: h}
	prefetch(uintptr(unsafe.Pointer(&w.db.bySlot[slot])))
	w.count++
}

// Skip moves the keys in flight on by one step without adding one, for
// a lookup that has no key worth fetching.
func (w *Warmer) Skip() {
	w.advance()
	w.ring[w.count%WarmSteps] = warmKey{}
	w.count++
}

// advance takes the keys pushed one, two and three pushes ago to their
// group, entry and value.
func (w *Warmer) advance() {
	for age := 1; age < WarmSteps; age++ {
		k := &w.ring[(w.count-age+WarmSteps*2)%WarmSteps]
		if !k.live {
			continue
		}
		t := &w.db.bySlot[k.slot]
		if t.big != nil || len(t.groups) == 0 {
			k.live = false
			continue
		}
		g := &t.groups[int(k.h>>7)&(len(t.groups)-1)]
		switch age {
		case 1:
			prefetch(uintptr(unsafe.Pointer(g)))
			prefetch(uintptr(unsafe.Pointer(g)) + 64)
		case 2, 3:
			m := matchTag(g.ctrl, uint8(k.h&0x7f))
			if m == 0 {
				k.live = false
				continue
			}
			e := g.ents[bitsIndex(m)]
			if e == nil {
				k.live = false
				continue
			}
			if age == 2 {
				prefetch(uintptr(unsafe.Pointer(e)))
				continue
			}
			// The data word of the value's interface: for a string the
			// slice header, with the bytes behind it.
			if p := (*[2]unsafe.Pointer)(unsafe.Pointer(&e.Val))[1]; p != nil {
				prefetch(uintptr(p))
			}
		}
	}
}
