package hash

import (
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/internal/liveheap"
)

// tenPairs is the arguments of HSET of f0..f9 with 16-byte values, in one
// buffer as the RESP reader allocates a command's arguments (their bytes
// plus 32 per argument).
func tenPairs() [][]byte {
	const vlen = 16
	buf := make([]byte, 0, 10*(2+vlen)+32*20)
	args := make([][]byte, 0, 20)
	for j := range 10 {
		start := len(buf)
		buf = append(buf, "f"+strconv.Itoa(j)...)
		args = append(args, buf[start:len(buf):len(buf)])
		start = len(buf)
		for range vlen {
			buf = append(buf, 'a'+byte(j))
		}
		args = append(args, buf[start:len(buf):len(buf)])
	}
	return args
}

// TestMemoryPerSmallHash pins the compact form's footprint for the shape
// the memory comparison with Redis uses: ten fields of 16-byte values
// cost the Hash and one 208-byte buffer. It also logs what the same hash
// cost as a map holding the request's own value slices, the form the
// compact one replaced.
func TestMemoryPerSmallHash(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 100k hashes")
	}
	const n = 100_000
	per := liveheap.PerValue(n, func(int) *Hash {
		h := New()
		args := tenPairs()
		for i := 0; i < len(args); i += 2 {
			h.Set(string(args[i]), args[i+1])
		}
		return h
	})
	old := liveheap.PerValue(n, func(int) map[string][]byte {
		args := tenPairs()
		m := make(map[string][]byte, len(args)/2)
		for i := 0; i < len(args); i += 2 {
			m[string(args[i])] = args[i+1]
		}
		return m
	})
	t.Logf("%.0f bytes per hash of 10 fields (%.0f as a map keeping the request's values)", per, old)
	if per > 400 {
		t.Errorf("%.0f bytes per hash of 10 fields, want at most 400", per)
	}
}

// BenchmarkMemory reports the live heap bytes per hash of 10 fields (the
// compact form) and of 1000 (the map form).
func BenchmarkMemory(b *testing.B) {
	for _, size := range []int{10, 1000} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = liveheap.PerValue(1_000_000/size, func(int) *Hash {
					h := New()
					for j := range size {
						h.Set("f"+strconv.Itoa(j), []byte("0123456789abcdef"))
					}
					return h
				})
			}
			b.ReportMetric(per, "bytes/hash")
			b.ReportMetric(per/float64(size), "bytes/field")
		})
	}
}
