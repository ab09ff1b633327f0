// Package hllcmd implements Redis's HyperLogLog commands (PFADD, PFCOUNT,
// PFMERGE) on strings laid out exactly as Redis lays them out, so a value
// copied with GET and SET between Redis and ruvio stays valid in both:
//
//   - a 16-byte header: "HYLL", the encoding (0 dense, 1 sparse), three
//     unused bytes, and the cached cardinality as 8 little-endian bytes
//     whose top bit set means the cache is stale;
//   - dense: 16384 registers of 6 bits, register i at bit 6i counting
//     from the least significant bit of each byte (12288 bytes);
//   - sparse: run-length opcodes ZERO (00xxxxxx, 1..64 zero registers),
//     XZERO (01xxxxxx yyyyyyyy, 1..16384 zero registers) and VAL
//     (1vvvvvxx, 1..4 registers holding 1..32).
//
// Elements hash with MurmurHash64A and Redis's seed; a sparse value turns
// dense when a register needs more than 32 or it would grow past 3000
// bytes (hll-sparse-max-bytes), each step taken exactly where Redis takes
// it, byte for byte.
package hllcmd

import (
	"encoding/binary"
	"math"
)

const (
	hllP         = 14
	registers    = 1 << hllP // 16384
	hllQ         = 64 - hllP // 50
	regBits      = 6
	regMax       = 1<<regBits - 1
	headerSize   = 16
	denseSize    = headerSize + (registers*regBits+7)/8
	encDense     = 0
	encSparse    = 1
	sparseMaxVal = 32
	sparseMaxLen = 4
	zeroMaxLen   = 64
	xzeroMaxLen  = 16384
	seed         = 0xadc83b19
)

