package wal

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

var benchOps = [][][]byte{{[]byte("SET"), []byte("key:000123"), bytes.Repeat([]byte("v"), 64)}}

// BenchmarkAlwaysAppendWait measures what an appendfsync-always client
// sees: Append then WaitDurable, from 1 and from 50 concurrent clients, on
// the real filesystem. fsyncs/op below 1 is group commit at work.
func BenchmarkAlwaysAppendWait(b *testing.B) {
	for _, clients := range []int{1, 50} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			l := mustOpen(b, Options{Dir: b.TempDir(), Mode: Always})
			defer l.Close()
			start := l.Stats().Fsyncs
			b.ResetTimer()
			var wg sync.WaitGroup
			for c := range clients {
				n := b.N / clients
				if c < b.N%clients {
					n++
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range n {
						seq := l.Append(1, benchOps)
						if err := l.WaitDurable(context.Background(), seq); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(l.Stats().Fsyncs-start)/float64(b.N), "fsyncs/op")
		})
	}
}

// BenchmarkAppend is the cost Append adds under the shard lock: encoding
// and checksumming into the buffer, with the writer draining it in the
// background (EverySec, so no fsync per record).
func BenchmarkAppend(b *testing.B) {
	l := mustOpen(b, Options{Dir: b.TempDir(), Mode: EverySec, FsyncInterval: time.Second})
	defer l.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l.Append(1, benchOps)
	}
	b.StopTimer()
	if err := l.Sync(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReplay measures reading records back from disk.
func BenchmarkReplay(b *testing.B) {
	l := mustOpen(b, Options{Dir: b.TempDir(), Mode: EverySec, SegmentBytes: 1 << 20})
	defer l.Close()
	for range 100000 {
		l.Append(1, benchOps)
	}
	if err := l.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	for range b.N {
		if err := l.Replay(0, func(Record) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}
