package memcmd

import (
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// Sizes of Go's headers and of ruvio's structures on a 64-bit platform.
// The structures' fields are private to their packages; the constants
// follow their declarations and must change with them (the tests check
// the estimates against the heap's growth).
const (
	ptr          = 8
	stringHeader = 16
	sliceHeader  = 24
	iface        = 16

	// keyspace.Entry: Val, ExpireAt, its key, and Access with Freq.
	entrySize = iface + 8 + stringHeader + 8

	dequeSize        = sliceHeader + 8 + 8                      // deque.Deque
	hashSize         = sliceHeader + ptr                        // hash.Hash: its packed form or its map
	zsetSize         = sliceHeader + ptr                        // sortedset.Set: its packed form or its skiplist
	zsetList         = 3*ptr + 4*8                              // the skiplist
	zsetHead         = zsetNode + 32*16                         // its sentinel, with every level
	zsetNode         = stringHeader + 8 + ptr + 8               // a node; its levels follow inline
	zsetPacked       = 128                                      // most members of the packed form
	zsetPackedMember = 64                                       // longest member of the packed form
	streamHdr        = sliceHeader + 8 + 3*16 + 8 + ptr + 8 + 8 // stream.Stream
	streamNode       = 3*sliceHeader + 8 + 8                    // a node of entries
	streamEnt        = 16 + sliceHeader                         // stream.Entry
	groupSize        = 16 + 8 + 2*ptr                           // stream.Group
	pendSize         = ptr + 8 + 8                              // stream.Pending
	consSize         = stringHeader + 8 + ptr                   // stream.Consumer
)

// keyCost is what a key of n bytes costs besides its value: its Entry
// with the key's bytes (behind the entry, in the room keyspace.KeyRoom
// gives, or a copy of their own), and its position in its slot's table,
// a pointer and a control byte in a table that, like a Go map, doubles
// at 7/8 full.
func keyCost(n int) int {
	if room := keyspace.KeyRoom(n); room > 0 {
		return class(entrySize+room) + mapSlot(ptr)
	}
	return class(entrySize) + class(n) + mapSlot(ptr)
}

// zsetNodeAvg is the average allocation of a skiplist node with its
// levels inline: a node is 1 level high with probability 3/4, 2 with
// 3/16, and so on; sortedset allocates 1 to 4 levels exactly, then 8, 16
// or 32.
var zsetNodeAvg = func() float64 {
	avg, p := 0.0, 0.75
	for h := 1; h <= maxZsetLevel; h++ {
		alloc := h
		switch {
		case h > 16:
			alloc = 32
		case h > 8:
			alloc = 16
		case h > 4:
			alloc = 8
		}
		avg += p * float64(class(zsetNode+alloc*16))
		p /= 4
	}
	return avg
}()

const maxZsetLevel = 32

// packedZsetSize is a small sorted set's compact form, one byte slice:
// a count and a widths byte, per element a score as narrow as every
// score allows and a member end, then the members back to back.
func packedZsetSize(z *sortedset.Set) (int, bool) {
	if z.Len() > zsetPacked {
		return 0, false
	}
	sw, members := 1, 0
	for it := range z.Each {
		if len(it.Member) > zsetPackedMember {
			return 0, false
		}
		members += len(it.Member)
		switch v := it.Score; {
		case v != float64(int64(v)) || v < -1<<31 || v > 1<<31-1:
			sw = 8
		case (v < -1<<15 || v > 1<<15-1) && sw < 4:
			sw = 4
		case (v < -128 || v > 127) && sw < 2:
			sw = 2
		}
	}
	ew := 1
	if members > 255 {
		ew = 2
	}
	if z.Len() == 0 {
		return 0, true
	}
	return class(2 + z.Len()*(sw+ew) + members), true
}

// class rounds an allocation of n bytes up to the Go allocator's size
// class (runtime/sizeclasses.go); large objects take whole 8 KiB pages.
func class(n int) int {
	if n <= 0 {
		return 0
	}
	if n > sizeClasses[len(sizeClasses)-1] {
		return (n + 8191) &^ 8191
	}
	lo, hi := 0, len(sizeClasses)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if sizeClasses[mid] < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return sizeClasses[lo]
}

var sizeClasses = []int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792,
	2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240,
	10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// mapSlot is the share of one entry of a big Go map whose key and value
// take kv bytes, or of a keyspace table with kv-byte positions: both keep
// groups of 8 positions and a control byte per position, and double at
// 7/8 full, so they are between 7/16 and 7/8 full, two thirds on average.
func mapSlot(kv int) int {
	return (kv + 1) * 3 / 2
}

// mapSlots is how many slots a Go map of n entries has: one group of 8
// for a small map, else a power of two holding n at 7/8 full, up to
// tables of 1024 slots, which split in two when full and so hold 672
// entries on average.
func mapSlots(n int) int {
	if n <= 8 {
		return 8
	}
	if c := pow2((n*8 + 6) / 7); c <= 1024 {
		return c
	}
	return (n + 671) / 672 * 1024
}

// mapSize is a Go map of n entries of kv bytes each: its header, and its
// groups of 8 slots with their control words.
func mapSize(n, kv int) int {
	const header = 48
	if n == 0 {
		return header
	}
	slots := mapSlots(n)
	tables := max(slots/1024, 1)
	return header + tables*(48+class(min(slots, 1024)/8*(8+8*kv)))
}

// pow2 is the smallest power of two at least n.
func pow2(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	return c
}

// sampled walks up to samples of n elements, given by each, adding the
// bytes size gives, and extrapolates to all n.
func sampled[T any](n, samples int, each func(yield func(T) bool), size func(T) int) int {
	sum, seen := 0, 0
	each(func(v T) bool {
		if seen == samples {
			return false
		}
		sum += size(v)
		seen++
		return true
	})
	if seen == 0 {
		return 0
	}
	if seen == n {
		return sum
	}
	return int(float64(sum) / float64(seen) * float64(n))
}

// bytesSize is a []byte held by a value: its backing array.
func bytesSize(b []byte) int { return class(cap(b)) }

// ValueSize is the bytes of a value in ruvio's layout, sampling up to
// samples elements of an aggregate (see the package comment).
func ValueSize(v any, samples int) int {
	switch x := v.(type) {
	case []byte:
		if keyspace.Embedded(v) {
			// Header and bytes in one allocation.
			return class(sliceHeader + cap(x))
		}
		// The interface holds a pointer to the slice header.
		return class(sliceHeader) + bytesSize(x)
	case *deque.Deque:
		// Every allocation, counted: a list is a few per chunk of 128.
		n := class(dequeSize)
		for a := range x.Allocs() {
			n += class(a)
		}
		return n
	case *hash.Hash:
		if x.Encoding() == "listpack" {
			return class(hashSize) + class(x.CompactSize())
		}
		// Each field: its slot in the map, its name and its value.
		return class(hashSize) + mapSize(x.Len(), stringHeader+sliceHeader) + sampled(x.Len(), samples,
			func(yield func([2]int) bool) {
				for f, val := range x.Range {
					if !yield([2]int{len(f), cap(val)}) {
						return
					}
				}
			}, func(fv [2]int) int { return class(fv[0]) + class(fv[1]) })
	case map[string]struct{}:
		return mapSize(len(x), stringHeader) + sampled(len(x), samples,
			func(yield func(int) bool) {
				for m := range x {
					if !yield(len(m)) {
						return
					}
				}
			}, class)
	case *sortedset.Set:
		if b, ok := packedZsetSize(x); ok {
			return class(zsetSize) + b
		}
		// Each member: its node, its name and its entry in the member index.
		per := func(it sortedset.Item) int { return class(len(it.Member)) }
		return class(zsetSize) + class(zsetList) + class(zsetHead) + mapSize(x.Len(), stringHeader+ptr) +
			int(zsetNodeAvg*float64(x.Len())) + sampled(x.Len(), samples, x.Each, per)
	case *stream.Stream:
		return streamSize(x, samples)
	}
	return 0
}

// streamSize is a stream: its nodes of entries, sampled node by node as
// Redis samples a stream's listpacks, and its consumer groups in full.
func streamSize(s *stream.Stream, samples int) int {
	size := class(streamHdr)
	nodes, seen, sum := 0, 0, 0
	s.EachNode(func(ents []stream.Entry, deleted []bool, master [][]byte) {
		nodes++
		if seen == samples {
			return
		}
		seen++
		sum += class(streamNode) + class(cap(ents)*streamEnt) + class(cap(deleted)) + class(cap(master)*sliceHeader)
		for _, e := range ents {
			sum += class(cap(e.Fields) * sliceHeader)
			for _, f := range e.Fields {
				sum += bytesSize(f)
			}
		}
	})
	size += class(pow2(nodes) * ptr)
	if seen > 0 {
		size += int(float64(sum) / float64(seen) * float64(nodes))
	}
	size += mapSize(len(s.Groups), stringHeader+ptr)
	for name, g := range s.Groups {
		size += class(len(name)) + class(groupSize)
		size += mapSize(len(g.PEL), 16+ptr) + len(g.PEL)*class(pendSize)
		size += mapSize(len(g.Consumers), stringHeader+ptr)
		for cname, c := range g.Consumers {
			size += class(len(cname)) + class(consSize) + mapSize(len(c.PEL), 16+ptr)
		}
	}
	return size
}
