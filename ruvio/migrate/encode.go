package migrate

import (
	"fmt"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/rdb"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// EntryOps is the commands that rebuild key, holding val and expiring
// at expireAt (Unix ms, 0: never), from nothing: a DEL, then the value
// in commands of at most OpElems elements, then PEXPIREAT. The target
// applies them as one log record, so its replicas and its recovery
// rebuild the key the same way. size is their encoded size.
func EntryOps(key string, val any, expireAt int64) (ops [][][]byte, size int, err error) {
	k := []byte(key)
	ops = append(ops, [][]byte{[]byte("DEL"), k})
	chunked := func(name string, elems [][]byte, per int) {
		for len(elems) > 0 {
			n := min(len(elems), OpElems*per)
			op := append([][]byte{[]byte(name), k}, elems[:n]...)
			ops = append(ops, op)
			elems = elems[n:]
		}
	}
	switch v := val.(type) {
	case []byte:
		ops = append(ops, [][]byte{[]byte("SET"), k, v})
	case *deque.Deque:
		elems := make([][]byte, 0, v.Len())
		for el := range v.All() {
			elems = append(elems, el)
		}
		chunked("RPUSH", elems, 1)
	case map[string]struct{}:
		elems := make([][]byte, 0, len(v))
		for m := range v {
			elems = append(elems, []byte(m))
		}
		chunked("SADD", elems, 1)
	case *hash.Hash:
		// The values alias the hash: the caller copies the ops before
		// the hash may change.
		elems := make([][]byte, 0, 2*v.Len())
		for f, x := range v.Range {
			elems = append(elems, []byte(f), x)
		}
		chunked("HSET", elems, 2)
	case *sortedset.Set:
		elems := make([][]byte, 0, 2*v.Len())
		for it := range v.Each {
			elems = append(elems, []byte(sortedset.FormatScore(it.Score)), []byte(it.Member))
		}
		chunked("ZADD", elems, 2)
	case *stream.Stream:
		// A stream (its entries, groups, pending entries and consumers)
		// travels whole as its DUMP payload, which RESTORE rebuilds.
		payload, err := rdb.Encode(v)
		if err != nil {
			return nil, 0, fmt.Errorf("ERR key %q: %v", key, err)
		}
		ops = append(ops, [][]byte{[]byte("RESTORE"), k, []byte("0"), payload, []byte("REPLACE")})
	default:
		return nil, 0, fmt.Errorf("ERR key %q holds a value of type %T that a slot move cannot carry", key, val)
	}
	if expireAt != 0 {
		ops = append(ops, [][]byte{[]byte("PEXPIREAT"), k, []byte(strconv.FormatInt(expireAt, 10))})
	}
	for _, op := range ops {
		for _, a := range op {
			size += len(a) + 8
		}
	}
	return ops, size, nil
}

// DelOp is the command that removes key: what a dirty key that no
// longer exists sends, and what dropping a range logs.
func DelOp(key string) [][]byte { return [][]byte{[]byte("DEL"), []byte(key)} }
