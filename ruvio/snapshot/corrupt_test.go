package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// described renders entries once, so checking what a damaged load
// delivered does not re-render the expected values every time.
func described(entries map[string]keyspace.Entry) map[string]string {
	d := make(map[string]string, len(entries))
	for k, e := range entries {
		d[k] = describeEntry(e)
	}
	return d
}

// small is a snapshot small enough to damage at every byte, with every
// type and, at a tiny block size, entries split across many blocks.
func small() map[string]keyspace.Entry {
	return map[string]keyspace.Entry{
		"s":  {Val: []byte("value"), ExpireAt: 1234567},
		"e":  {Val: []byte{}},
		"l":  {Val: deque.New([]byte("a"), []byte("bc"))},
		"st": {Val: map[string]struct{}{"m": {}, "n": {}}},
		"z":  {Val: zset(sortedset.Item{Member: "a", Score: 2.5}, sortedset.Item{Member: "b", Score: -1})},
		"h":  {Val: hash.FromMap(map[string][]byte{"f": []byte("v")})},
	}
}

// loadDamaged loads data as a file and checks the outcome is a
// *CorruptError naming the file and an offset at or before limit, and that
// every entry delivered before the error is one of want, unaltered.
func loadDamaged(t *testing.T, dir string, data []byte, want map[string]string, limit int64, what string) *CorruptError {
	t.Helper()
	path := filepath.Join(dir, "damaged.rsnap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, func(k string, e keyspace.Entry) error {
		w, ok := want[k]
		if !ok {
			return fmt.Errorf("%s: delivered unknown key %q", what, k)
		}
		if w != describeEntry(e) {
			return fmt.Errorf("%s: delivered altered key %q", what, k)
		}
		return nil
	})
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: Load returned %v, want a *CorruptError", what, err)
	}
	if ce.File != path {
		t.Fatalf("%s: error names file %q", what, ce.File)
	}
	if ce.Offset < 0 || ce.Offset > limit {
		t.Fatalf("%s: offset %d outside [0, %d]: %v", what, ce.Offset, limit, ce)
	}
	if !strings.Contains(ce.Error(), path) || !strings.Contains(ce.Error(), fmt.Sprint(ce.Offset)) {
		t.Fatalf("%s: message %q lacks file or offset", what, ce.Error())
	}
	return ce
}

func snapBytes(t *testing.T, entries map[string]keyspace.Entry, block int) ([]byte, string) {
	t.Helper()
	dir := t.TempDir()
	path := writeSnap(t, dir, testHeader, entries, block)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, dir
}

// Every damaged byte is caught, at or before where it is, and nothing
// damaged ever reaches the caller.
func TestEveryByteFlipIsCaught(t *testing.T) {
	for _, block := range []int{0, 5} {
		t.Run(fmt.Sprintf("block=%d", block), func(t *testing.T) {
			want := small()
			data, dir := snapBytes(t, want, block)
			wantD := described(want)
			for p := range data {
				for _, mask := range []byte{0x01, 0x80, 0xff} {
					bad := bytes.Clone(data)
					bad[p] ^= mask
					loadDamaged(t, dir, bad, wantD, int64(p), fmt.Sprintf("byte %d ^ %#x", p, mask))
				}
			}
		})
	}
}

// A bigger snapshot, values spanning blocks: damage at sampled positions,
// plus every byte of the header, the footer and the block frames.
func TestSampledByteFlipsAreCaught(t *testing.T) {
	want := sample()
	data, dir := snapBytes(t, want, 0)
	wantD := described(want)
	rng := rand.New(rand.NewPCG(1, 2))
	var positions []int
	for p := range 64 {
		positions = append(positions, p, len(data)-1-p)
	}
	// Every byte of every block's frame header, where a damaged length
	// would misalign everything after it.
	off := prefixLen + int(binary.LittleEndian.Uint32(data[len(magic)+2:]))
	for {
		n := int(binary.LittleEndian.Uint32(data[off:]))
		if n == 0 {
			break
		}
		for i := range frameLen {
			positions = append(positions, off+i)
		}
		off += frameLen + n
	}
	for range 100 {
		positions = append(positions, rng.IntN(len(data)))
	}
	for _, p := range positions {
		bad := bytes.Clone(data)
		bad[p] ^= byte(1 + rng.IntN(255))
		loadDamaged(t, dir, bad, wantD, int64(p), fmt.Sprintf("byte %d", p))
	}
}

