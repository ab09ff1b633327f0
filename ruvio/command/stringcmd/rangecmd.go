package stringcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

// maxStringLen is Redis's default proto-max-bulk-len, the longest string
// APPEND and SETRANGE may build. A variable only so tests can lower it.
var maxStringLen int64 = 512 << 20

// appendCmd is APPEND key value, answering the new length. A missing key
// is created; an existing string grows by append, keeping its time to
// live: the first APPEND to a value SET stored copies it (its capacity
// is its length, see keyspace.NewString), later ones grow in place,
// amortised by append's capacity doubling. The result is Redis's raw
// value (keyspace.Unshare).
func appendCmd(c *command.Ctx) {
	key := string(c.Args[1])
	e, val, ok := lookupWrite(c, key)
	if !ok {
		return
	}
	if e == nil {
		replace(c, key, nil, keyspace.NewString(c.Args[2]), "append")
		c.W.Int(int64(len(c.Args[2])))
		return
	}
	if int64(len(val))+int64(len(c.Args[2])) > maxStringLen {
		c.W.Error(command.ErrStringTooLong)
		return
	}
	if len(c.Args[2]) == 0 {
		// Redis's APPEND leaves a raw value even when it adds nothing.
		val = keyspace.Unshare(e)
	} else {
		val = append(val, c.Args[2]...)
	}
	replace(c, key, e, val, "append")
	c.W.Int(int64(len(val)))
}

// strlen is STRLEN key: 0 for a missing key.
func strlen(c *command.Ctx) {
	if val, ok := command.LookupRead[[]byte](c, string(c.Args[1])); ok {
		c.W.Int(int64(len(val)))
	}
}

// getrange is GETRANGE (and SUBSTR) key start end with Redis 7's index
// rules: negative indexes count from the end, both ends are clamped, and
// an empty range or missing key answers the empty string.
func getrange(c *command.Ctx) {
	start, end, ok := c.IntArgs(c.Args[2], c.Args[3])
	if !ok {
		return
	}
	val, ok := command.LookupRead[[]byte](c, string(c.Args[1]))
	if !ok {
		return
	}
	n := int64(len(val))
	if start < 0 && end < 0 && start > end {
		c.W.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.Bulk(nil)
		return
	}
	c.W.Bulk(val[start : end+1])
}

// setrange is SETRANGE key offset value, answering the new length. The gap
// past the end is zero-filled; an empty value changes nothing (and does
// not create a missing key).
func setrange(c *command.Ctx) {
	offset, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	if offset < 0 {
		c.W.Error("ERR offset is out of range")
		return
	}
	key := string(c.Args[1])
	patch := c.Args[3]
	e, val, ok := lookupWrite(c, key)
	if !ok {
		return
	}
	if len(patch) == 0 {
		c.W.Int(int64(len(val)))
		return
	}
	if offset > maxStringLen-int64(len(patch)) {
		c.W.Error(command.ErrStringTooLong)
		return
	}
	end := int(offset) + len(patch)
	if e != nil && end <= len(val) {
		// Written in place, as Redis writes its raw value: the first
		// write copies a value stored whole (keyspace.Unshare).
		val = keyspace.Unshare(e)
		copy(val[offset:], patch)
		replace(c, key, e, e.Val, "setrange")
		c.W.Int(int64(len(val)))
		return
	}
	if end > len(val) {
		if end <= cap(val) {
			// The spare capacity may hold bytes of an earlier, longer
			// value: the gap must read as zeros.
			clear(val[len(val):end])
			val = val[:end]
		} else {
			grown := make([]byte, end, max(end, 2*len(val)))
			copy(grown, val)
			val = grown
		}
	}
	copy(val[offset:], patch)
	replace(c, key, e, val, "setrange")
	c.W.Int(int64(len(val)))
}
