package keyspace

import (
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// A table holds the keys of one slot. It is an open-addressing hash table
// in the manner of Go's own maps (Swiss tables): groups of eight entries,
// each group led by eight control bytes that say, per position, whether it
// is empty, deleted, or full and then seven bits of the key's hash. Unlike
// a Go map it stores only a pointer per key, since an Entry carries its
// key, and it is laid out inline in the DB's array of slots. A lookup then
// reads the slot's array cell, one group and the entry it names, where a
// per-slot Go map also read the map's header and the key's bytes in a
// third place; and a key costs 9 bytes of table instead of 25.
//
// A slot that outgrows maxGroups groups (hash tags can put a whole data
// set in one slot) moves into a Go map, which grows a piece at a time, so
// no single insert rehashes more than maxGroups*groupSize entries.
type table struct {
	groups []group
	n      int32 // live entries
	dead   int32 // deleted positions, which probes walk past
	big    map[string]*Entry
}

const (
	groupSize = 8
	maxGroups = 128

	ctrlEmpty   = 0x80
	ctrlDeleted = 0xfe

	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

type group struct {
	ctrl uint64 // byte i describes ents[i]
	ents [groupSize]*Entry
}

var hashSeed = maphash.MakeSeed()

// hashKey is the hash a table files key under: the low seven bits go in
// the control byte, the rest choose the first group probed.
func hashKey(key string) uint64 { return maphash.String(hashSeed, key) }

// matchTag is a bit (the top one of each byte) per position of ctrl whose
// byte is tag. A position next to a true match can be reported when it is
// not one: callers compare the key. Empty and deleted bytes never match.
func matchTag(ctrl uint64, tag uint8) uint64 {
	x := ctrl ^ (lsbs * uint64(tag))
	return (x - lsbs) &^ x & msbs
}

// matchEmpty is a bit per empty position.
func matchEmpty(ctrl uint64) uint64 { return ctrl &^ (ctrl << 6) & msbs }

// matchFree is a bit per empty or deleted position.
func matchFree(ctrl uint64) uint64 { return ctrl & msbs }

// bitsIndex is the position of the lowest bit a match set.
func bitsIndex(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

func setCtrl(ctrl uint64, i int, b uint8) uint64 {
	shift := uint(i) * 8
	return ctrl&^(0xff<<shift) | uint64(b)<<shift
}

// maxLoad is how many entries size groups hold before they grow: all
// eight of a lone group (a lookup reads the whole group anyway), seven in
// eight otherwise, so a probe meets an empty position soon.
func maxLoad(size int) int {
	if size == 1 {
		return groupSize
	}
	return size * groupSize * 7 / 8
}

func (t *table) len() int {
	if t.big != nil {
		return len(t.big)
	}
	return int(t.n)
}

// get returns key's entry, or nil. h is hashKey(key).
func (t *table) get(key string, h uint64) *Entry {
	if t.big != nil {
		return t.big[key]
	}
	if g, i := t.find(key, h); g != nil {
		return g.ents[i]
	}
	return nil
}

// find returns the group and position of key, or a nil group when the
// table does not hold it. t must not be a map.
func (t *table) find(key string, h uint64) (*group, int) {
	size := len(t.groups)
	if size == 0 {
		return nil, 0
	}
	mask := size - 1
	g := int(h>>7) & mask
	tag := uint8(h & 0x7f)
	for range size {
		gr := &t.groups[g]
		for m := matchTag(gr.ctrl, tag); m != 0; m &= m - 1 {
			if i := bitsIndex(m); gr.ents[i] != nil && gr.ents[i].key == key {
				return gr, i
			}
		}
		if matchEmpty(gr.ctrl) != 0 {
			return nil, 0
		}
		g = (g + 1) & mask
	}
	return nil, 0
}

// insert adds e, whose key the table must not hold. h is hashKey(e.key).
func (t *table) insert(e *Entry, h uint64) {
	if t.big != nil {
		t.big[e.key] = e
		return
	}
	if int(t.n+t.dead) >= maxLoad(len(t.groups)) {
		t.rehash()
		if t.big != nil {
			t.big[e.key] = e
			return
		}
	}
	t.place(e, h)
	t.n++
}

// place puts e in the first empty or deleted position of its probe.
func (t *table) place(e *Entry, h uint64) {
	mask := len(t.groups) - 1
	g := int(h>>7) & mask
	for {
		gr := &t.groups[g]
		if m := matchFree(gr.ctrl); m != 0 {
			i := bits.TrailingZeros64(m) >> 3
			if uint8(gr.ctrl>>(uint(i)*8)) == ctrlDeleted {
				t.dead--
			}
			gr.ctrl = setCtrl(gr.ctrl, i, uint8(h&0x7f))
			gr.ents[i] = e
			return
		}
		g = (g + 1) & mask
	}
}

// rehash makes room for one more entry: the smallest size whose load
// takes the live entries and one more, which drops deleted positions and
// grows the table when it must. A slot past maxGroups moves to a Go map.
func (t *table) rehash() {
	need := int(t.n) + 1
	size := 1
	for maxLoad(size) < need {
		size *= 2
	}
	old := t.groups
	if size > maxGroups {
		t.big = make(map[string]*Entry, need)
		for i := range old {
			for _, e := range old[i].ents {
				if e != nil {
					t.big[e.key] = e
				}
			}
		}
		t.groups, t.n, t.dead = nil, 0, 0
		return
	}
	t.groups = make([]group, size)
	for i := range t.groups {
		t.groups[i].ctrl = lsbs * ctrlEmpty
	}
	t.dead = 0
	for i := range old {
		for _, e := range old[i].ents {
			if e != nil {
				t.place(e, hashKey(e.key))
			}
		}
	}
}

// remove deletes key and returns its entry, or nil when it was absent. h
// is hashKey(key).
func (t *table) remove(key string, h uint64) *Entry {
	if t.big != nil {
		e := t.big[key]
		delete(t.big, key)
		return e
	}
	g, i := t.find(key, h)
	if g == nil {
		return nil
	}
	e := g.ents[i]
	// A probe stops at a group with an empty position, so a position
	// freed in such a group (or in a lone group) can be empty again;
	// elsewhere it must stay deleted for the probes that walk past it.
	if len(t.groups) == 1 || matchEmpty(g.ctrl) != 0 {
		g.ctrl = setCtrl(g.ctrl, i, ctrlEmpty)
	} else {
		g.ctrl = setCtrl(g.ctrl, i, ctrlDeleted)
		t.dead++
	}
	g.ents[i] = nil
	t.n--
	return e
}

// each calls fn for every entry, starting at a position picked by start
// (any number: sampling passes a random one), until fn returns false; it
// reports whether fn never did. fn may remove entries from the table but
// must not add any.
func (t *table) each(start int, fn func(e *Entry) bool) bool {
	if t.big != nil {
		for _, e := range t.big {
			if !fn(e) {
				return false
			}
		}
		return true
	}
	size := len(t.groups)
	if size == 0 {
		return true
	}
	first := uint(start) % uint(size*groupSize)
	for n := range uint(size * groupSize) {
		pos := (first + n) % uint(size*groupSize)
		if e := t.groups[pos/groupSize].ents[pos%groupSize]; e != nil {
			if !fn(e) {
				return false
			}
		}
	}
	return true
}

// newEntry returns an empty entry for key, with the key's bytes copied in
// behind it when KeyRoom leaves room for them, else kept as given.
func newEntry(key string) *Entry {
	switch KeyRoom(len(key)) {
	case 8:
		return withKey[[8]byte](key)
	case 16:
		return withKey[[16]byte](key)
	case 24:
		return withKey[[24]byte](key)
	case 32:
		return withKey[[32]byte](key)
	case 48:
		return withKey[[48]byte](key)
	case 64:
		return withKey[[64]byte](key)
	case 80:
		return withKey[[80]byte](key)
	case 96:
		return withKey[[96]byte](key)
	case 112:
		return withKey[[112]byte](key)
	case 128:
		return withKey[[128]byte](key)
	}
	return &Entry{key: key}
}

// KeyRoom is the room newEntry leaves behind an entry for a key of n
// bytes, 0 when the key is kept as given. Keys of up to 128 bytes share
// their entry's allocation: a lookup then finds the key it compares in
// the lines it reads for the entry, instead of in a third place, and the
// collector has one object to mark, not two. The room is a multiple of 8
// bytes up to 24 and of 16 above, which fills the entry's size class. For
// keys of 1 to 8 and 17 to 24 bytes the combined object is 8 bytes bigger
// than the entry and a separate copy of the key: the price of the cache
// miss a lookup no longer takes, which was 8% of a server's CPU under a
// pipelined INCR of 20-byte keys.
func KeyRoom(n int) int {
	switch {
	case n <= 0 || n > 128:
		return 0
	case n <= 24:
		return (n + 7) &^ 7
	}
	return (n + 15) &^ 15
}

// keyed is an Entry with room for its key's bytes behind it.
type keyed[B any] struct {
	Entry
	buf B
}

// withKey allocates an Entry with key's bytes copied behind it in a
// buffer of type B, a byte array at least as long as key. The entry's key
// points into its own allocation, which keeps the whole object alive.
func withKey[B any](key string) *Entry {
	x := new(keyed[B])
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&x.buf)), unsafe.Sizeof(x.buf))
	copy(buf, key)
	x.key = unsafe.String(&buf[0], len(key))
	return &x.Entry
}
