package snapshot

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/keyspace"
)

const benchKeys = 1_000_000

// benchEntries is a million small string keys, the shape of a cache.
func benchEntries() ([]string, []keyspace.Entry) {
	keys := make([]string, benchKeys)
	entries := make([]keyspace.Entry, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("key:%08d", i)
		entries[i] = keyspace.Entry{Val: []byte(fmt.Sprintf("value-%010d", i))}
		if i%10 == 0 {
			entries[i].ExpireAt = 1_800_000_000_000 + int64(i)
		}
	}
	return keys, entries
}

// writeBench writes the keys as the server does: Add under the lock in
// batches, Flush between them.
func writeBench(b *testing.B, dir string, keys []string, entries []keyspace.Entry) string {
	w, err := Create(dir, Header{Seq: 1, Epoch: 1, History: []EpochStart{{1, 1, 0}}})
	if err != nil {
		b.Fatal(err)
	}
	for i, k := range keys {
		if err := w.Add(k, &entries[i]); err != nil {
			b.Fatal(err)
		}
		if i%4096 == 4095 {
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	path, err := w.Commit()
	if err != nil {
		b.Fatal(err)
	}
	return path
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

func BenchmarkWrite1M(b *testing.B) {
	keys, entries := benchEntries()
	dir := b.TempDir()
	var size int64
	for b.Loop() {
		size = fileSize(b, writeBench(b, dir, keys, entries))
	}
	b.SetBytes(size)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchKeys), "ns/key")
}

// BenchmarkEncode1M is Write without the disk: the time Add keeps a shard
// locked for a million keys.
func BenchmarkEncode1M(b *testing.B) {
	keys, entries := benchEntries()
	dir := b.TempDir()
	for b.Loop() {
		w, err := Create(dir, Header{Seq: 2})
		if err != nil {
			b.Fatal(err)
		}
		for i, k := range keys {
			w.Add(k, &entries[i])
			if i%4096 == 4095 {
				// Drop the encoded batch instead of writing it.
				w.buf, w.sealed = w.buf[:0], 0
				w.open = -1
			}
		}
		w.Abort()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchKeys), "ns/key")
}

func benchLoad(b *testing.B, into func() func(string, keyspace.Entry) error) {
	keys, entries := benchEntries()
	path := writeBench(b, b.TempDir(), keys, entries)
	b.SetBytes(fileSize(b, path))
	for b.Loop() {
		if _, err := Load(path, into()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchKeys), "ns/key")
}

// BenchmarkLoad1M is the snapshot reader alone.
func BenchmarkLoad1M(b *testing.B) {
	benchLoad(b, func() func(string, keyspace.Entry) error {
		return func(string, keyspace.Entry) error { return nil }
	})
}

// BenchmarkLoad1MIntoKeyspace is recovery as the server does it, keyspace
// inserts included.
func BenchmarkLoad1MIntoKeyspace(b *testing.B) {
	benchLoad(b, func() func(string, keyspace.Entry) error {
		db := keyspace.New(func() int64 { return time.Now().UnixMilli() })
		db.Loading = true
		return func(k string, e keyspace.Entry) error {
			db.SetWithExpiry(k, e.Val, e.ExpireAt)
			return nil
		}
	})
}
