package rdb

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

var errPacked = errors.New("rdb: corrupt listpack, ziplist or intset")

// listpackEntries returns the elements of a listpack, integers as their
// decimal text.
func listpackEntries(lp []byte) ([][]byte, error) {
	if len(lp) < 7 || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != 0xff {
		return nil, errPacked
	}
	var out [][]byte
	p := lp[6 : len(lp)-1]
	for len(p) > 0 {
		b := p[0]
		var val []byte
		var n int // encoding and data bytes
		switch {
		case b&0x80 == 0:
			val, n = itoa(int64(b&0x7f)), 1
		case b&0xc0 == 0x80:
			l := int(b & 0x3f)
			n = 1 + l
			if n > len(p) {
				return nil, errPacked
			}
			val = p[1:n]
		case b&0xe0 == 0xc0:
			if len(p) < 2 {
				return nil, errPacked
			}
			v := int64(b&0x1f)<<8 | int64(p[1])
			if v >= 1<<12 {
				v -= 1 << 13
			}
			val, n = itoa(v), 2
		case b&0xf0 == 0xe0:
			if len(p) < 2 {
				return nil, errPacked
			}
			l := int(b&0x0f)<<8 | int(p[1])
			n = 2 + l
			if n > len(p) {
				return nil, errPacked
			}
			val = p[2:n]
		case b == 0xf0:
			if len(p) < 5 {
				return nil, errPacked
			}
			l := int(binary.LittleEndian.Uint32(p[1:]))
			n = 5 + l
			if l < 0 || n > len(p) {
				return nil, errPacked
			}
			val = p[5:n]
		case b >= 0xf1 && b <= 0xf4:
			size := map[byte]int{0xf1: 2, 0xf2: 3, 0xf3: 4, 0xf4: 8}[b]
			if len(p) < 1+size {
				return nil, errPacked
			}
			val, n = itoa(signedLE(p[1:1+size])), 1+size
		default:
			return nil, errPacked
		}
		n += backlenSize(n)
		if n > len(p) {
			return nil, errPacked
		}
		out = append(out, append([]byte(nil), val...))
		p = p[n:]
	}
	if n := int(binary.LittleEndian.Uint16(lp[4:])); n != 65535 && n != len(out) {
		return nil, errPacked
	}
	return out, nil
}

