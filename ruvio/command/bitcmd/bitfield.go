package bitcmd

import (
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// overflow is a BITFIELD OVERFLOW policy.
type overflow int

const (
	wrap overflow = iota
	sat
	fail
)

// fieldOp is one parsed BITFIELD operation.
type fieldOp struct {
	op     byte // 'g' GET, 's' SET, 'i' INCRBY
	signed bool
	bits   int
	offset uint64
	arg    int64
	policy overflow
}

// parseType reads a field type: i1..i64 or u1..u63.
func parseType(b []byte) (signed bool, n int, ok bool) {
	// Lower case only, as Redis reads it.
	if len(b) < 2 || (b[0] != 'i' && b[0] != 'u') {
		return false, 0, false
	}
	signed = b[0] == 'i'
	v, ok := command.ParseInt(b[1:])
	if !ok || v < 1 || (signed && v > 64) || (!signed && v > 63) {
		return false, 0, false
	}
	return signed, int(v), true
}

// bitfieldCmd returns BITFIELD (readOnly false) or BITFIELD_RO key
// [GET type offset] [SET type offset value] [INCRBY type offset increment]
// [OVERFLOW WRAP|SAT|FAIL] ...
//
// Parsed in full before anything runs; any SET or INCRBY first grows the
// string to hold the farthest field written (creating the key), even when
// every write then fails its overflow check, as Redis does. The command is
// a function of its arguments and the string, so it replays as sent.
func bitfieldCmd(readOnly bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		var ops []fieldOp
		policy := wrap
		writes := false
		var highest uint64
		args := c.Args[2:]
		for len(args) > 0 {
			var op fieldOp
			need := 3
			switch {
			case command.Eq(args[0], "get"):
				op.op, need = 'g', 2
			case command.Eq(args[0], "set"):
				op.op = 's'
			case command.Eq(args[0], "incrby"):
				op.op = 'i'
			case command.Eq(args[0], "overflow"):
				need = 1
			default:
				need = -1
			}
			if need < 0 || len(args) <= need {
				c.W.Error(command.ErrSyntax)
				return
			}
			if need == 1 {
				switch {
				case command.Eq(args[1], "wrap"):
					policy = wrap
				case command.Eq(args[1], "sat"):
					policy = sat
				case command.Eq(args[1], "fail"):
					policy = fail
				default:
					c.W.Error(errOverflow)
					return
				}
				args = args[2:]
				continue
			}
			var ok bool
			if op.signed, op.bits, ok = parseType(args[1]); !ok {
				c.W.Error(errType)
				return
			}
			if op.offset, ok = parseOffset(args[2], true, op.bits); !ok {
				c.W.Error(errBitOffset)
				return
			}
			if op.op != 'g' {
				// Every operation is read before BITFIELD_RO refuses a
				// write, as Redis reads them: a bad value answers first.
				if op.arg, ok = c.IntArg(args[3]); !ok {
					return
				}
				writes = true
				highest = max(highest, op.offset+uint64(op.bits)-1)
			}
			op.policy = policy
			ops = append(ops, op)
			args = args[need+1:]
		}
		if writes && readOnly {
			c.W.Error(errReadOnly)
			return
		}
		key := string(c.Args[1])
		var val []byte
		var grew bool
		if writes {
			var ok bool
			if val, grew, ok = growString(c, key, int(highest>>3)+1); !ok {
				return
			}
			if grew {
				// Logged, as the string changed; a WATCH fails below if a
				// write lands (or, for a new key, when it was stored).
				c.Dirty++
			}
		} else {
			var ok bool
			if val, ok = readString(c, key); !ok {
				return
			}
		}
		changes := 0
		c.W.Array(len(ops))
		for _, op := range ops {
			old := getField(val, op.offset, op.bits)
			if op.op == 'g' {
				if op.signed {
					c.W.Int(signExtend(old, op.bits))
				} else {
					c.W.Int(int64(old))
				}
				continue
			}
			var next, reply uint64
			var over bool
			if op.signed {
				oldv := signExtend(old, op.bits)
				var n int64
				if op.op == 'i' {
					n, over = signedAdd(oldv, op.arg, op.bits, op.policy)
					reply = uint64(n)
				} else {
					n, over = signedAdd(op.arg, 0, op.bits, op.policy)
					reply = uint64(oldv)
				}
				next = uint64(n)
			} else {
				if op.op == 'i' {
					next, over = unsignedAdd(old, op.arg, op.bits, op.policy)
					reply = next
				} else {
					next, over = unsignedAdd(uint64(op.arg), 0, op.bits, op.policy)
					reply = old
				}
			}
			if over && op.policy == fail {
				c.W.Null()
				continue
			}
			c.W.Int(int64(reply))
			setField(val, op.offset, op.bits, next)
			if grew || next&fieldMask(op.bits) != old {
				// As redis-server 7.0 counts them: a write that leaves
				// the field as it was fails no WATCH.
				changes++
			}
		}
		if changes > 0 {
			// As redis-server 7.0.15: one event when a write changed a
			// field or landed in a string created or grown; none when
			// every write failed (OVERFLOW FAIL) or changed nothing.
			c.DB.Touch(key)
			c.Dirty += changes
			c.NotifyString(notify.String, "setbit", key)
		}
	}
}

