package memcmd

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/internal/liveheap"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

func TestClass(t *testing.T) {
	for _, tc := range [][2]int{{0, 0}, {1, 8}, {8, 8}, {9, 16}, {25, 32}, {33, 48}, {1000, 1024}, {32768, 32768}, {32769, 40960}} {
		if got := class(tc[0]); got != tc[1] {
			t.Errorf("class(%d) = %d, want %d", tc[0], got, tc[1])
		}
	}
}

// values builds n values of one kind, each with elems elements of about
// size bytes, the way the commands build them.
func values(kind string, n, elems, size int) []any {
	r := rand.New(rand.NewPCG(1, 2))
	blob := func() []byte {
		return []byte(strings.Repeat("x", size/2+r.IntN(size)))
	}
	out := make([]any, n)
	for i := range out {
		switch kind {
		case "string":
			out[i] = blob()
		case "list":
			d := deque.New()
			for range elems {
				d.PushBack(blob())
			}
			out[i] = d
		case "hash", "small hash":
			h := hash.New()
			for j := range elems {
				h.Set(fmt.Sprint("field:", j), blob())
			}
			out[i] = h
		case "set":
			s := map[string]struct{}{}
			for range elems {
				s[string(blob())+fmt.Sprint(r.Int())] = struct{}{}
			}
			out[i] = s
		case "zset", "small zset":
			z := sortedset.New()
			for j := range elems {
				z.Add(string(blob())+fmt.Sprint(j), float64(j))
			}
			out[i] = z
		case "stream":
			s := stream.New()
			for j := range elems {
				s.Append(stream.ID{Ms: uint64(j + 1)}, [][]byte{[]byte("field"), blob()})
			}
			out[i] = s
		}
	}
	return out
}

// The estimate of every type is near what building the values really
// took from the heap.
func TestValueSizeMatchesHeap(t *testing.T) {
	for _, kind := range []string{"string", "list", "hash", "small hash", "set", "zset", "small zset", "stream"} {
		t.Run(kind, func(t *testing.T) {
			n, elems, size := 40, 500, 64
			switch kind {
			case "string":
				n, elems = 20000, 1
			case "small zset": // sortedset's compact form
				n, elems, size = 2000, 20, 16
			case "small hash": // hash's compact form
				n, elems, size = 2000, 20, 16
			}
			before := liveheap.Bytes()
			vs := values(kind, n, elems, size)
			after := liveheap.Bytes()
			est := 0
			for _, v := range vs {
				est += ValueSize(v, 1<<30)
			}
			runtime.KeepAlive(vs)
			real := float64(after - before)
			ratio := float64(est) / real
			t.Logf("estimated %d, heap grew %.0f: ratio %.2f", est, real, ratio)
			if ratio < 0.8 || ratio > 1.25 {
				t.Errorf("estimated %d bytes, the heap grew by %.0f (ratio %.2f)", est, real, ratio)
			}
		})
	}
}

// With the default samples the estimate of a big collection is close to
// the full walk's (SAMPLES 0), and it grows with the value.
func TestSampledNearFull(t *testing.T) {
	for _, kind := range []string{"list", "hash", "set", "zset", "stream"} {
		v := values(kind, 1, 5000, 64)[0]
		full, five := ValueSize(v, 1<<30), ValueSize(v, DefaultSamples)
		if d := float64(five-full) / float64(full); d < -0.2 || d > 0.2 {
			t.Errorf("%s: 5 samples %d, full walk %d", kind, five, full)
		}
		small := ValueSize(values(kind, 1, 50, 64)[0], 1<<30)
		if small >= full {
			t.Errorf("%s: 50 elements %d bytes, 5000 elements %d", kind, small, full)
		}
	}
}

// What KeySize says a key costs, for keys of every length class, is
// within 5% of what storing them really took from the heap.
func TestKeySizeMatchesHeap(t *testing.T) {
	// Enough keys that the 16384 slots' tables are past their first
	// group.
	const n = 200000
	val := keyspace.NewString([]byte("v"))
	for _, length := range []int{6, 16, 20, 30, 60, 200} {
		db := keyspace.New(func() int64 { return 0 })
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = fmt.Appendf(nil, "%0*d", length, i)
		}
		// As a command's argument becomes a key: a string made here.
		before := liveheap.Bytes()
		for _, k := range keys {
			db.Set(string(k), val)
		}
		after := liveheap.Bytes()
		runtime.KeepAlive(db)
		est := KeySize(string(keys[0]), false, val, 1) - int64(ValueSize(val, 1))
		real := float64(after-before) / n
		ratio := float64(est) / real
		t.Logf("%d-byte keys: estimated %d bytes each, the heap grew by %.1f (ratio %.2f)", length, est, real, ratio)
		if ratio < 0.95 || ratio > 1.05 {
			t.Errorf("%d-byte keys: estimated %d bytes each, the heap grew by %.1f (ratio %.2f)", length, est, real, ratio)
		}
	}
}
