package hllcmd

import (
	"encoding/binary"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// Error replies of the HyperLogLog commands, in Redis 7's words.
const (
	errNotHLL  = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errCorrupt = "INVALIDOBJ Corrupted HLL object detected"
)

// Specs returns the HyperLogLog commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	f := command.Family("hyperloglog")
	return []*command.Spec{
		f.Spec("pfadd", -2, command.Write|command.DenyOOM|command.Fast, pfadd),
		f.Spec("pfcount", -2, command.ReadOnly|command.MayReplicate, pfcount).KeysAt(1, -1, 1),
		f.Spec("pfmerge", -2, command.Write|command.DenyOOM, pfmerge).KeysAt(1, -1, 1),
		f.Spec("pfdebug", 3, command.Write|command.DenyOOM|command.Admin, pfdebug).KeysAt(2, 2, 1),
		f.Spec("pfselftest", 1, command.Admin, pfselftest).KeysAt(0, 0, 0),
	}
}

// lookup returns the HLL at e (nil for a missing key), answering
// WRONGTYPE for another type or a string that is not an HLL.
func lookup(c *command.Ctx, e *keyspace.Entry) ([]byte, bool) {
	if e == nil {
		return nil, true
	}
	s, ok := e.Val.([]byte)
	if !ok {
		c.W.Error(command.ErrWrongType)
		return nil, false
	}
	if !valid(s) {
		c.W.Error(errNotHLL)
		return nil, false
	}
	return s, true
}

// sparseMaxBytes is hll-sparse-max-bytes: the size past which a sparse
// value turns dense.
func sparseMaxBytes(db *keyspace.DB) int64 {
	return db.Shapes.Get().HLLSparseBytes
}

// pfadd is PFADD key [element ...]: 1 when a register changed or the key
// was created, else 0. It is a function of the value and the elements, so
// it replays as sent.
func pfadd(c *command.Ctx) {
	key := string(c.Args[1])
	e := c.DB.Get(key)
	if _, ok := lookup(c, e); !ok {
		return
	}
	var s []byte
	var ok bool
	updated := 0
	limit := sparseMaxBytes(c.DB)
	if e == nil {
		s = newSparse()
		e = c.DB.Set(key, s)
		updated++
	} else {
		// Changed in place, as Redis changes its raw value: the first
		// change copies a value stored whole (RESTORE, SET).
		s = keyspace.Unshare(e)
	}
	for _, elem := range c.Args[2:] {
		idx, count := patLen(elem)
		var changed bool
		s, changed, ok = add(s, idx, count, limit)
		e.Val = s
		if !ok {
			if updated > 0 {
				c.DB.Touch(key)
				c.Dirty++
			}
			c.W.Error(errCorrupt)
			return
		}
		if changed {
			updated++
		}
	}
	if updated > 0 {
		invalidateCache(s)
		c.DB.Touch(key)
		c.Dirty++
		c.NotifyString(notify.String, "pfadd", key)
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// pfcount is PFCOUNT key [key ...]: the estimated size of the union.
// With one key it answers the cached cardinality when valid, else
// computes it and caches it in the value's header, as Redis does: that
// changes the string, so WATCH on the key fails, and on a primary the
// command is logged to carry the same bytes to replicas.
func pfcount(c *command.Ctx) {
	if len(c.Args) > 2 {
		var regs [registers]uint8
		for _, k := range c.Args[1:] {
			s, ok := lookup(c, c.DB.Read(string(k)))
			if !ok {
				return
			}
			if s != nil && !mergeInto(&regs, s) {
				c.W.Error(errCorrupt)
				return
			}
		}
		var h [64]int
		for _, r := range regs {
			h[r]++
		}
		c.W.Int(int64(estimate(h)))
		return
	}
	key := string(c.Args[1])
	e := c.DB.Read(key)
	s, ok := lookup(c, e)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	if cacheValid(s) {
		c.W.Int(int64(binary.LittleEndian.Uint64(s[8:16])))
		return
	}
	h, ok := histogram(s)
	if !ok {
		c.W.Error(errCorrupt)
		return
	}
	card := estimate(h)
	// The value is read-only to the server (PFCOUNT is a read), so keep a
	// snapshot in progress from seeing the new header.
	c.DB.WillModify(key)
	s = keyspace.Unshare(e)
	binary.LittleEndian.PutUint64(s[8:16], card)
	c.DB.Touch(key)
	if !c.DB.Replica {
		c.Dirty++
	}
	c.W.Int(int64(card))
}

// pfmerge is PFMERGE destkey [sourcekey ...]: destkey becomes the union
// of itself and the sources, created sparse when missing and made dense
// when any input is dense, as in Redis.
func pfmerge(c *command.Ctx) {
	var regs [registers]uint8
	dense := false
	for _, k := range c.Args[1:] {
		s, ok := lookup(c, c.DB.Read(string(k)))
		if !ok {
			return
		}
		if s == nil {
			continue
		}
		if s[4] == encDense {
			dense = true
		}
		if !mergeInto(&regs, s) {
			c.W.Error(errCorrupt)
			return
		}
	}
	key := string(c.Args[1])
	e := c.DB.Get(key)
	var s []byte
	if e == nil {
		s = newSparse()
		e = c.DB.Set(key, s)
	} else {
		s = keyspace.Unshare(e)
	}
	limit := sparseMaxBytes(c.DB)
	if dense && s[4] != encDense {
		d, ok := toDense(s)
		if !ok {
			c.W.Error(errCorrupt)
			return
		}
		s = d
	}
	for i, r := range regs {
		if r == 0 {
			continue
		}
		if s[4] == encDense {
			denseAdd(s[headerSize:], i, r)
		} else {
			s, _, _ = sparseSet(s, i, r, limit)
		}
	}
	invalidateCache(s)
	e.Val = s
	c.DB.Touch(key)
	c.Dirty++
	c.NotifyString(notify.String, "pfadd", key)
	c.W.OK()
}
