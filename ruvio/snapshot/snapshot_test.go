package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// describe renders a value canonically (collections sorted, scores as
// bits), so two values print alike exactly when they are equal.
func describe(v any) string {
	var b strings.Builder
	switch v := v.(type) {
	case []byte:
		fmt.Fprintf(&b, "string %q", v)
	case *deque.Deque:
		fmt.Fprintf(&b, "list %d [", v.Len())
		for el := range v.All() {
			fmt.Fprintf(&b, "%q,", el)
		}
		b.WriteString("]")
	case map[string]struct{}:
		fmt.Fprintf(&b, "set %q", slices.Sorted(maps.Keys(v)))
	case *sortedset.Set:
		fmt.Fprintf(&b, "zset %d [", v.Len())
		for it := range v.Each {
			fmt.Fprintf(&b, "%q=%x,", it.Member, math.Float64bits(it.Score))
		}
		b.WriteString("]")
	case *hash.Hash:
		b.WriteString("hash [")
		var fields []string
		for f := range v.Range {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		for _, f := range fields {
			val, _ := v.Get(f)
			fmt.Fprintf(&b, "%q=%q,", f, val)
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(&b, "unknown %T", v)
	}
	return b.String()
}

func describeEntry(e keyspace.Entry) string {
	return fmt.Sprintf("exp=%d %s", e.ExpireAt, describe(e.Val))
}

// tb is what the helpers need of *testing.T, *testing.B and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// writeSnap writes entries (in key order) with the given block payload
// size (0 = the format's), flushing every few keys as the server does.
func writeSnap(t tb, dir string, h Header, entries map[string]keyspace.Entry, block int) string {
	t.Helper()
	w, err := Create(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	if block > 0 {
		w.blockSize = block
	}
	for i, k := range slices.Sorted(maps.Keys(entries)) {
		e := entries[k]
		if err := w.Add(k, &e); err != nil {
			w.Abort()
			t.Fatal(err)
		}
		if i%7 == 6 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	path, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// loadAll loads path into a map, failing on duplicate keys.
func loadAll(path string) (Header, map[string]keyspace.Entry, error) {
	got := map[string]keyspace.Entry{}
	h, err := Load(path, func(k string, e keyspace.Entry) error {
		if _, dup := got[k]; dup {
			return fmt.Errorf("key %q loaded twice", k)
		}
		got[k] = e
		return nil
	})
	return h, got, err
}

func checkEqual(t tb, want, got map[string]keyspace.Entry) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("loaded %d keys, want %d", len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("key %q missing", k)
		}
		if dw, dg := describeEntry(w), describeEntry(g); dw != dg {
			t.Fatalf("key %q:\n got %.200s\nwant %.200s", k, dg, dw)
		}
	}
}

func zset(items ...sortedset.Item) *sortedset.Set {
	s := sortedset.New()
	for _, it := range items {
		s.Add(it.Member, it.Score)
	}
	return s
}

// sample holds every type, with the awkward cases: empty strings and
// members, binary keys, extreme scores and expiries.
func sample() map[string]keyspace.Entry {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*blockSize/16+5) // > 3 blocks
	bigList := deque.New()
	for i := range 5000 {
		bigList.PushBack([]byte(fmt.Sprintf("element-%d", i)))
	}
	return map[string]keyspace.Entry{
		"str":                            {Val: []byte("hello")},
		"":                               {Val: []byte("empty key")},
		"empty-val":                      {Val: []byte{}},
		"nil-val":                        {Val: []byte(nil)},
		"\x00\xff\n\r bin":               {Val: []byte{0, 1, 2, 0xff}},
		"expiring":                       {Val: []byte("x"), ExpireAt: 1_700_000_000_123},
		"negative-expiry":                {Val: []byte("x"), ExpireAt: -5},
		"big":                            {Val: big, ExpireAt: 42},
		strings.Repeat("k", 2*blockSize): {Val: []byte("big key")},
		"list":                           {Val: deque.New([]byte("a"), []byte(""), []byte("a"), []byte("\x00"))},
		"list-empty":                     {Val: deque.New()},
		"list-big":                       {Val: bigList, ExpireAt: 99},
		"set":                            {Val: map[string]struct{}{"a": {}, "": {}, "\xff": {}}},
		"set-empty":                      {Val: map[string]struct{}{}},
		"hash":                           {Val: hash.FromMap(map[string][]byte{"f": []byte("v"), "": []byte(""), "g": nil})},
		"hash-empty":                     {Val: hash.New()},
		"hash-bigval":                    {Val: hash.FromMap(map[string][]byte{"f": big})},
		"zset": {Val: zset(
			sortedset.Item{Member: "a", Score: 1.5},
			sortedset.Item{Member: "", Score: math.Inf(-1)},
			sortedset.Item{Member: "inf", Score: math.Inf(1)},
			sortedset.Item{Member: "negzero", Score: math.Copysign(0, -1)},
			sortedset.Item{Member: "tiny", Score: math.SmallestNonzeroFloat64},
			sortedset.Item{Member: "b", Score: 1.5},
		), ExpireAt: 7},
		"zset-empty": {Val: sortedset.New()},
		// A skiplist keeps -0 on every member; the loaded set must too.
		"zset-big-negzero": {Val: sortedset.FromItems(negZeros(200))},
	}
}

// negZeros returns n members scoring -0.
func negZeros(n int) []sortedset.Item {
	items := make([]sortedset.Item, n)
	for i := range items {
		items[i] = sortedset.Item{Member: fmt.Sprintf("m%03d", i), Score: math.Copysign(0, -1)}
	}
	return items
}

var testHeader = Header{
	Shard: 3, Seq: 123456789, Epoch: 4,
	History:   []EpochStart{{1, 1, 0}, {2, 1000, 5}, {4, 1 << 40, 1<<64 - 1}},
	CreatedMs: 1_700_000_000_000,
}

func TestRoundTripEveryType(t *testing.T) {
	for _, block := range []int{0, 1, 3, 100} {
		t.Run(fmt.Sprintf("block=%d", block), func(t *testing.T) {
			dir := t.TempDir()
			want := sample()
			path := writeSnap(t, dir, testHeader, want, block)
			if filepath.Base(path) != FileName(testHeader.Seq) {
				t.Fatalf("committed as %s", path)
			}
			h, got, err := loadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(h) != fmt.Sprint(testHeader) {
				t.Fatalf("header %+v, want %+v", h, testHeader)
			}
			checkEqual(t, want, got)
			vh, n, err := Verify(path)
			if err != nil || n != int64(len(want)) || vh.Seq != testHeader.Seq {
				t.Fatalf("Verify = %+v, %d, %v", vh, n, err)
			}
		})
	}
}

func TestEmptySnapshot(t *testing.T) {
	dir := t.TempDir()
	path := writeSnap(t, dir, Header{}, nil, 0)
	h, got, err := loadAll(path)
	if err != nil || len(got) != 0 || fmt.Sprint(h) != fmt.Sprint(Header{}) {
		t.Fatalf("Load = %+v, %d keys, %v", h, len(got), err)
	}
}

// Values handed out must not share memory with each other or with the
// reader's buffers: each value is overwritten with a pattern of its own,
// and had two shared memory, the later write would show in the earlier.
func TestLoadedValuesAreFresh(t *testing.T) {
	dir := t.TempDir()
	want := map[string]keyspace.Entry{}
	for i := range 20000 {
		want[fmt.Sprintf("k%05d", i)] = keyspace.Entry{Val: []byte(fmt.Sprintf("v%09d", i))}
	}
	path := writeSnap(t, dir, Header{}, want, 0)
	var vals [][]byte
	_, err := Load(path, func(k string, e keyspace.Entry) error {
		v := e.Val.([]byte)
		if cap(v) != len(v) {
			// Room past the end would let an append write over a neighbour.
			return fmt.Errorf("key %q: cap %d, len %d", k, cap(v), len(v))
		}
		vals = append(vals, v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		copy(v, fmt.Sprintf("#%09d", i))
	}
	for i, v := range vals {
		if want := fmt.Sprintf("#%09d", i); string(v) != want {
			t.Fatalf("value %d is %q, want %q: values share memory", i, v, want)
		}
	}
}

// Add must copy: the caller mutates and reuses values once its lock is
// released, before Flush writes them.
func TestAddCopiesValues(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Seq: 1})
	if err != nil {
		t.Fatal(err)
	}
	val := []byte("original")
	h := hash.FromMap(map[string][]byte{"f": []byte("v1")})
	l := deque.New([]byte("x"))
	if err := w.Add("s", &keyspace.Entry{Val: val}); err != nil {
		t.Fatal(err)
	}
	if err := w.Add("h", &keyspace.Entry{Val: h}); err != nil {
		t.Fatal(err)
	}
	if err := w.Add("l", &keyspace.Entry{Val: l}); err != nil {
		t.Fatal(err)
	}
	copy(val, "CHANGED!")
	stored, _ := h.Get("f")
	stored[0] = 'X'
	h.Set("g", []byte("new"))
	l.PushBack([]byte("y"))
	path, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := loadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, map[string]keyspace.Entry{
		"s": {Val: []byte("original")},
		"h": {Val: hash.FromMap(map[string][]byte{"f": []byte("v1")})},
		"l": {Val: deque.New([]byte("x"))},
	}, got)
}

func TestAddRejectsUnknownTypes(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Seq: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := []any{"a string", 42, nil, []string{"x"}, (*deque.Deque)(nil), (*sortedset.Set)(nil), (*hash.Hash)(nil)}
	for _, v := range bad {
		if err := w.Add("k", &keyspace.Entry{Val: v}); err == nil {
			t.Errorf("Add(%T) succeeded", v)
		}
	}
	if err := w.Add("k", nil); err == nil {
		t.Error("Add(nil entry) succeeded")
	}
	// A rejected value adds nothing: the file still loads, with the one
	// good key.
	if err := w.Add("good", &keyspace.Entry{Val: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	path, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := loadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, map[string]keyspace.Entry{"good": {Val: []byte("v")}}, got)
}

// Add does no file I/O: everything stays buffered until Flush.
func TestAddOnlyBuffers(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Seq: 9})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for i := range 10000 {
		if err := w.Add(fmt.Sprint(i), &keyspace.Entry{Val: []byte("0123456789")}); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, FileName(9)+tmpSuffix)
	if st, err := os.Stat(tmp); err != nil || st.Size() != 0 {
		t.Fatalf("before Flush: %v, %v", st, err)
	}
	buffered := w.Buffered()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(tmp)
	if err != nil || st.Size() == 0 || st.Size() > int64(buffered) {
		t.Fatalf("after Flush: %v, %v (buffered %d)", st, err, buffered)
	}
	// Only the open, partial block remains buffered.
	if w.Buffered() > frameLen+blockSize {
		t.Fatalf("%d bytes still buffered", w.Buffered())
	}
}

func TestAbortRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Seq: 5})
	if err != nil {
		t.Fatal(err)
	}
	w.Add("k", &keyspace.Entry{Val: []byte("v")})
	w.Flush()
	w.Abort()
	w.Abort()
	if names, _ := readNames(dir); len(names) != 0 {
		t.Fatalf("left %v", names)
	}
	if _, err := w.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
	if err := w.Add("k", &keyspace.Entry{Val: []byte("v")}); err == nil {
		t.Fatal("Add after Abort succeeded")
	}
}

func TestCreateRejectsNegativeShard(t *testing.T) {
	if _, err := Create(t.TempDir(), Header{Shard: -1}); err == nil {
		t.Fatal("negative shard accepted")
	}
}

func TestLoadPropagatesCallbackError(t *testing.T) {
	dir := t.TempDir()
	path := writeSnap(t, dir, Header{}, sample(), 0)
	stop := errors.New("stop here")
	_, err := Load(path, func(string, keyspace.Entry) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
}

// A write that fails leaves no temporary file behind once the snapshot is
// given up, whether the caller calls Abort or goes on to Commit.
func TestFailedWriteCleansUp(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Seq: 8})
	if err != nil {
		t.Fatal(err)
	}
	w.Add("k", &keyspace.Entry{Val: []byte("v")})
	w.f.Close() // the disk goes away
	if err := w.Flush(); err == nil {
		t.Fatal("Flush to a closed file succeeded")
	}
	if err := w.Add("k2", &keyspace.Entry{Val: []byte("v")}); err == nil {
		t.Fatal("Add after a failed Flush succeeded")
	}
	if _, err := w.Commit(); err == nil {
		t.Fatal("Commit after a failed Flush succeeded")
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
	if isLive(filepath.Join(dir, FileName(8)+tmpSuffix)) {
		t.Fatal("the temp file is still claimed")
	}
}
