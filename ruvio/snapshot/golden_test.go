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

var updateGolden = flag.Bool("update-golden", false, "write testdata/vN.rsnap for the current format version N (an older version's file is never rewritten)")

// golden is the content of testdata/vN.rsnap, a file written by the
// version N writer and kept as it is: every later release must still read
// it, whatever its own writer produces. Version 1 has no history IDs.
func golden(version int) (Header, map[string]keyspace.Entry) {
	h := Header{Shard: 2, Seq: 4242, Epoch: 3,
		History:   []EpochStart{{1, 1, 0}, {3, 4000, 0}},
		CreatedMs: 1_750_000_000_000}
	if version >= 2 {
		h.History = []EpochStart{{1, 1, 0}, {3, 4000, 1 << 63}, {3, 4100, 77}}
	}
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

func TestGoldenFilesStillLoad(t *testing.T) {
	for v := 1; v <= Version; v++ {
		path := filepath.Join("testdata", fmt.Sprintf("v%d.rsnap", v))
		wantH, want := golden(v)
		if *updateGolden && v == Version {
			dir := t.TempDir()
			data, err := os.ReadFile(writeSnap(t, dir, wantH, want, 16))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h, got, err := loadAll(path)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if fmt.Sprint(h) != fmt.Sprint(wantH) {
			t.Fatalf("version %d: header %+v, want %+v", v, h, wantH)
		}
		checkEqual(t, want, got)
	}
}
