package bitcmd

import (
	"math/bits"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// setbit is SETBIT key offset value, answering the bit's old value. The
// key is created (and grown) even when the bit written is 0.
func setbit(c *command.Ctx) {
	off, ok := parseOffset(c.Args[2], false, 0)
	if !ok {
		c.W.Error(errBitOffset)
		return
	}
	var on bool
	switch string(c.Args[3]) {
	case "1":
		on = true
	case "0":
	default:
		c.W.Error(errBitValue)
		return
	}
	key := string(c.Args[1])
	val, grew, ok := growString(c, key, int(off>>3)+1)
	if !ok {
		return
	}
	old := bitAt(val, off)
	mask := byte(1) << (7 - off&7)
	if on {
		val[off>>3] |= mask
	} else {
		val[off>>3] &^= mask
	}
	if grew || (old == 1) != on {
		// As redis-server 7.0: a bit set to what it was, in a string
		// that did not grow, changes nothing: no WATCH fails, no event
		// is sent and nothing is logged.
		c.DB.Touch(key)
		c.Dirty++
		c.Notify(notify.String, "setbit", c.Args[1])
	}
	c.W.Int(int64(old))
}

// getbit is GETBIT key offset: 0 past the end and for a missing key.
func getbit(c *command.Ctx) {
	off, ok := parseOffset(c.Args[2], false, 0)
	if !ok {
		c.W.Error(errBitOffset)
		return
	}
	val, ok := readString(c, string(c.Args[1]))
	if !ok {
		return
	}
	c.W.Int(int64(bitAt(val, off)))
}

// span resolves a BITCOUNT or BITPOS range of start and end, in bytes or
// (isBit) in bits, over a string of n bytes, as Redis 7 does: negative
// indexes count from the end, both ends are clamped into the string. It
// returns the first and last bit of the range; empty is set when the range
// holds no bit.
func span(start, end int64, isBit bool, n int64) (first, last int64, empty bool) {
	total := n
	if isBit {
		total = n * 8
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, true
	}
	if isBit {
		return start, end, false
	}
	return start * 8, end*8 + 7, false
}

// rangeUnit reads the optional BYTE|BIT word of a range.
func rangeUnit(c *command.Ctx, args [][]byte) (isBit, ok bool) {
	if len(args) == 0 {
		return false, true
	}
	switch {
	case command.Eq(args[0], "bit"):
		return true, true
	case command.Eq(args[0], "byte"):
		return false, true
	}
	c.W.Error(command.ErrSyntax)
	return false, false
}

// bitcount is BITCOUNT key [start end [BYTE|BIT]]. As in Redis 7.0 the key
// is looked up first, so a missing key answers 0 whatever the range says.
func bitcount(c *command.Ctx) {
	e := c.DB.Read(string(c.Args[1]))
	val, ok := command.As[[]byte](c, e)
	if !ok {
		return
	}
	if e == nil {
		c.W.Int(0)
		return
	}
	first, last := int64(0), int64(len(val))*8-1
	switch len(c.Args) {
	case 2:
	case 4, 5:
		start, end, ok := c.IntArgs(c.Args[2], c.Args[3])
		if !ok {
			return
		}
		// Before the unit, as redis-server 7.0 checks them.
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return
		}
		isBit, ok := rangeUnit(c, c.Args[4:])
		if !ok {
			return
		}
		var empty bool
		if first, last, empty = span(start, end, isBit, int64(len(val))); empty {
			c.W.Int(0)
			return
		}
	default:
		c.W.Error(command.ErrSyntax)
		return
	}
	c.W.Int(countBits(val, first, last))
}

// countBits counts the set bits of s from bit first to bit last, both
// inside s.
func countBits(s []byte, first, last int64) int64 {
	if first > last {
		return 0
	}
	fb, lb := first>>3, last>>3
	var n int
	for _, b := range s[fb : lb+1] {
		n += bits.OnesCount8(b)
	}
	// Take back the bits of the edge bytes outside the range.
	n -= bits.OnesCount8(s[fb] &^ byte(0xff>>(first&7)))
	n -= bits.OnesCount8(s[lb] & byte(0xff>>(last&7+1)))
	return int64(n)
}

// bitpos is BITPOS key bit [start [end [BYTE|BIT]]]: the first bit equal
// to bit in the range, or -1. A missing key is all zeros. Looking for a 0
// without an end, the string counts as padded with zeros, so a string of
// all ones answers its length in bits.
func bitpos(c *command.Ctx) {
	want, ok := c.IntArg(c.Args[2])
	if !ok {
		return
	}
	if want != 0 && want != 1 {
		c.W.Error(errBitArg)
		return
	}
	e := c.DB.Read(string(c.Args[1]))
	val, ok := command.As[[]byte](c, e)
	if !ok {
		return
	}
	if e == nil {
		if want == 1 {
			c.W.Int(-1)
		} else {
			c.W.Int(0)
		}
		return
	}
	n := int64(len(val))
	first, last := int64(0), n*8-1
	endGiven := false
	switch len(c.Args) {
	case 3:
	case 4, 5, 6:
		start, ok := c.IntArg(c.Args[3])
		if !ok {
			return
		}
		isBit, ok := rangeUnit(c, c.Args[min(5, len(c.Args)):])
		if !ok {
			return
		}
		end := int64(-1)
		if len(c.Args) >= 5 {
			if end, ok = c.IntArg(c.Args[4]); !ok {
				return
			}
			endGiven = true
		}
		var empty bool
		if first, last, empty = span(start, end, isBit, n); empty {
			c.W.Int(-1)
			return
		}
	default:
		c.W.Error(command.ErrSyntax)
		return
	}
	if first > last {
		c.W.Int(-1)
		return
	}
	for i := first; i <= last; i++ {
		if i&7 == 0 && i+7 <= last {
			// Skip whole bytes that cannot hold the bit.
			if b := val[i>>3]; (want == 1 && b == 0) || (want == 0 && b == 0xff) {
				i += 7
				continue
			}
		}
		if int64(bitAt(val, uint64(i))) == want {
			c.W.Int(i)
			return
		}
	}
	if want == 0 && !endGiven {
		c.W.Int(last + 1)
		return
	}
	c.W.Int(-1)
}
