package history

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func sample() *History {
	h := &History{Faults: []Fault{{Kind: "kill", Target: "n1", StartMs: 10, EndMs: 20}}}
	for i := range 2000 {
		h.Ops = append(h.Ops, Op{Process: i % 8, Type: OK, F: FAdd, Key: "set0:1", Value: "p1-" + string(rune('a'+i%26)),
			T0: int64(i) * 1000, T1: int64(i)*1000 + 500, Node: "n1"})
	}
	return h
}

// A history written compressed reads back equal, and so does one
// written plain; ReadFile tells them apart by content.
func TestWriteFileCompressedAndPlain(t *testing.T) {
	dir := t.TempDir()
	h := sample()
	for _, name := range []string{FileName, PlainFileName} {
		p := filepath.Join(dir, name)
		if err := h.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, h) {
			t.Fatalf("%s: read back differs", name)
		}
	}
	zst, _ := os.ReadFile(filepath.Join(dir, FileName))
	plain, _ := os.ReadFile(filepath.Join(dir, PlainFileName))
	if !bytes.HasPrefix(zst, zstdMagic) || len(zst)*5 > len(plain) {
		t.Fatalf("compressed %d bytes against %d plain: not compressed enough", len(zst), len(plain))
	}
	// A compressed file under the plain name still reads.
	renamed := filepath.Join(t.TempDir(), PlainFileName)
	os.WriteFile(renamed, zst, 0o644)
	if got, err := ReadFile(renamed); err != nil || len(got.Ops) != len(h.Ops) {
		t.Fatalf("compressed content under the plain name: %v", err)
	}
}

// Find prefers the compressed history and falls back to the plain one.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	if Find(dir) != "" {
		t.Fatal("Find in an empty folder")
	}
	os.WriteFile(filepath.Join(dir, PlainFileName), nil, 0o644)
	if got := Find(dir); filepath.Base(got) != PlainFileName {
		t.Fatalf("Find = %q", got)
	}
	os.WriteFile(filepath.Join(dir, FileName), nil, 0o644)
	if got := Find(dir); filepath.Base(got) != FileName {
		t.Fatalf("Find = %q", got)
	}
}
