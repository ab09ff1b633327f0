package keyspace

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// Redis's DEBUG DIGEST, computed the same way, so that a dataset copied
// between Redis and ruvio digests alike on both.
//
// Redis builds it from two steps on a 20-byte digest d: xor(d, p) XORs
// SHA-1(p) into d, which does not depend on order, and mix(d, p) sets d
// to SHA-1(xor(d, p)), which does. A key's digest mixes the key's name,
// its type number and its value (list elements and stream entries in
// order; set members XORed; a hash's field-value pairs and a sorted
// set's member-score pairs each digested alone and XORed in as p), and
// XORs in the text "!!expire!!" when the key has a time to live. The
// dataset's digest starts from the database number mixed into zeros and
// XORs in every key's digest as p; an empty dataset's is all zeros.

// Digest20 is a digest in Redis's DEBUG DIGEST form.
type Digest20 [20]byte

func (d *Digest20) xor(p []byte) {
	sum := sha1.Sum(p)
	for i := range d {
		d[i] ^= sum[i]
	}
}

func (d *Digest20) mix(p []byte) {
	d.xor(p)
	*d = sha1.Sum(d[:])
}

// XorIn XORs another digest into d.
func (d *Digest20) XorIn(o Digest20) {
	for i := range d {
		d[i] ^= o[i]
	}
}

// Hex renders d as DEBUG DIGEST answers it.
func (d Digest20) Hex() string { return hex.EncodeToString(d[:]) }

// Redis's type numbers (OBJ_STRING and the others), which the digest mixes
// in.
const (
	redisString = 0
	redisList   = 1
	redisSet    = 2
	redisZSet   = 3
	redisHash   = 4
	redisStream = 6
)

// DatasetDigest is how the database numbered db starts the dataset's
// digest when it holds keys: its number mixed into zeros. The dataset's
// digest is that XORed with the RedisDigest of every part of the
// keyspace.
func DatasetDigest(db uint32) Digest20 {
	var d Digest20
	d.mix([]byte{byte(db >> 24), byte(db >> 16), byte(db >> 8), byte(db)})
	return d
}

// RedisDigest returns what the keys the keyspace holds, expired or not,
// add to the dataset's digest (the XOR of the SHA-1 of each key's digest),
// and how many keys went in.
func (db *DB) RedisDigest() (Digest20, int) {
	var out Digest20
	n := 0
	for slot := range db.bySlot {
		db.bySlot[slot].each(0, func(e *Entry) bool {
			var d Digest20
			d.mix([]byte(e.key))
			valueDigest(&d, e)
			out.xor(d[:])
			n++
			return true
		})
	}
	return out, n
}

// ValueDigest is DEBUG DIGEST-VALUE's digest of key: its type, value and
// whether it expires, without its name; zeros for a key not held. Like
// Redis's, it reads a key whose time has passed but that is still stored.
func (db *DB) ValueDigest(key string) Digest20 {
	var d Digest20
	if e := db.raw(key); e != nil {
		valueDigest(&d, e)
	}
	return d
}

// valueDigest adds the type, value and expiry of e to d.
func valueDigest(d *Digest20, e *Entry) {
	typ := func(t byte) { d.mix([]byte{0, 0, 0, t}) }
	var num [32]byte
	switch v := e.Val.(type) {
	case []byte:
		typ(redisString)
		d.mix(v)
	case *deque.Deque:
		typ(redisList)
		for x := range v.All() {
			d.mix(x)
		}
	case map[string]struct{}:
		typ(redisSet)
		for m := range v {
			d.xor([]byte(m))
		}
	case *sortedset.Set:
		typ(redisZSet)
		for _, it := range v.ByRank(0, v.Len()-1, false) {
			var pair Digest20
			pair.mix([]byte(it.Member))
			pair.mix(sortedset.AppendScore(num[:0], it.Score))
			d.xor(pair[:])
		}
	case *hash.Hash:
		typ(redisHash)
		for f, val := range v.Range {
			var pair Digest20
			pair.mix([]byte(f))
			pair.mix(val)
			d.xor(pair[:])
		}
	case *stream.Stream:
		typ(redisStream)
		v.Range(stream.ID{}, stream.Max, false, func(en stream.Entry) bool {
			id := strconv.AppendUint(num[:0], en.ID.Ms, 10)
			id = append(id, '.')
			d.mix(strconv.AppendUint(id, en.ID.Seq, 10))
			for _, f := range en.Fields {
				d.mix(f)
			}
			return true
		})
	}
	if e.ExpireAt != 0 {
		d.xor([]byte("!!expire!!"))
	}
}
