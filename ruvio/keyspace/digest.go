package keyspace

import (
	"crypto/sha1"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// Digest summarizes the whole keyspace (keys, types, values and expiry
// times) in 20 bytes that do not depend on the order keys were stored in,
// like Redis's DEBUG DIGEST: two nodes with equal digests hold the same
// data. Each key's hash is XORed into the result; set and hash members
// are hashed in sorted order. An empty keyspace digests to zeros.
func (db *DB) Digest() [20]byte {
	var out [20]byte
	var buf []byte
	for slot := range db.bySlot {
		db.bySlot[slot].each(0, func(e *Entry) bool {
			buf = appendEntry(buf[:0], e.key, e)
			sum := sha1.Sum(buf)
			for i := range out {
				out[i] ^= sum[i]
			}
			return true
		})
	}
	return out
}

func appendField(b []byte, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

func appendEntry(b []byte, key string, e *Entry) []byte {
	b = appendField(b, []byte(key))
	b = binary.AppendVarint(b, e.ExpireAt)
	switch v := e.Val.(type) {
	case []byte:
		b = append(b, 's')
		b = appendField(b, v)
	case *deque.Deque:
		b = append(b, 'l')
		for x := range v.All() {
			b = appendField(b, x)
		}
	case map[string]struct{}:
		b = append(b, 'S')
		for _, m := range slices.Sorted(maps.Keys(v)) {
			b = appendField(b, []byte(m))
		}
	case *hash.Hash:
		// Sorted by field, so neither the form nor the insertion order
		// shows.
		b = append(b, 'h')
		type pair struct {
			f string
			v []byte
		}
		pairs := make([]pair, 0, v.Len())
		for f, val := range v.Range {
			pairs = append(pairs, pair{f, val})
		}
		slices.SortFunc(pairs, func(x, y pair) int { return strings.Compare(x.f, y.f) })
		for _, p := range pairs {
			b = appendField(b, []byte(p.f))
			b = appendField(b, p.v)
		}
	case *sortedset.Set:
		b = append(b, 'z')
		for _, it := range v.ByRank(0, v.Len()-1, false) {
			b = appendField(b, []byte(it.Member))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(it.Score))
		}
	case *stream.Stream:
		b = append(b, 'x')
		b = v.AppendDigest(b)
	}
	return b
}
