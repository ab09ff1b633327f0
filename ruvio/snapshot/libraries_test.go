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

func TestArrivalsEntryRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Shard: 1, Seq: 9})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddArrivals([]byte("0 99 4\n")); err != nil {
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
	var arr Arrivals
	var libs Libraries
	keys := 0
	if _, err := Load(path, func(key string, e keyspace.Entry) error {
		switch v := e.Val.(type) {
		case Arrivals:
			arr = v
		case Libraries:
			libs = v
		default:
			keys++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if string(arr) != "0 99 4\n" || string(libs) != "payload" || keys != 1 {
		t.Fatalf("arrivals %q, libraries %q, %d keys", arr, libs, keys)
	}
	if _, n, err := Verify(path); err != nil || n != 3 {
		t.Fatalf("Verify: %d entries, %v", n, err)
	}
}
