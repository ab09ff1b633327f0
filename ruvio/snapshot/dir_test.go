package snapshot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ruvio/ruvio/ruvio/keyspace"
)

func TestFileName(t *testing.T) {
	if got := FileName(42); got != "snap-00000000000000000042.rsnap" {
		t.Fatalf("FileName(42) = %q", got)
	}
	if got := FileName(^uint64(0)); got != "snap-18446744073709551615.rsnap" {
		t.Fatalf("FileName(max) = %q", got)
	}
	for _, c := range []struct {
		name    string
		seq     uint64
		tmp, ok bool
	}{
		{FileName(7), 7, false, true},
		{FileName(7) + ".tmp", 7, true, true},
		{"snap-7.rsnap", 0, false, false},
		{"snap-0000000000000000000x.rsnap", 0, false, false},
		{"snap-99999999999999999999.rsnap", 0, false, false}, // > uint64
		{FileName(7) + ".bak", 0, false, false},
		{"wal", 0, false, false},
	} {
		seq, tmp, ok := parseName(c.name)
		if seq != c.seq || tmp != c.tmp || ok != c.ok {
			t.Errorf("parseName(%q) = %d, %v, %v", c.name, seq, tmp, ok)
		}
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	n, err := readNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLatestAndRemoveOlder(t *testing.T) {
	dir := t.TempDir()
	if _, _, ok, err := Latest(dir); ok || err != nil {
		t.Fatalf("empty dir: ok=%v err=%v", ok, err)
	}
	if _, _, ok, err := Latest(filepath.Join(dir, "missing")); ok || err != nil {
		t.Fatalf("missing dir: ok=%v err=%v", ok, err)
	}
	for _, seq := range []uint64{5, 100, 20} {
		writeSnap(t, dir, Header{Seq: seq}, map[string]keyspace.Entry{"k": {Val: []byte("v")}}, 0)
	}
	// Leftovers of crashed writes, newer and older than every complete
	// snapshot, and files that are not snapshots at all.
	touch(t, filepath.Join(dir, FileName(500)+tmpSuffix))
	touch(t, filepath.Join(dir, FileName(1)+tmpSuffix))
	touch(t, filepath.Join(dir, "notes.txt"))
	touch(t, filepath.Join(dir, "snap-12.rsnap"))
	if err := os.Mkdir(filepath.Join(dir, FileName(900)), 0o755); err != nil {
		t.Fatal(err)
	}

	path, seq, ok, err := Latest(dir)
	if err != nil || !ok || seq != 100 || path != filepath.Join(dir, FileName(100)) {
		t.Fatalf("Latest = %q, %d, %v, %v", path, seq, ok, err)
	}
	if seqs, err := List(dir); err != nil || !slices.Equal(seqs, []uint64{5, 20, 100}) {
		t.Fatalf("List = %v, %v", seqs, err)
	}

	// A snapshot being written right now must survive RemoveOlder.
	live, err := Create(dir, Header{Seq: 300})
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveOlder(dir, 20); err != nil {
		t.Fatal(err)
	}
	want := []string{"notes.txt", "snap-12.rsnap", FileName(20), FileName(100), FileName(300) + tmpSuffix}
	slices.Sort(want)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("after RemoveOlder: %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName(900))); err != nil {
		t.Fatalf("directory with a snapshot's name was touched: %v", err)
	}
	if err := live.Add("k", &keyspace.Entry{Val: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Commit(); err != nil {
		t.Fatalf("live writer broken by RemoveOlder: %v", err)
	}
	if _, seq, _, _ := Latest(dir); seq != 300 {
		t.Fatalf("Latest after commit = %d", seq)
	}
	if err := RemoveOlder(dir, 300); err != nil {
		t.Fatal(err)
	}
	if seqs, _ := List(dir); !slices.Equal(seqs, []uint64{300}) {
		t.Fatalf("List = %v", seqs)
	}
	if err := RemoveOlder(filepath.Join(dir, "missing"), 1); err != nil {
		t.Fatalf("RemoveOlder(missing dir) = %v", err)
	}
}

// Latest never returns an incomplete snapshot, even the newest one.
func TestLatestIgnoresTemp(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Seq: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.Add("k", &keyspace.Entry{Val: []byte("v")})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := Latest(dir); ok || err != nil {
		t.Fatalf("Latest saw the temp file: ok=%v err=%v", ok, err)
	}
}

func TestCreateOwnsItsTempFile(t *testing.T) {
	dir := t.TempDir()
	// A stale temp file from a crash is replaced.
	touch(t, filepath.Join(dir, FileName(3)+tmpSuffix))
	w, err := Create(dir, Header{Seq: 3})
	if err != nil {
		t.Fatal(err)
	}
	// A second writer for the same file is refused while the first lives,
	// also when the directory is spelled differently.
	if _, err := Create(dir+"/.", Header{Seq: 3}); err == nil {
		t.Fatal("two writers for one temp file")
	}
	path, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if _, n, err := Verify(path); err != nil || n != 0 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
	// Once committed the name is free again; a snapshot at the same
	// sequence (nothing written in between) replaces the old one.
	w, err = Create(dir, Header{Seq: 3})
	if err != nil {
		t.Fatal(err)
	}
	w.Add("k", &keyspace.Entry{Val: []byte("v")})
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, n, err := Verify(path); err != nil || n != 1 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{FileName(3)}) {
		t.Fatalf("files %v", got)
	}
}

func TestCreateInMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Create(missing, Header{}); err == nil {
		t.Fatal("Create in a missing directory succeeded")
	}
	// The failed Create must not leave its name claimed.
	if isLive(filepath.Join(missing, FileName(0)+tmpSuffix)) {
		t.Fatal("claim leaked")
	}
}
