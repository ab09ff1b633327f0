package script

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library Redis ships (Roberto Ierusalimschy's struct):
// struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]) and
// struct.size(fmt), with its formats: > < = endianness (native is
// little, as on the machines Redis runs on), ![n] alignment, x padding,
// b/B h/H l/L T i/In integers (long and size_t are 8 bytes), f d
// floats, cn fixed strings and s zero-terminated ones.

func init() { libraries["struct"] = openStruct }

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	big   bool
	align int
}

type structFormat struct {
	L   *lua.LState
	fn  string
	fmt string
	i   int
	h   structHeader
}

func newStructFormat(L *lua.LState, fn string) *structFormat {
	return &structFormat{L: L, fn: fn, fmt: checkString(L, 1, fn), h: structHeader{align: 1}}
}

func (f *structFormat) more() bool { return f.i < len(f.fmt) }

// num reads an optional size after an option, df when there is none.
func (f *structFormat) num(df int) int {
	if !f.more() || f.fmt[f.i] < '0' || f.fmt[f.i] > '9' {
		return df
	}
	a := 0
	for f.more() && f.fmt[f.i] >= '0' && f.fmt[f.i] <= '9' {
		d := int(f.fmt[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			libError(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

// next reads one option and its size.
func (f *structFormat) next() (opt byte, size int) {
	opt = f.fmt[f.i]
	f.i++
	switch opt {
	case 'B', 'b', 'x':
		size = 1
	case 'H', 'h':
		size = 2
	case 'L', 'l', 'T', 'd':
		size = 8
	case 'f':
		size = 4
	case 'c':
		size = f.num(1)
	case 'i', 'I':
		size = f.num(4)
		if size > structMaxIntSize {
			libError(f.L, "integral size %d is larger than limit of %d", size, structMaxIntSize)
		}
	}
	return opt, size
}

func (f *structFormat) toAlign(pos int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	size = min(size, f.h.align)
	return (size - (pos & (size - 1))) & (size - 1)
}

// control handles the options that change the header.
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.h.big = true
	case '<', '=':
		f.h.big = false
	case '!':
		a := f.num(structMaxAlign)
		if a&(a-1) != 0 || a == 0 {
			libError(f.L, "alignment %d is not a power of 2", a)
		}
		f.h.align = a
	default:
		argError(f.L, 1, f.fn, "invalid format option '"+string(opt)+"'")
	}
}

func isIntOpt(opt byte) bool { return strings.IndexByte("bBhHlLTiI", opt) >= 0 }

func structPack(L *lua.LState) int {
	f := newStructFormat(L, "pack")
	arg := 2
	var b []byte
	for f.more() {
		opt, size := f.next()
		pad := f.toAlign(len(b), opt, size)
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch {
		case isIntOpt(opt):
			n := checkNumber(L, arg, "pack")
			arg++
			var v uint64
			if n < 0 {
				v = uint64(int64(n))
			} else {
				v = uint64(n)
			}
			buf := make([]byte, size)
			for i := 0; i < size; i++ {
				at := i
				if f.h.big {
					at = size - 1 - i
				}
				buf[at] = byte(v)
				v >>= 8
			}
			b = append(b, buf...)
		case opt == 'x':
			b = append(b, 0)
		case opt == 'f':
			b = appendOrdered(b, uint64(math.Float32bits(float32(checkNumber(L, arg, "pack")))), 4, f.h.big)
			arg++
		case opt == 'd':
			b = appendOrdered(b, math.Float64bits(checkNumber(L, arg, "pack")), 8, f.h.big)
			arg++
		case opt == 'c' || opt == 's':
			s := checkString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

func appendOrdered(b []byte, v uint64, size int, big bool) []byte {
	buf := make([]byte, size)
	for i := 0; i < size; i++ {
		at := i
		if big {
			at = size - 1 - i
		}
		buf[at] = byte(v)
		v >>= 8
	}
	return append(b, buf...)
}

func readOrdered(s string, size int, big bool) uint64 {
	var v uint64
	for i := 0; i < size; i++ {
		at := size - 1 - i
		if big {
			at = i
		}
		v = v<<8 | uint64(s[at])
	}
	return v
}

func structUnpack(L *lua.LState) int {
	f := newStructFormat(L, "unpack")
	data := checkString(L, 2, "unpack")
	pos := 0
	if L.Get(3) != lua.LNil {
		pos = int(checkNumber(L, 3, "unpack")) - 1
	}
	var out []lua.LValue
	for f.more() {
		opt, size := f.next()
		pos += f.toAlign(pos, opt, size)
		if pos < 0 || size > len(data) || pos > len(data)-size {
			argError(L, 2, "unpack", "data string too short")
		}
		switch {
		case isIntOpt(opt):
			v := readOrdered(data[pos:], min(size, 8), f.h.big)
			if opt >= 'a' && opt <= 'z' && size < 8 {
				if mask := ^uint64(0) << (uint(size)*8 - 1); v&mask != 0 {
					v |= mask
				}
			}
			if opt >= 'a' && opt <= 'z' {
				out = append(out, lua.LNumber(int64(v)))
			} else {
				out = append(out, lua.LNumber(v))
			}
		case opt == 'x':
		case opt == 'f':
			out = append(out, lua.LNumber(math.Float32frombits(uint32(readOrdered(data[pos:], 4, f.h.big)))))
		case opt == 'd':
			out = append(out, lua.LNumber(math.Float64frombits(readOrdered(data[pos:], 8, f.h.big))))
		case opt == 'c':
			if size == 0 {
				var prev lua.LNumber
				ok := false
				if n := len(out); n > 0 {
					prev, ok = out[n-1].(lua.LNumber)
				}
				if !ok {
					libError(L, "format 'c0' needs a previous size")
				}
				size = int(prev)
				out = out[:len(out)-1]
				if size > len(data) || pos > len(data)-size {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case opt == 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				libError(L, "unfinished string in data")
			}
			size = e + 1
			out = append(out, lua.LString(data[pos:pos+e]))
		default:
			f.control(opt)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(out) + 1
}

func structSize(L *lua.LState) int {
	f := newStructFormat(L, "size")
	pos := 0
	for f.more() {
		opt, size := f.next()
		pos += f.toAlign(pos, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

func isAlnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func openStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}
