package hllcmd

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
)

// pfdebug is PFDEBUG GETREG|DECODE|ENCODING|TODENSE key, Redis's
// internal view of an HLL value. GETREG and TODENSE turn a sparse value
// dense, as in Redis: the command is then logged, so replicas and a
// replay turn it dense too.
func pfdebug(c *command.Ctx) {
	sub := c.Args[1]
	e := c.DB.Get(string(c.Args[2]))
	if e == nil {
		c.W.Error("ERR The specified key does not exist")
		return
	}
	s, ok := lookup(c, e)
	if !ok {
		return
	}
	densify := func() bool {
		if s[4] != encSparse {
			return false
		}
		d, ok := toDense(s)
		if !ok {
			c.W.Error(errCorrupt)
			return false
		}
		s, e.Val = d, d
		c.Dirty++
		return true
	}
	switch {
	case command.Eq(sub, "getreg"):
		if densify(); s[4] != encDense {
			return // corrupt: answered
		}
		regs := s[headerSize:]
		c.W.Array(registers)
		for i := range registers {
			c.W.Int(int64(denseGet(regs, i)))
		}
	case command.Eq(sub, "decode"):
		if s[4] != encSparse {
			c.W.Error("ERR HLL encoding is not sparse")
			return
		}
		c.W.Bulk([]byte(decodeSparse(s[headerSize:])))
	case command.Eq(sub, "encoding"):
		if s[4] == encSparse {
			c.W.Simple("sparse")
		} else {
			c.W.Simple("dense")
		}
	case command.Eq(sub, "todense"):
		sparse := s[4] == encSparse
		if converted := densify(); sparse && !converted {
			return // corrupt: answered
		}
		c.W.Int(int64(boolInt(sparse)))
	default:
		c.W.Error("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decodeSparse writes a sparse value's opcodes as Redis's PFDEBUG DECODE
// does: "z:<run>" for ZERO, "Z:<run>" for XZERO, "v:<value>,<run>" for
// VAL, separated by spaces.
func decodeSparse(ops []byte) string {
	var b strings.Builder
	for p := 0; p < len(ops); {
		switch op := ops[p]; {
		case isZero(op):
			fmt.Fprintf(&b, "z:%d ", zeroLen(op))
			p++
		case isXZero(op):
			if p+1 >= len(ops) {
				p = len(ops)
				break
			}
			fmt.Fprintf(&b, "Z:%d ", xzeroLen(ops[p:]))
			p += 2
		default:
			fmt.Fprintf(&b, "v:%d,%d ", valValue(op), valLen(op))
			p++
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// selfTestCycles is how many times PFSELFTEST fills the dense registers
// with random values, as Redis's HLL_TEST_CYCLES.
const selfTestCycles = 1000

// pfselftest is PFSELFTEST, Redis's test of its HLL code run on
// ruvio's: every register of a dense value keeps what was set in it
// without disturbing its neighbours, and ten million elements added to
// a dense and a sparse value at once keep the two estimates equal, the
// value sparse while small, and the error within six standard errors at
// every power of ten.
func pfselftest(c *command.Ctx) {
	dense := make([]byte, denseSize)
	regs := dense[headerSize:]
	var want [registers]uint8
	for range selfTestCycles {
		for i := range registers {
			want[i] = uint8(rand.IntN(regMax + 1))
			denseSet(regs, i, want[i])
		}
		for i := range registers {
			if got := denseGet(regs, i); got != want[i] {
				c.W.Error("ERR TESTFAILED Register " + strconv.Itoa(i) + " should be " + strconv.Itoa(int(want[i])) + " but is " + strconv.Itoa(int(got)))
				return
			}
		}
	}
	clear(regs)
	limit := sparseMaxBytes(c.DB)
	sparse := newSparse()
	count := func(s []byte) uint64 {
		h, _ := histogram(s)
		return estimate(h)
	}
	relErr := 1.04 / math.Sqrt(registers)
	checkpoint := int64(1)
	seed := rand.Uint64()
	var ele [8]byte
	for j := int64(1); j <= 10_000_000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		idx, n := patLen(ele[:])
		denseAdd(regs, idx, n)
		var ok bool
		if sparse, _, ok = add(sparse, idx, n, limit); !ok {
			c.W.Error(errCorrupt)
			return
		}
		if j != checkpoint {
			continue
		}
		if j < limit/2 && sparse[4] != encSparse {
			c.W.Error("ERR TESTFAILED sparse encoding not used")
			return
		}
		if count(dense) != count(sparse) {
			c.W.Error("ERR TESTFAILED dense/sparse disagree")
			return
		}
		maxErr := int64(math.Ceil(relErr * 6 * float64(checkpoint)))
		if j == 10 {
			// Collisions make a large error at 10 likely now and then.
			maxErr = 1
		}
		absErr := checkpoint - int64(count(dense))
		if absErr < 0 {
			absErr = -absErr
		}
		if absErr > maxErr {
			c.W.Error(fmt.Sprintf("ERR TESTFAILED Too big error. card:%d abserr:%d", checkpoint, absErr))
			return
		}
		checkpoint *= 10
	}
	c.W.OK()
}