func TestEveryTruncationIsCaught(t *testing.T) {
	want := small()
	data, dir := snapBytes(t, want, 7)
	wantD := described(want)
	for n := range len(data) {
		loadDamaged(t, dir, data[:n], wantD, int64(n), fmt.Sprintf("truncated to %d", n))
	}
	// Bigger file: truncate at sampled lengths.
	want = sample()
	data, dir = snapBytes(t, want, 0)
	wantD = described(want)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := rng.IntN(len(data))
		loadDamaged(t, dir, data[:n], wantD, int64(n), fmt.Sprintf("truncated to %d", n))
	}
}

func TestTrailingDataIsCaught(t *testing.T) {
	want := small()
	data, dir := snapBytes(t, want, 0)
	wantD := described(want)
	bad := append(bytes.Clone(data), 0)
	ce := loadDamaged(t, dir, bad, wantD, int64(len(data)), "trailing byte")
	if ce.Offset != int64(len(data)) {
		t.Fatalf("offset %d, want %d", ce.Offset, len(data))
	}
	// A second footer glued on is trailing data too.
	bad = append(bytes.Clone(data), data[len(data)-4-footerLen:]...)
	loadDamaged(t, dir, bad, wantD, int64(len(data)), "doubled footer")
}

func TestNotASnapshot(t *testing.T) {
	dir := t.TempDir()
	ce := loadDamaged(t, dir, []byte("*1\r\n$4\r\nPING\r\n"), nil, 0, "RESP")
	if !strings.Contains(ce.Reason, "magic") {
		t.Fatalf("reason %q", ce.Reason)
	}
}

// withVersion rewrites data's version field and fixes the header CRC, as a
// release writing that version would have.
func withVersion(data []byte, v uint16) []byte {
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint16(bad[len(magic):], v)
	bodyLen := binary.LittleEndian.Uint32(bad[len(magic)+2:])
	body := bad[prefixLen : prefixLen+int(bodyLen)]
	binary.LittleEndian.PutUint32(bad[len(magic)+6:], headerCRC(bad[len(magic):len(magic)+6], body))
	return bad
}

func TestUnknownVersionIsRefused(t *testing.T) {
	data, dir := snapBytes(t, small(), 0)
	for _, v := range []uint16{0, Version + 1, math.MaxUint16} {
		path := filepath.Join(dir, "future.rsnap")
		if err := os.WriteFile(path, withVersion(data, v), 0o644); err != nil {
			t.Fatal(err)
		}
		called := false
		_, err := Load(path, func(string, keyspace.Entry) error { called = true; return nil })
		var ce *CorruptError
		if !errors.Is(err, ErrUnsupportedVersion) || errors.As(err, &ce) || called {
			t.Fatalf("version %d: %v (called %v)", v, err, called)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("format version %d", v)) || !strings.Contains(err.Error(), path) {
			t.Fatalf("version %d: unclear message %q", v, err)
		}
		if _, _, err := Verify(path); !errors.Is(err, ErrUnsupportedVersion) {
			t.Fatalf("Verify: %v", err)
		}
	}
}

// craft builds a file around a hand-made entry stream, with valid
// checksums, to reach the structural checks that the CRCs otherwise
// shadow.
func craft(stream []byte, count uint64) []byte {
	b, crc := appendHeader(nil, &testHeader)
	for len(stream) > 0 {
		n := min(len(stream), blockSize)
		lenField := binary.LittleEndian.AppendUint32(nil, uint32(n))
		b = append(b, lenField...)
		b = binary.LittleEndian.AppendUint32(b, blockCRC(lenField, stream[:n]))
		b = append(b, stream[:n]...)
		stream = stream[n:]
	}
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, count)
	b = binary.LittleEndian.AppendUint32(b, crc)
	return append(b, endMagic...)
}

