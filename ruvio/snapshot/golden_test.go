package snapshot

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/v1.rsnap (only while version 1 is the current format)")

// goldenV1 is the content of testdata/v1.rsnap, a file written by the
// version 1 writer and kept as it is: every later release must still read
// it, whatever its own writer produces.
func goldenV1() (Header, map[string]keyspace.Entry) {
	h := Header{Shard: 2, Seq: 4242, Epoch: 3,
		History:   []EpochStart{{1, 1}, {3, 4000}},
		CreatedMs: 1_750_000_000_000}
	return h, map[string]keyspace.Entry{
		"string":  {Val: []byte("value")},
		"empty":   {Val: []byte{}},
		"\x00bin": {Val: []byte{0xff, 0x00}, ExpireAt: 1_760_000_000_000},
		"list":    {Val: deque.New([]byte("a"), []byte("b"), []byte("a"))},
		"set":     {Val: map[string]struct{}{"x": {}, "y": {}}},
		"zset": {Val: zset(sortedset.Item{Member: "lo", Score: math.Inf(-1)},
			sortedset.Item{Member: "mid", Score: 2.5}), ExpireAt: 1},
		"hash": {Val: hash.FromMap(map[string][]byte{"f1": []byte("v1"), "f2": {}})},
	}
}

func TestGoldenV1StillLoads(t *testing.T) {
	golden := filepath.Join("testdata", "v1.rsnap")
	wantH, want := goldenV1()
	if *updateGolden {
		if Version != 1 {
			t.Fatal("the golden file must come from the version 1 writer")
		}
		dir := t.TempDir()
		path := writeSnap(t, dir, wantH, want, 16)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, got, err := loadAll(golden)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(h) != fmt.Sprint(wantH) {
		t.Fatalf("header %+v, want %+v", h, wantH)
	}
	checkEqual(t, want, got)
}