// murmur64A is MurmurHash64A, as Redis computes it (little-endian words).
func murmur64A(data []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(data))*m
	for len(data) >= 8 {
		k := binary.LittleEndian.Uint64(data)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		data = data[8:]
	}
	if n := len(data); n > 0 {
		for i := n - 1; i >= 0; i-- {
			h ^= uint64(data[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen returns the register an element goes to and the value it
// offers: one more than the number of trailing zeros of the rest of its
// hash (at most hllQ+1).
func patLen(elem []byte) (index int, count uint8) {
	h := murmur64A(elem, seed)
	index = int(h & (registers - 1))
	h >>= hllP
	h |= 1 << hllQ
	count = 1
	for bit := uint64(1); h&bit == 0; bit <<= 1 {
		count++
	}
	return index, count
}

// newSparse returns an empty HLL as PFADD creates it: sparse, one XZERO
// covering every register, a valid cached cardinality of 0.
func newSparse() []byte {
	b := make([]byte, headerSize+2, headerSize+16)
	copy(b, "HYLL")
	b[4] = encSparse
	setXZero(b[headerSize:], registers)
	return b
}

// valid reports whether s passes Redis's check of an HLL value: long
// enough for a header, the magic, a known encoding, and a dense value of
// the exact size.
func valid(s []byte) bool {
	if len(s) < headerSize || string(s[:4]) != "HYLL" || s[4] > encSparse {
		return false
	}
	return s[4] != encDense || len(s) == denseSize
}

func invalidateCache(s []byte) { s[15] |= 0x80 }

func cacheValid(s []byte) bool { return s[15]&0x80 == 0 }

// Dense registers.

func denseGet(regs []byte, i int) uint8 {
	b := i * regBits / 8
	fb := uint(i*regBits) & 7
	v := uint(regs[b]) >> fb
	if b+1 < len(regs) {
		v |= uint(regs[b+1]) << (8 - fb)
	}
	return uint8(v & regMax)
}

func denseSet(regs []byte, i int, val uint8) {
	b := i * regBits / 8
	fb := uint(i*regBits) & 7
	v := uint(val)
	regs[b] &^= byte(regMax << fb)
	regs[b] |= byte(v << fb)
	if b+1 < len(regs) {
		regs[b+1] &^= byte(regMax >> (8 - fb))
		regs[b+1] |= byte(v >> (8 - fb))
	}
}

// denseAdd raises register i to count, reporting whether it rose.
func denseAdd(regs []byte, i int, count uint8) bool {
	if denseGet(regs, i) >= count {
		return false
	}
	denseSet(regs, i, count)
	return true
}

// Sparse opcodes.

func isZero(b byte) bool  { return b&0xc0 == 0 }
func isXZero(b byte) bool { return b&0xc0 == 0x40 }
func zeroLen(b byte) int  { return int(b&0x3f) + 1 }
func xzeroLen(p []byte) int {
	return (int(p[0]&0x3f)<<8 | int(p[1])) + 1
}
func valValue(b byte) uint8 { return (b>>2)&0x1f + 1 }
func valLen(b byte) int     { return int(b&3) + 1 }
func valOp(val uint8, n int) byte {
	return byte(int(val-1)<<2|(n-1)) | 0x80
}
func setXZero(p []byte, n int) {
	n--
	p[0] = byte(n>>8) | 0x40
	p[1] = byte(n)
}

// eachRun walks the sparse opcodes of ops, calling fn with each run of n
// registers holding val, and reports whether they cover exactly every
// register, as a valid value's do. A VAL run past the end stops the walk.
func eachRun(ops []byte, fn func(first, n int, val uint8)) bool {
	idx := 0
	for p := 0; p < len(ops); {
		switch b := ops[p]; {
		case isZero(b):
			idx += zeroLen(b)
			p++
		case isXZero(b):
			if p+1 >= len(ops) {
				return false
			}
			idx += xzeroLen(ops[p:])
			p += 2
		default:
			n := valLen(b)
			if idx+n > registers {
				return false
			}
			fn(idx, n, valValue(b))
			idx += n
			p++
		}
	}
	return idx == registers
}

// toDense returns the dense form of the sparse HLL s, keeping its header
// (cached cardinality included), or ok false when s is corrupt.
func toDense(s []byte) (d []byte, ok bool) {
	d = make([]byte, denseSize)
	copy(d, s[:headerSize])
	d[4] = encDense
	regs := d[headerSize:]
	ok = eachRun(s[headerSize:], func(first, n int, val uint8) {
		for i := first; i < first+n; i++ {
			denseSet(regs, i, val)
		}
	})
	return d, ok
}

// add offers count to register index of HLL s and returns the value,
// possibly reallocated or turned dense (past maxBytes sparse), and
// whether a register changed; ok is false when s is corrupt.
func add(s []byte, index int, count uint8, maxBytes int64) (out []byte, changed, ok bool) {
	if s[4] == encDense {
		return s, denseAdd(s[headerSize:], index, count), true
	}
	return sparseSet(s, index, count, maxBytes)
}

// sparseSet is add on a sparse value, splitting the opcode that covers
// index as Redis does and merging equal VAL neighbours after it.
func sparseSet(s []byte, index int, count uint8, maxBytes int64) (out []byte, changed, ok bool) {
	if count > sparseMaxVal {
		return promote(s, index, count)
	}
	ops := s[headerSize:]
	// Find the opcode covering index.
	p, prev, first, span := 0, -1, 0, 0
	for p < len(ops) {
		oplen := 1
		switch b := ops[p]; {
		case isZero(b):
			span = zeroLen(b)
		case isXZero(b):
			if p+1 >= len(ops) {
				return s, false, false
			}
			span = xzeroLen(ops[p:])
			oplen = 2
		default:
			span = valLen(ops[p])
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= len(ops) {
		return s, false, false
	}
	b := ops[p]
	zero, xzero := isZero(b), isXZero(b)
	switch {
	case !zero && !xzero:
		if valValue(b) >= count {
			return s, false, true
		}
		if valLen(b) == 1 {
			ops[p] = valOp(count, 1)
			return merge(s, prev), true, true
		}
	case zero && zeroLen(b) == 1:
		ops[p] = valOp(count, 1)
		return merge(s, prev), true, true
	}
	// Split the opcode into up to three: before, the register, after.
	var seq [5]byte
	n := 0
	last := first + span - 1
	zeros := func(length int) {
		if length > zeroMaxLen {
			setXZero(seq[n:], length)
			n += 2
		} else {
			seq[n] = byte(length - 1)
			n++
		}
	}
	if zero || xzero {
		if index != first {
			zeros(index - first)
		}
		seq[n] = valOp(count, 1)
		n++
		if index != last {
			zeros(last - index)
		}
	} else {
		cur := valValue(b)
		if index != first {
			seq[n] = valOp(cur, index-first)
			n++
		}
		seq[n] = valOp(count, 1)
		n++
		if index != last {
			seq[n] = valOp(cur, last-index)
			n++
		}
	}
	oldLen := 1
	if xzero {
		oldLen = 2
	}
	delta := n - oldLen
	if delta > 0 && int64(len(s)+delta) > maxBytes {
		return promote(s, index, count)
	}
	at := headerSize + p
	grown := make([]byte, 0, len(s)+delta)
	grown = append(grown, s[:at]...)
	grown = append(grown, seq[:n]...)
	grown = append(grown, s[at+oldLen:]...)
	return merge(grown, prev), true, true
}

// merge joins adjacent VAL opcodes of equal value whose runs fit one
// opcode, scanning at most five opcodes from prev (the opcode before the
// one changed, or the first), as Redis does.
func merge(s []byte, prev int) []byte {
	p := headerSize + max(prev, 0)
	for scan := 5; p < len(s) && scan > 0; scan-- {
		b := s[p]
		if isXZero(b) {
			p += 2
			continue
		}
		if isZero(b) {
			p++
			continue
		}
		if p+1 < len(s) && s[p+1]&0x80 != 0 {
			v1, v2 := valValue(b), valValue(s[p+1])
			if v1 == v2 {
				if n := valLen(b) + valLen(s[p+1]); n <= sparseMaxLen {
					s[p+1] = valOp(v1, n)
					s = append(s[:p], s[p+1:]...)
					continue
				}
			}
		}
		p++
	}
	return s
}

// promote turns sparse s dense and sets register index to count there.
func promote(s []byte, index int, count uint8) ([]byte, bool, bool) {
	d, ok := toDense(s)
	if !ok {
		return s, false, false
	}
	denseAdd(d[headerSize:], index, count)
	return d, true, true
}

// mergeInto raises each of max's registers to s's, for PFCOUNT of several
// keys and PFMERGE; ok is false when s is corrupt.
func mergeInto(maxRegs *[registers]uint8, s []byte) bool {
	if s[4] == encDense {
		regs := s[headerSize:]
		for i := range maxRegs {
			maxRegs[i] = max(maxRegs[i], denseGet(regs, i))
		}
		return true
	}
	return eachRun(s[headerSize:], func(first, n int, val uint8) {
		for i := first; i < first+n; i++ {
			maxRegs[i] = max(maxRegs[i], val)
		}
	})
}

// histogram counts the registers of HLL s by value; ok is false when s
// is corrupt.
func histogram(s []byte) (h [64]int, ok bool) {
	if s[4] == encDense {
		regs := s[headerSize:]
		for i := 0; i < registers; i++ {
			h[denseGet(regs, i)]++
		}
		return h, true
	}
	zeros := 0
	ok = eachRun(s[headerSize:], func(first, n int, val uint8) {
		h[val] += n
		zeros -= n
	})
	// eachRun reports only VAL runs: the rest of the registers are zero.
	h[0] = registers + zeros
	return h, ok
}

// estimate is Redis's cardinality estimate from a register histogram
// (Otmar Ertl's improved estimator, as Redis computes it).
func estimate(h [64]int) uint64 {
	m := float64(registers)
	z := m * tau((m-float64(h[hllQ+1]))/m)
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += m * sigma(float64(h[0])/m)
	const alphaInf = 0.721347520444481703680
	return uint64(math.Round(alphaInf * m * m / z))
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if prev == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if prev == z {
			return z / 3
		}
	}
}
