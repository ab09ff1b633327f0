// Package memcmd estimates what a key costs in memory (MEMORY USAGE) in
// the manner of Redis 7.0: the allocations Redis would make for the key
// and its value in its encodings, rounded to jemalloc's size classes, with
// nested values sampled as Redis samples them. It is an estimate of what
// the same data takes in Redis, equal to redis-server's answer for small
// strings and hashes and near it otherwise; ruvio's own structures are
// not what it measures.
package memcmd

import (
	"math/bits"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// UsageSpec is MEMORY USAGE key [SAMPLES count], named "usage" for the
// MEMORY container to prefix.
func UsageSpec() *command.Spec {
	s := command.Family("keyspace").Spec("usage", -3, command.ReadOnly, usage).KeysAt(2, 2, 1)
	s.Categories = []string{"read", "slow"}
	return s
}

func usage(c *command.Ctx) {
	samples := int64(5)
	for j := 3; j < len(c.Args); j++ {
		if command.Eq(c.Args[j], "samples") && j+1 < len(c.Args) {
			n, ok := c.IntArg(c.Args[j+1])
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error(command.ErrSyntax)
				return
			}
			if n == 0 {
				n = 1 << 62
			}
			samples = n
			j++
			continue
		}
		c.W.Error(command.ErrSyntax)
		return
	}
	key := c.Args[2]
	e := c.DB.Peek(string(key))
	if e == nil {
		c.W.Null()
		return
	}
	// The key's own string and its hash table entry.
	size := sdsSize(len(key)) + 24
	c.W.Int(int64(size + ValueSize(e.Val, int(min(samples, 1<<30)))))
}

// Class rounds an allocation of n bytes up to jemalloc's size class.
func Class(n int) int {
	switch {
	case n <= 8:
		return 8
	case n <= 128:
		return (n + 15) &^ 15
	}
	// Four classes per doubling above 128.
	lg := bits.Len(uint(n-1)) - 1
	step := 1 << (lg - 2)
	return (n + step - 1) &^ (step - 1)
}

// sdsSize is the allocation of an sds string of n bytes.
func sdsSize(n int) int {
	hdr := 3
	switch {
	case n >= 1<<32:
		hdr = 17
	case n >= 1<<16:
		hdr = 9
	case n >= 1<<8:
		hdr = 5
	}
	return Class(hdr + n + 1)
}

const robj = 16

// stringSize is a string object: shared integer, embedded or raw.
func stringSize(b []byte) int {
	if _, ok := command.ParseInt(b); ok && len(b) <= 20 {
		return robj
	}
	if len(b) <= 44 {
		return Class(robj + 3 + len(b) + 1)
	}
	return robj + sdsSize(len(b))
}

// averaged extrapolates the sizes of the first samples elements of n.
func averaged(sum, sampled, n int) int {
	if sampled == 0 {
		return 0
	}
	return int(float64(sum) / float64(sampled) * float64(n))
}

// ValueSize estimates a value's allocations as Redis's objectComputeSize
// does, sampling up to samples elements of an aggregate.
func ValueSize(v any, samples int) int {
	switch x := v.(type) {
	case []byte:
		return stringSize(x)
	case *deque.Deque:
		// A quicklist of listpack nodes of up to 8 KiB.
		size := robj + 40
		var nodes []int
		cur := 7
		for el := range x.All() {
			e := lpEntrySize(el)
			if cur+e > 8192 && cur > 7 {
				nodes = append(nodes, cur)
				cur = 7
			}
			cur += e
		}
		nodes = append(nodes, cur)
		sum, n := 0, 0
		for _, b := range nodes {
			if n == samples {
				break
			}
			sum += 32 + Class(b)
			n++
		}
		return size + averaged(sum, n, len(nodes))
	case map[string]struct{}:
		if intset(x) {
			width := 2
			for m := range x {
				v, _ := command.ParseInt([]byte(m))
				switch {
				case v < -1<<31 || v > 1<<31-1:
					width = 8
				case (v < -1<<15 || v > 1<<15-1) && width < 4:
					width = 4
				}
			}
			return robj + Class(8+width*len(x))
		}
		sum, n := 0, 0
		for m := range x {
			if n == samples {
				break
			}
			sum += sdsSize(len(m))
			n++
		}
		return robj + dictSize(len(x)) + averaged(sum+24*n, n, len(x))
	case map[string][]byte:
		if len(x) <= 128 && shortFields(x) {
			b := 7
			for f, val := range x {
				b += lpEntrySize([]byte(f)) + lpEntrySize(val)
			}
			return robj + Class(b)
		}
		sum, n := 0, 0
		for f, val := range x {
			if n == samples {
				break
			}
			sum += sdsSize(len(f)) + sdsSize(len(val)) + 24
			n++
		}
		return robj + dictSize(len(x)) + averaged(sum, n, len(x))
	case *sortedset.Set:
		items := x.ByRank(0, x.Len()-1, false)
		short := len(items) <= 128
		for _, it := range items {
			short = short && len(it.Member) <= 64
		}
		if short {
			b := 7
			for _, it := range items {
				b += lpEntrySize([]byte(it.Member)) + lpEntrySize([]byte(sortedset.FormatScore(it.Score)))
			}
			return robj + Class(b)
		}
		sum, n := 0, 0
		for _, it := range items {
			if n == samples {
				break
			}
			sum += sdsSize(len(it.Member)) + Class(32+16) + 24
			n++
		}
		return robj + 16 + dictSize(len(items)) + averaged(sum, n, len(items))
	case *stream.Stream:
		size := robj + 96
		nodes, sum := 0, 0
		x.EachNode(func(ents []stream.Entry, _ []bool, _ [][]byte) {
			nodes++
			if nodes > samples {
				return
			}
			b := 7
			for _, e := range ents {
				b += 4
				for _, f := range e.Fields {
					b += lpEntrySize(f)
				}
			}
			sum += Class(b) + 32
		})
		size += averaged(sum, min(nodes, samples), nodes)
		for _, g := range x.Groups {
			size += 64 + 40*len(g.PEL) + 48*len(g.Consumers)
		}
		return size
	}
	return 0
}

// dictSize is a hash table of n entries: its bucket array.
func dictSize(n int) int {
	buckets := 4
	for buckets < n {
		buckets <<= 1
	}
	return 96 + Class(8*buckets)
}

// lpEntrySize is the bytes a listpack entry of b takes.
func lpEntrySize(b []byte) int {
	if v, ok := command.ParseInt(b); ok {
		switch {
		case v >= 0 && v <= 127:
			return 2
		case v >= -4096 && v <= 4095:
			return 3
		case v >= -32768 && v <= 32767:
			return 4
		case v >= -8388608 && v <= 8388607:
			return 5
		case v >= -1<<31 && v <= 1<<31-1:
			return 6
		}
		return 10
	}
	n := len(b)
	switch {
	case n < 64:
		return 1 + n + 1
	case n < 4096:
		return 2 + n + 2
	}
	return 5 + n + 3
}

func intset(m map[string]struct{}) bool {
	if len(m) > 512 {
		return false
	}
	for k := range m {
		if _, ok := command.ParseInt([]byte(k)); !ok {
			return false
		}
	}
	return true
}

func shortFields(h map[string][]byte) bool {
	for f, v := range h {
		if len(f) > 64 || len(v) > 64 {
			return false
		}
	}
	return true
}
