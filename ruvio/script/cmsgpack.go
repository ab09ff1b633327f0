package script

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The cmsgpack library Redis ships (lua-cmsgpack's API and encoding
// choices): integers take the smallest MessagePack int, a number that
// fits a float32 exactly is a float32, a table whose keys are 1..n is an
// array and any other a map, tables nested deeper than 16 encode as nil.

func init() { libraries["cmsgpack"] = openCMsgpack }

const msgpackMaxNesting = 16

func openCMsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			argError(L, 0, "pack", "MessagePack pack needs input.")
		}
		var b []byte
		for i := 1; i <= n; i++ {
			b = msgpackEncode(b, L.Get(i), 0)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return msgpackUnpack(L, "unpack", math.MaxInt, 0, true) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		return msgpackUnpack(L, "unpack_one", 1, optInt(L, 2, "unpack_one"), false)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int(checkNumber(L, 2, "unpack_limit"))
		return msgpackUnpack(L, "unpack_limit", limit, optInt(L, 3, "unpack_limit"), false)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	return t
}

func optInt(L *lua.LState, i int, fn string) int {
	if L.Get(i) == lua.LNil {
		return 0
	}
	return int(checkNumber(L, i, fn))
}

func msgpackEncode(b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		n := len(x)
		switch {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n <= 0xff:
			b = append(b, 0xd9, byte(n))
		case n <= 0xffff:
			b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
		default:
			b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
		}
		return append(b, x...)
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return msgpackInt(b, int64(f))
		}
		if f32 := float32(f); float64(f32) == f {
			return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f32))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := msgpackArrayLen(x); ok {
			b = msgpackHeader(b, n, 0x90, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = msgpackEncode(b, x.RawGetInt(i), level+1)
			}
			return b
		}
		var kv []lua.LValue
		inOrder(x, func(k, e lua.LValue) { kv = append(kv, k, e) })
		b = msgpackHeader(b, len(kv)/2, 0x80, 0xde, 0xdf)
		for _, e := range kv {
			b = msgpackEncode(b, e, level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

func msgpackHeader(b []byte, n int, fix, b16, b32 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}

func msgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// msgpackArrayLen reports whether t's keys are exactly 1..n.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, maxIdx := 0, 0.0
	ok := true
	inOrder(t, func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !isNum || n <= 0 || float64(n) != math.Trunc(float64(n)) {
			ok = false
			return
		}
		maxIdx = max(maxIdx, float64(n))
		count++
	})
	return count, ok && maxIdx == float64(count)
}

// msgpack decode errors, lua-cmsgpack's.
const (
	errMissingBytes = "Missing bytes in input."
	errBadFormat    = "Bad data format in input."
)

type msgpackCursor struct {
	s   string
	pos int
	err string
}

func (c *msgpackCursor) take(n int) (string, bool) {
	if c.err != "" {
		return "", false
	}
	if len(c.s)-c.pos < n {
		c.err = errMissingBytes
		return "", false
	}
	out := c.s[c.pos : c.pos+n]
	c.pos += n
	return out, true
}

func (c *msgpackCursor) uint(n int) uint64 {
	b, ok := c.take(n)
	if !ok {
		return 0
	}
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func msgpackUnpack(L *lua.LState, fn string, limit, offset int, all bool) int {
	if L.GetTop() > 3 {
		argError(L, 4, fn, "Too many arguments")
	}
	s := checkString(L, 1, fn)
	if offset < 0 || limit < 0 {
		libError(L, "Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	}
	if offset > len(s) {
		libError(L, "Start offset %d greater than input length %d.", offset, len(s))
	}
	c := &msgpackCursor{s: s, pos: offset}
	var out []lua.LValue
	for cnt := 0; c.pos < len(s) && cnt < limit; cnt++ {
		v := msgpackDecode(L, c)
		if c.err != "" {
			libError(L, "%s", c.err)
		}
		out = append(out, v)
	}
	if !all {
		next := c.pos
		if next == len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range out {
		L.Push(v)
	}
	if !all {
		return len(out) + 1
	}
	return len(out)
}

func msgpackDecode(L *lua.LState, c *msgpackCursor) lua.LValue {
	h, ok := c.take(1)
	if !ok {
		return lua.LNil
	}
	b := h[0]
	str := func(n int) lua.LValue {
		s, _ := c.take(n)
		return lua.LString(s)
	}
	switch {
	case b <= 0x7f:
		return lua.LNumber(b)
	case b >= 0xe0:
		return lua.LNumber(int8(b))
	case b >= 0xa0 && b <= 0xbf:
		return str(int(b & 0x1f))
	case b >= 0x90 && b <= 0x9f:
		return msgpackArray(L, c, int(b&0x0f))
	case b >= 0x80 && b <= 0x8f:
		return msgpackMap(L, c, int(b&0x0f))
	}
	switch b {
	case 0xc0:
		return lua.LNil
	case 0xc2:
		return lua.LFalse
	case 0xc3:
		return lua.LTrue
	case 0xcc:
		return lua.LNumber(c.uint(1))
	case 0xcd:
		return lua.LNumber(c.uint(2))
	case 0xce:
		return lua.LNumber(c.uint(4))
	case 0xcf:
		return lua.LNumber(c.uint(8))
	case 0xd0:
		return lua.LNumber(int8(c.uint(1)))
	case 0xd1:
		return lua.LNumber(int16(c.uint(2)))
	case 0xd2:
		return lua.LNumber(int32(c.uint(4)))
	case 0xd3:
		return lua.LNumber(int64(c.uint(8)))
	case 0xca:
		return lua.LNumber(math.Float32frombits(uint32(c.uint(4))))
	case 0xcb:
		return lua.LNumber(math.Float64frombits(c.uint(8)))
	case 0xd9, 0xc4:
		return str(int(c.uint(1)))
	case 0xda, 0xc5:
		return str(int(c.uint(2)))
	case 0xdb, 0xc6:
		return str(int(c.uint(4)))
	case 0xdc:
		return msgpackArray(L, c, int(c.uint(2)))
	case 0xdd:
		return msgpackArray(L, c, int(c.uint(4)))
	case 0xde:
		return msgpackMap(L, c, int(c.uint(2)))
	case 0xdf:
		return msgpackMap(L, c, int(c.uint(4)))
	}
	c.err = errBadFormat
	return lua.LNil
}

func msgpackArray(L *lua.LState, c *msgpackCursor, n int) lua.LValue {
	t := L.NewTable()
	for i := 1; i <= n && c.err == ""; i++ {
		t.RawSetInt(i, msgpackDecode(L, c))
	}
	return t
}

func msgpackMap(L *lua.LState, c *msgpackCursor, n int) lua.LValue {
	t := L.NewTable()
	for i := 0; i < n && c.err == ""; i++ {
		k := msgpackDecode(L, c)
		v := msgpackDecode(L, c)
		if c.err == "" && k != lua.LNil {
			t.RawSet(k, v)
		}
	}
	return t
}
