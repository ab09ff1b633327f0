// Package bitcmd implements Redis's bitmap commands (SETBIT, GETBIT,
// BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO). A bitmap is a string:
// bit 0 is the most significant bit of the first byte, and bits past the
// end of a string read as 0. Writes grow the string with zero bytes.
//
// Every command here is deterministic from its arguments and the string it
// reads, so writes replay as sent.
package bitcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

// Specs returns the bitmap commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	const (
		wd  = command.Write | command.DenyOOM
		ro  = command.ReadOnly
		rof = command.ReadOnly | command.Fast
	)
	f := command.Family("bitmap")
	return []*command.Spec{
		f.Spec("setbit", 4, wd, setbit),
		f.Spec("getbit", 3, rof, getbit),
		f.Spec("bitcount", -2, ro, bitcount),
		f.Spec("bitpos", -3, ro, bitpos),
		f.Spec("bitop", -4, wd, bitop).KeysAt(2, -1, 1),
		f.Spec("bitfield", -2, wd, bitfieldCmd(false)),
		f.Spec("bitfield_ro", -2, rof, bitfieldCmd(true)),
	}
}

// Error replies of the bitmap commands, in Redis 7's words.
const (
	errBitOffset = "ERR bit offset is not an integer or out of range"
	errBitValue  = "ERR bit is not an integer or out of range"
	errBitArg    = "ERR The bit argument must be 1 or 0."
	errNotSingle = "ERR BITOP NOT must be called with a single source key."
	errType      = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errOverflow  = "ERR Invalid OVERFLOW type specified"
	errReadOnly  = "ERR BITFIELD_RO only supports the GET subcommand"
)

// maxBitOffset bounds bit offsets as Redis's default proto-max-bulk-len
// (512 MiB) does: offset>>3 must stay below it.
const maxBitOffset = 512<<20<<3 - 1

// parseOffset reads a bit offset: a non-negative integer below 2^32, or
// with hash set and "#n" the n-th field of width bits.
func parseOffset(b []byte, hash bool, bits int) (uint64, bool) {
	mult := int64(1)
	if hash && len(b) > 0 && b[0] == '#' {
		b = b[1:]
		mult = int64(bits)
	}
	n, ok := command.ParseInt(b)
	if !ok || n < 0 || n > maxBitOffset/mult {
		return 0, false
	}
	return uint64(n * mult), true
}

// readString looks key up as a string for reading (nil when missing).
func readString(c *command.Ctx, key string) ([]byte, bool) {
	return command.LookupRead[[]byte](c, key)
}

// growString returns key's string, grown with zero bytes to at least size
// bytes and stored, creating the key when it is missing: Redis's
// lookupStringForBitCommand. grew reports whether the keyspace changed.
// ok is false (WRONGTYPE written) when key holds another type.
func growString(c *command.Ctx, key string, size int) (val []byte, grew, ok bool) {
	e := c.DB.Get(key)
	if e == nil {
		val = make([]byte, size)
		c.DB.Set(key, val)
		return val, true, true
	}
	val, ok = e.Val.([]byte)
	if !ok {
		c.W.Error(command.ErrWrongType)
		return nil, false, false
	}
	if len(val) >= size {
		// Written in place, as Redis writes its raw value: the first
		// write copies a value stored whole.
		return keyspace.Unshare(e), false, true
	}
	val = grow(e, val, size)
	return val, true, true
}

// grow extends val, the string in e, to size bytes of which the new ones
// are zero, and stores it back in e (keeping its time to live).
func grow(e *keyspace.Entry, val []byte, size int) []byte {
	if size <= cap(val) {
		// Spare capacity may hold bytes of an earlier, longer value.
		old := len(val)
		val = val[:size]
		clear(val[old:])
	} else {
		n := make([]byte, size, max(size, 2*len(val)))
		copy(n, val)
		val = n
	}
	e.Val = val
	return val
}

// bitAt returns bit i of s, 0 past its end.
func bitAt(s []byte, i uint64) int {
	if i>>3 >= uint64(len(s)) {
		return 0
	}
	return int(s[i>>3]>>(7-i&7)) & 1
}