func TestStructuralDamageWithValidChecksums(t *testing.T) {
	uv := func(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
	str := func(b []byte, s string) []byte { return append(uv(b, uint64(len(s))), s...) }
	head := func(typ byte, key string) []byte { return append(str([]byte{typ}, key), 0) }
	score := func(b []byte, f float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)) }
	good := str(head(typeString, "k"), "v")

	cases := []struct {
		name   string
		stream []byte
		count  uint64
		reason string
	}{
		{"unknown type", append(head(9, "k"), 0), 1, "unknown type"},
		{"huge key length", uv([]byte{typeString}, 1<<62), 1, "exceeds the rest"},
		{"huge value length", uv(head(typeString, "k"), math.MaxUint64), 1, "exceeds the rest"},
		{"huge list", uv(head(typeList, "k"), 1<<40), 1, "cannot fit"},
		{"huge hash", uv(head(typeHash, "k"), 1<<40), 1, "cannot fit"},
		{"huge zset", uv(head(typeZSet, "k"), 1<<40), 1, "cannot fit"},
		{"varint overflow", append(head(typeString, "k"), bytes.Repeat([]byte{0xff}, 11)...), 1, "overflows"},
		{"NaN score", score(str(uv(head(typeZSet, "k"), 1), "m"), math.NaN()), 1, "NaN"},
		{"repeated zset member", score(str(score(str(uv(head(typeZSet, "k"), 2), "m"), 1), "m"), 2), 1, "repeats"},
		{"repeated set member", str(str(uv(head(typeSet, "k"), 2), "m"), "m"), 1, "repeats"},
		{"repeated hash field", str(str(str(str(uv(head(typeHash, "k"), 2), "f"), "1"), "f"), "2"), 1, "repeats"},
		{"entry cut off", head(typeString, "k"), 1, "cut off"},
		{"value cut off", uv(head(typeString, "k"), 5), 1, "cut off"},
		{"count too high", good, 2, "counts 2 entries"},
		{"count too low", append(bytes.Clone(good), good...), 1, "counts 1 entries"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		data := craft(c.stream, c.count)
		ce := loadDamaged(t, dir, data, described(map[string]keyspace.Entry{"k": {Val: []byte("v")}}), int64(len(data)), c.name)
		if !strings.Contains(ce.Reason, c.reason) {
			t.Errorf("%s: reason %q, want it to mention %q", c.name, ce.Reason, c.reason)
		}
	}
	// The crafting itself is sound: a well-formed stream loads.
	path := filepath.Join(dir, "good.rsnap")
	if err := os.WriteFile(path, craft(good, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, n, err := Verify(path); err != nil || n != 1 {
		t.Fatalf("Verify(good) = %d, %v", n, err)
	}
}

// A footer from another snapshot (same entries, different header) is
// refused: the footer repeats its own header's checksum.
func TestFooterMustMatchHeader(t *testing.T) {
	want := small()
	a, dir := snapBytes(t, want, 0)
	wantD := described(want)
	other := testHeader
	other.Epoch++
	path := writeSnap(t, t.TempDir(), other, want, 0)
	bData, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spliced := append(bytes.Clone(a[:len(a)-footerLen]), bData[len(bData)-footerLen:]...)
	ce := loadDamaged(t, dir, spliced, wantD, int64(len(a)), "spliced footer")
	if !strings.Contains(ce.Reason, "another header") {
		t.Fatalf("reason %q", ce.Reason)
	}
}

// FuzzLoad: whatever the bytes, Load returns (no panic, no runaway
// allocation), and any failure is a CorruptError or a version refusal.
func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	for i, block := range []int{0, 3} {
		path := writeSnap(f, dir, Header{Seq: uint64(i)}, small(), block)
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.rsnap")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Verify(path)
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) && !errors.Is(err, ErrUnsupportedVersion) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}
