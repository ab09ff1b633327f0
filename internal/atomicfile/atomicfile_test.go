package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemporaryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made")
	path := filepath.Join(dir, "F")
	for _, want := range []string{"first", "second"} {
		if err := Write(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("the directory holds %d entries, want only F", len(entries))
	}
}

func TestWriteModeGivesTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "F")
	for _, perm := range []os.FileMode{0o640, 0o600} {
		if err := WriteMode(path, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != perm {
			t.Fatalf("mode %v, %v; want %v", st.Mode().Perm(), err, perm)
		}
	}
}
