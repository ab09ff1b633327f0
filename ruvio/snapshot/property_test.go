package snapshot

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// Short strings from a small alphabet collide often (exercising duplicate
// members the generator must fold) and include bytes that matter in a
// binary format: 0x00, 0x80 (a varint continuation bit) and 0xff.
var (
	genBytes = rapid.SliceOfN(rapid.SampledFrom([]byte{0, 'a', 'b', 0x7f, 0x80, 0xff}), 0, 12)
	genStr   = rapid.Map(genBytes, func(b []byte) string { return string(b) })
	// A few long values so entries cross small blocks many times over.
	genValue = rapid.OneOf(genBytes, rapid.SliceOfN(rapid.Byte(), 0, 3000))
	genScore = rapid.OneOf(
		rapid.Float64(),
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.SmallestNonzeroFloat64}),
	)
	genExpiry = rapid.OneOf(rapid.Just(int64(0)), rapid.Int64())
)

func genEntry() *rapid.Generator[keyspace.Entry] {
	return rapid.Custom(func(t *rapid.T) keyspace.Entry {
		e := keyspace.Entry{ExpireAt: genExpiry.Draw(t, "expireAt")}
		switch rapid.IntRange(0, 4).Draw(t, "type") {
		case 0:
			e.Val = genValue.Draw(t, "string")
		case 1:
			d := deque.New()
			for _, el := range rapid.SliceOfN(genValue, 0, 20).Draw(t, "list") {
				d.PushBack(el)
			}
			e.Val = d
		case 2:
			m := map[string]struct{}{}
			for _, s := range rapid.SliceOfN(genStr, 0, 20).Draw(t, "set") {
				m[s] = struct{}{}
			}
			e.Val = m
		case 3:
			s := sortedset.New()
			n := rapid.IntRange(0, 20).Draw(t, "zsetLen")
			for i := range n {
				score := genScore.Draw(t, fmt.Sprint("score", i))
				if score == score {
					s.Add(genStr.Draw(t, fmt.Sprint("member", i)), score)
				}
			}
			e.Val = s
		case 4:
			h := hash.New()
			n := rapid.IntRange(0, 20).Draw(t, "hashLen")
			for i := range n {
				h.Set(genStr.Draw(t, fmt.Sprint("field", i)), genValue.Draw(t, fmt.Sprint("value", i)))
			}
			e.Val = h
		}
		return e
	})
}

// Any keyspace, written with any block size and header, loads back equal.
func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		entries := rapid.MapOfN(genStr, genEntry(), 0, 30).Draw(rt, "keyspace")
		block := rapid.OneOf(rapid.IntRange(1, 64), rapid.Just(blockSize)).Draw(rt, "block")
		h := Header{
			Shard:     rapid.IntRange(0, math.MaxInt32).Draw(rt, "shard"),
			Seq:       rapid.Uint64().Draw(rt, "seq"),
			Epoch:     rapid.Uint64().Draw(rt, "epoch"),
			CreatedMs: rapid.Int64().Draw(rt, "created"),
		}
		for _, p := range rapid.SliceOfN(rapid.SliceOfN(rapid.Uint64(), 3, 3), 0, 5).Draw(rt, "history") {
			h.History = append(h.History, EpochStart{Epoch: p[0], FirstSeq: p[1], ID: p[2]})
		}
		dir := t.TempDir()
		path := writeSnap(rt, dir, h, entries, block)
		got, loaded, err := loadAll(path)
		if err != nil {
			rt.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(h) {
			rt.Fatalf("header %+v, want %+v", got, h)
		}
		checkEqual(rt, entries, loaded)
	})
}
