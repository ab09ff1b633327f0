package wal

import (
	"context"
	"testing"
	"time"
)

// TestStatsCountAppendsBytesAndFsyncs: the counters the metrics listener
// exports follow what the log did.
func TestStatsCountAppendsBytesAndFsyncs(t *testing.T) {
	fs := newMemFS()
	fs.syncDelay = 2 * time.Millisecond
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
	defer l.Close()
	before := l.Stats()
	for range 5 {
		if err := l.WaitDurable(context.Background(), appendN(l, 1)); err != nil {
			t.Fatal(err)
		}
	}
	st := l.Stats()
	if got := st.Appends - before.Appends; got != 5 {
		t.Errorf("appends %d, want 5", got)
	}
	// The segments also hold their headers.
	if added, grown := st.AppendedBytes-before.AppendedBytes, st.Bytes-before.Bytes; added <= 0 || added > grown {
		t.Errorf("appended bytes %d, the segments grew %d", added, grown)
	}
	if st.FsyncTime.Count != uint64(st.Fsyncs) || st.Fsyncs < 5 {
		t.Errorf("fsync times %d, fsyncs %d (want one time per fsync, at least 5)", st.FsyncTime.Count, st.Fsyncs)
	}
	if st.FsyncTime.Sum < time.Duration(st.Fsyncs)*fs.syncDelay {
		t.Errorf("fsync time %s over %d fsyncs of at least %s each", st.FsyncTime.Sum, st.Fsyncs, fs.syncDelay)
	}
}
