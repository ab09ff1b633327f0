package hllcmd

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

func newHarness(t testing.TB) *cmdtest.Harness {
	return cmdtest.New(t, Specs(), stringcmd.Specs(), keycmd.Specs(), cmdtest.TypeMakers())
}

func TestSpecs(t *testing.T) {
	cmdtest.CheckSpecs(t, newHarness(t).Table, map[string]cmdtest.SpecRow{
		"pfadd":   {Arity: -2, Flags: "write denyoom fast", First: 1, Last: 1, Step: 1, Categories: "write hyperloglog fast"},
		"pfcount": {Arity: -2, Flags: "readonly", First: 1, Last: -1, Step: 1, Categories: "read hyperloglog slow"},
		"pfmerge": {Arity: -2, Flags: "write denyoom", First: 1, Last: -1, Step: 1, Categories: "write hyperloglog slow"},
	})
}

// Every tail length of MurmurHash64A takes its own path; the bytes they
// lead to are checked against redis-server by the server's differential
// tests.
func TestMurmurTails(t *testing.T) {
	seen := map[uint64]bool{}
	for n := 0; n < 20; n++ {
		seen[murmur64A([]byte(strings.Repeat("a", n)), seed)] = true
	}
	if len(seen) != 20 {
		t.Fatal("hashes collide")
	}
}

func TestPFAddCountMerge(t *testing.T) {
	for _, proto := range []int{2, 3} {
		h := newHarness(t)
		h.Proto = proto
		cmdtest.Steps{
			cmdtest.Row("PFADD", "h", 1),
			cmdtest.Row("GET", "h", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"),
			cmdtest.Row("PFCOUNT", "h", 0),
			cmdtest.Row("GET", "h", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"),
			cmdtest.Row("PFADD", "h", "a", "b", "c", 1),
			cmdtest.Row("PFADD", "h", "a", "b", 0),
			cmdtest.Row("PFCOUNT", "h", 3),
			cmdtest.Row("PFCOUNT", "h", 3),
			cmdtest.Row("PFADD", "g", "c", "d", 1),
			cmdtest.Row("PFCOUNT", "h", "g", "missing", 4),
			cmdtest.Row("PFMERGE", "m", "h", "g", "OK"),
			cmdtest.Row("PFCOUNT", "m", 4),
			cmdtest.Row("PFMERGE", "m", "OK"),
			cmdtest.Row("PFMERGE", "new", "OK"),
			cmdtest.Row("PFCOUNT", "new", 0),
			cmdtest.Row("PFCOUNT", "missing", 0),
			cmdtest.Row("SET", "s", "x", "OK"),
			cmdtest.Row("PFADD", "s", "a", cmdtest.Error(errNotHLL)),
			cmdtest.Row("PFCOUNT", "s", cmdtest.Error(errNotHLL)),
			cmdtest.Row("PFCOUNT", "h", "s", cmdtest.Error(errNotHLL)),
			cmdtest.Row("PFMERGE", "h", "s", cmdtest.Error(errNotHLL)),
			cmdtest.Row("TESTLIST", "l", "OK"),
			cmdtest.Row("PFADD", "l", "a", cmdtest.WrongType),
			cmdtest.Row("PFCOUNT", "l", cmdtest.WrongType),
			cmdtest.Row("SET", "bad", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00", "OK"),
			cmdtest.Row("PFCOUNT", "bad", cmdtest.Error(errCorrupt)),
			cmdtest.Row("PFCOUNT", "bad", "h", cmdtest.Error(errCorrupt)),
			cmdtest.Row("SET", "bad2", "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80", "OK"),
			cmdtest.Row("PFCOUNT", "bad2", cmdtest.Error(errNotHLL)),
			cmdtest.Row("PFADD", cmdtest.ErrArity("pfadd")),
		}.Run(t, h)
	}
}

// A value stays sparse until a register needs more than 32 or it would
// pass 3000 bytes, then turns dense and keeps counting; the logged
// commands replay to the same bytes, and the cache written by PFCOUNT is
// logged too.
func TestPromotionAndReplay(t *testing.T) {
	h := newHarness(t)
	var args []string
	for i := 0; i < 5000; i++ {
		args = append(args, "e"+strconv.Itoa(i))
		if len(args) == 100 {
			h.Do(append([]string{"PFADD", "h"}, args...)...)
			args = args[:0]
			v := []byte(h.Do("GET", "h").(string))
			if v[4] == encSparse && int64(len(v)) > keyspace.DefaultShapes.HLLSparseBytes {
				t.Fatalf("sparse value of %d bytes", len(v))
			}
		}
	}
	v := []byte(h.Do("GET", "h").(string))
	if v[4] != encDense || len(v) != denseSize {
		t.Fatalf("after 5000 elements: encoding %d, %d bytes", v[4], len(v))
	}
	n := h.Do("PFCOUNT", "h").(int64)
	if n < 4800 || n > 5200 {
		t.Fatalf("PFCOUNT = %d", n)
	}
	v = []byte(h.Do("GET", "h").(string))
	if int64(binary.LittleEndian.Uint64(v[8:])) != n {
		t.Fatalf("cache holds %d, want %d", binary.LittleEndian.Uint64(v[8:]), n)
	}
	if got := h.Logged(len(h.Log) - 1); len(got) != 1 || got[0] != "PFCOUNT h" {
		t.Fatalf("PFCOUNT logged %q", got)
	}
	h.Do("PFADD", "small", "x", "y")
	h.Do("PFMERGE", "both", "small", "h")
	if v := []byte(h.Do("GET", "both").(string)); v[4] != encDense {
		t.Fatal("PFMERGE of a dense source is sparse")
	}
	cmdtest.CheckReplay(t, h)
}
