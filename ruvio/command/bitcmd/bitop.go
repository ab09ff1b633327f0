package bitcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// bitop is BITOP AND|OR|XOR|NOT destkey key [key ...], answering the
// length of the result. Missing sources read as empty strings, shorter
// ones as padded with zero bytes; the result is as long as the longest
// source. An empty result deletes destkey; any other replaces it, of
// whatever type, without a time to live.
func bitop(c *command.Ctx) {
	op := c.Args[1]
	var kind byte
	switch {
	case command.Eq(op, "and"):
		kind = '&'
	case command.Eq(op, "or"):
		kind = '|'
	case command.Eq(op, "xor"):
		kind = '^'
	case command.Eq(op, "not"):
		kind = '~'
	default:
		c.W.Error(command.ErrSyntax)
		return
	}
	srcKeys := c.Args[3:]
	if kind == '~' && len(srcKeys) != 1 {
		c.W.Error(errNotSingle)
		return
	}
	srcs := make([][]byte, len(srcKeys))
	size := 0
	for i, k := range srcKeys {
		v, ok := command.LookupRead[[]byte](c, string(k))
		if !ok {
			return
		}
		srcs[i] = v
		size = max(size, len(v))
	}
	dest := string(c.Args[2])
	if size == 0 {
		if c.DB.Delete(dest) {
			c.Dirty++
			c.NotifyString(notify.Generic, "del", dest)
		}
		c.W.Int(0)
		return
	}
	out := make([]byte, size)
	if kind == '~' {
		for i, b := range srcs[0] {
			out[i] = ^b
		}
	} else {
		copy(out, srcs[0])
		for _, s := range srcs[1:] {
			for i := range out {
				var b byte
				if i < len(s) {
					b = s[i]
				}
				switch kind {
				case '&':
					out[i] &= b
				case '|':
					out[i] |= b
				case '^':
					out[i] ^= b
				}
			}
		}
	}
	c.DB.Set(dest, out)
	c.Dirty++
	c.NotifyString(notify.String, "set", dest)
	c.W.Int(int64(size))
}
