package snapshot

import (
	"bytes"
	"testing"

	"github.com/ruvio/ruvio/ruvio/keyspace"
)

func TestLibrariesEntryRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Shard: 0, Seq: 7})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddLibraries([]byte("payload")); err != nil {
		t.Fatal(err)
	}
	if err := w.Add("k", &keyspace.Entry{Val: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	path, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	var libs Libraries
	keys := 0
	if _, err := Load(path, func(key string, e keyspace.Entry) error {
		if l, ok := e.Val.(Libraries); ok {
			libs = l
		} else {
			keys++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(libs, []byte("payload")) || keys != 1 {
		t.Fatalf("libraries %q, %d keys", libs, keys)
	}
}