// fieldMask is the low width bits set.
func fieldMask(width int) uint64 {
	if width >= 64 {
		return ^uint64(0)
	}
	return 1<<width - 1
}

// getField reads the width-bit unsigned field at bit offset off of s,
// most significant bit first; bits past the end of s read as 0.
func getField(s []byte, off uint64, width int) uint64 {
	var v uint64
	for i := uint64(0); i < uint64(width); i++ {
		v = v<<1 | uint64(bitAt(s, off+i))
	}
	return v
}

// setField writes the low width bits of v at bit offset off of s, which
// holds them.
func setField(s []byte, off uint64, width int, v uint64) {
	for i := 0; i < width; i++ {
		pos := off + uint64(i)
		mask := byte(1) << (7 - pos&7)
		if v>>(width-1-i)&1 == 1 {
			s[pos>>3] |= mask
		} else {
			s[pos>>3] &^= mask
		}
	}
}

// signExtend reads the low width bits of v as a two's complement number.
func signExtend(v uint64, width int) int64 {
	if width == 64 {
		return int64(v)
	}
	if v&(1<<(width-1)) != 0 {
		v |= ^uint64(0) << width
	}
	return int64(v)
}

// signedAdd adds incr to value as a width-bit signed field under policy,
// reporting an overflow. The bounds checks follow Redis's, including its
// two's complement wrap-around in the limits it computes, so every input
// gives Redis's answer.
func signedAdd(value, incr int64, width int, policy overflow) (int64, bool) {
	maxv := int64(math.MaxInt64)
	if width != 64 {
		maxv = int64(1)<<(width-1) - 1
	}
	minv := -maxv - 1
	maxIncr := maxv - value
	minIncr := minv - value
	var limit int64
	switch {
	case value > maxv || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		limit = maxv
	case value < minv || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		limit = minv
	default:
		return value + incr, false
	}
	if policy == sat {
		return limit, true
	}
	sum := uint64(value) + uint64(incr)
	if width < 64 {
		sum &= 1<<width - 1
	}
	return signExtend(sum, width), true
}

// unsignedAdd adds incr to value as a width-bit unsigned field under
// policy, reporting an overflow, with Redis's bounds checks.
func unsignedAdd(value uint64, incr int64, width int, policy overflow) (uint64, bool) {
	maxv := uint64(1)<<width - 1
	maxIncr := int64(maxv - value)
	minIncr := -int64(value)
	var limit uint64
	switch {
	case value > maxv || incr > maxIncr:
		limit = maxv
	case incr < 0 && incr < minIncr:
		limit = 0
	default:
		return value + uint64(incr), false
	}
	if policy == sat {
		return limit, true
	}
	return (value + uint64(incr)) & maxv, true
}
