package stringcmd

import "github.com/ruvio/ruvio/ruvio/command"

// maxStringLen is Redis's default proto-max-bulk-len, the longest string
// APPEND and SETRANGE may build. A variable only so tests can lower it.
var maxStringLen int64 = 512 << 20

// appendCmd is APPEND key value, answering the new length. A missing key
// is created; an existing string grows in place (amortised by append's
// capacity doubling), keeping its time to live.
func appendCmd(c *command.Ctx) {
	key := string(c.Args[1])
	e, val, ok := lookupWrite(c, key)
	if !ok {
		return
	}
	if e == nil {
		storeString(c, key, c.Args[2], 0)
		c.W.Int(int64(len(c.Args[2])))
		return
	}
	if int64(len(val))+int64(len(c.Args[2])) > maxStringLen {
		c.W.Error(command.ErrStringTooLong)
		return
	}
	val = append(val, c.Args[2]...)
	e.Val = val
	c.DB.Touch(key)
	c.Dirty++
	c.W.Int(int64(len(val)))
}

// strlen is STRLEN key: 0 for a missing key.
func strlen(c *command.Ctx) {
	val, _, ok := getString(c, string(c.Args[1]))
	if ok {
		c.W.Int(int64(len(val)))
	}
}

// getrange is GETRANGE (and SUBSTR) key start end with Redis 7's index
// rules: negative indexes count from the end, both ends are clamped, and
// an empty range or missing key answers the empty string.
func getrange(c *command.Ctx) {
	start, ok1 := command.ParseInt(c.Args[2])
	end, ok2 := command.ParseInt(c.Args[3])
	if !ok1 || !ok2 {
		c.W.Error(command.ErrNotInteger)
		return
	}
	val, _, ok := getString(c, string(c.Args[1]))
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
	offset, ok := command.ParseInt(c.Args[2])
	if !ok {
		c.W.Error(command.ErrNotInteger)
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
	if e == nil {
		c.DB.Set(key, val)
	} else {
		e.Val = val
		c.DB.Touch(key)
	}
	c.Dirty++
	c.W.Int(int64(len(val)))
}