// backlenSize is the size of a listpack entry's back length for an entry
// of l bytes.
func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// appendBacklen appends the back length of an entry of l bytes, as
// Redis's lpEncodeBacklen writes it.
func appendBacklen(b []byte, l int) []byte {
	switch backlenSize(l) {
	case 1:
		return append(b, byte(l))
	case 2:
		return append(b, byte(l>>7), byte(l&127)|128)
	case 3:
		return append(b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case 4:
		return append(b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
}

// listpackBuilder writes a listpack as Redis's lpAppend does: an element
// that reads as a strict 64-bit integer takes the smallest integer
// encoding, any other a string encoding.
type listpackBuilder struct {
	body []byte
	n    int
}

func (lb *listpackBuilder) int(v int64) {
	var e []byte
	switch {
	case v >= 0 && v <= 127:
		e = []byte{byte(v)}
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		e = []byte{0xc0 | byte(u>>8), byte(u)}
	case v >= -32768 && v <= 32767:
		e = binary.LittleEndian.AppendUint16([]byte{0xf1}, uint16(v))
	case v >= -8388608 && v <= 8388607:
		u := uint32(v)
		e = []byte{0xf2, byte(u), byte(u >> 8), byte(u >> 16)}
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e = binary.LittleEndian.AppendUint32([]byte{0xf3}, uint32(v))
	default:
		e = binary.LittleEndian.AppendUint64([]byte{0xf4}, uint64(v))
	}
	lb.entry(e)
}

func (lb *listpackBuilder) str(s []byte) {
	if v, ok := strictInt(s); ok {
		lb.int(v)
		return
	}
	var e []byte
	switch l := len(s); {
	case l < 64:
		e = append([]byte{0x80 | byte(l)}, s...)
	case l < 4096:
		e = append([]byte{0xe0 | byte(l>>8), byte(l)}, s...)
	default:
		e = append(binary.LittleEndian.AppendUint32([]byte{0xf0}, uint32(l)), s...)
	}
	lb.entry(e)
}

func (lb *listpackBuilder) entry(e []byte) {
	lb.body = appendBacklen(append(lb.body, e...), len(e))
	lb.n++
}

func (lb *listpackBuilder) bytes() []byte {
	lp := binary.LittleEndian.AppendUint32(nil, uint32(6+len(lb.body)+1))
	lp = binary.LittleEndian.AppendUint16(lp, uint16(min(lb.n, 65535)))
	return append(append(lp, lb.body...), 0xff)
}

// strictInt is Redis's string2ll: a decimal 64-bit integer without
// blanks, '+' or leading zeros.
func strictInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 || s[0] == '+' || (len(s) > 1 && s[0] == '0') ||
		(s[0] == '-' && (len(s) == 1 || s[1] == '0')) {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	return v, err == nil
}

// signedLE reads a little-endian two's complement integer of len(b) bytes.
func signedLE(b []byte) int64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	shift := 64 - 8*uint(len(b))
	return int64(u<<shift) >> shift
}

func itoa(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

// ziplistEntries returns the elements of a ziplist.
func ziplistEntries(zl []byte) ([][]byte, error) {
	if len(zl) < 11 || int(binary.LittleEndian.Uint32(zl)) != len(zl) || zl[len(zl)-1] != 0xff {
		return nil, errPacked
	}
	var out [][]byte
	p := zl[10 : len(zl)-1]
	for len(p) > 0 {
		// The previous entry's length: one byte, or 0xfe and four.
		if p[0] == 0xfe {
			if len(p) < 5 {
				return nil, errPacked
			}
			p = p[5:]
		} else {
			p = p[1:]
		}
		if len(p) == 0 {
			return nil, errPacked
		}
		b := p[0]
		var val []byte
		var n int
		switch {
		case b>>6 == 0:
			l := int(b & 0x3f)
			n = 1 + l
			if n > len(p) {
				return nil, errPacked
			}
			val = p[1:n]
		case b>>6 == 1:
			if len(p) < 2 {
				return nil, errPacked
			}
			l := int(b&0x3f)<<8 | int(p[1])
			n = 2 + l
			if n > len(p) {
				return nil, errPacked
			}
			val = p[2:n]
		case b == 0x80:
			if len(p) < 5 {
				return nil, errPacked
			}
			l := int(binary.BigEndian.Uint32(p[1:]))
			n = 5 + l
			if l < 0 || n > len(p) {
				return nil, errPacked
			}
			val = p[5:n]
		default:
			size := map[byte]int{0xc0: 2, 0xd0: 4, 0xe0: 8, 0xf0: 3, 0xfe: 1}[b]
			switch {
			case size > 0:
				if len(p) < 1+size {
					return nil, errPacked
				}
				val, n = itoa(signedLE(p[1:1+size])), 1+size
			case b >= 0xf1 && b <= 0xfd:
				val, n = itoa(int64(b&0x0f)-1), 1
			default:
				return nil, errPacked
			}
		}
		out = append(out, append([]byte(nil), val...))
		p = p[n:]
	}
	return out, nil
}

// intsetMembers returns the members of an intset as decimal text.
func intsetMembers(is []byte) ([][]byte, error) {
	if len(is) < 8 {
		return nil, errPacked
	}
	width := int(binary.LittleEndian.Uint32(is))
	n := int(binary.LittleEndian.Uint32(is[4:]))
	if (width != 2 && width != 4 && width != 8) || n < 0 || len(is) != 8+width*n {
		return nil, errPacked
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = itoa(signedLE(is[8+i*width : 8+(i+1)*width]))
	}
	return out, nil
}
