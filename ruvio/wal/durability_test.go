package wal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// copyDir copies the regular files of src into a new temporary directory,
// as they are at this moment.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == spareName {
			continue // a live log's spare may be renamed while we copy; Open removes it anyway
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// appendLoop appends each records from each of several goroutines, each
// waiting for its record to be durable like a client of an appendfsync
// always server, and returns a channel closed when they are all done.
func appendLoop(t *testing.T, l *Log, workers, each int) <-chan struct{} {
	var wg sync.WaitGroup
	var mu sync.Mutex // keeps payloads matched to sequences (opsFor(seq))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				mu.Lock()
				seq := appendN(l, 1)
				mu.Unlock()
				if err := l.WaitDurable(context.Background(), seq); err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("WaitDurable(%d): %v", seq, err)
					}
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// running reports whether done is still open.
func running(done <-chan struct{}) bool {
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// TestAlwaysDurableIsOnDisk copies the log's files right after WaitDurable
// returns, while other writers keep appending, and checks that the copy
// opens with every record up to that sequence.
func TestAlwaysDurableIsOnDisk(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, Options{Dir: dir, Mode: Always, SegmentBytes: 2048})
	done := appendLoop(t, l, 4, 100)
	for i := 0; i < 3 || running(done); i++ {
		seq := l.Last()
		if err := l.WaitDurable(context.Background(), seq); err != nil {
			t.Fatal(err)
		}
		cp := copyDir(t, dir)
		c := mustOpen(t, Options{Dir: cp, Mode: Always})
		if c.Last() < seq {
			t.Fatalf("copy after WaitDurable(%d) ends at %d", seq, c.Last())
		}
		checkRecords(t, collect(t, c, 0), 1, c.Last())
		c.Close()
	}
	<-done
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAlwaysDurableSurvivesCrash is the strict version: the copy keeps only
// fsynced bytes and fsynced directory entries, as a power cut would.
func TestAlwaysDurableSurvivesCrash(t *testing.T) {
	fs := newMemFS()
	fs.syncDelay = 50 * time.Microsecond
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, SegmentBytes: 1024, fs: fs})
	done := appendLoop(t, l, 8, 150)
	for i := 0; i < 3 || running(done); i++ {
		seq := l.Durable()
		crashed := fs.crash(nil)
		c := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: crashed})
		if c.Last() < seq {
			t.Fatalf("crash after Durable() = %d kept records only up to %d", seq, c.Last())
		}
		checkRecords(t, collect(t, c, 0), 1, c.Last())
		c.Close()
	}
	<-done
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// appendAndWait has clients goroutines each append each records one at a
// time and wait for each with wait.
func appendAndWait(t *testing.T, l *Log, clients, each int, wait func(context.Context, uint64) error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				mu.Lock()
				seq := appendN(l, 1)
				mu.Unlock()
				if err := wait(context.Background(), seq); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestGroupCommit runs 50 clients appending and waiting concurrently; while
// one fsync runs, the others' records pile up and share the next one.
func TestGroupCommit(t *testing.T) {
	const clients, each = 50, 20
	fs := newMemFS()
	fs.syncDelay = time.Millisecond // a disk's fsync takes time; appends race it
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
	appendAndWait(t, l, clients, each, l.WaitDurable)
	if l.Durable() != clients*each {
		t.Fatalf("durable %d", l.Durable())
	}
	fsyncs := l.Stats().Fsyncs
	t.Logf("%d records, %d fsyncs (%.1f records per fsync)", clients*each, fsyncs, float64(clients*each)/float64(fsyncs))
	if fsyncs > clients*each/5 {
		t.Fatalf("%d fsyncs for %d records: appends are not sharing fsyncs", fsyncs, clients*each)
	}
	checkRecords(t, collect(t, l, 0), 1, clients*each)
	l.Close()
}

// TestEverySecWaitersWriteTogether runs 50 clients appending and waiting
// for their records written, while the writer ticks and fsyncs: each
// waiter writes what is pending or finds it written by another pass, and
// every record reaches the file once, in order.
func TestEverySecWaitersWriteTogether(t *testing.T) {
	const clients, each = 50, 20
	fs := newMemFS()
	fs.syncDelay = time.Millisecond
	l := mustOpen(t, Options{Dir: "/wal", Mode: EverySec, FsyncInterval: 2 * time.Millisecond, fs: fs})
	appendAndWait(t, l, clients, each, func(ctx context.Context, seq uint64) error {
		if err := l.WaitWritten(ctx, seq); err != nil {
			return err
		}
		if l.Written() < seq {
			return fmt.Errorf("WaitWritten(%d) returned at written %d", seq, l.Written())
		}
		return nil
	})
	checkRecords(t, collect(t, l, 0), 1, clients*each)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
	defer r.Close()
	checkRecords(t, collect(t, r, 0), 1, clients*each)
}

// TestEverySecWaiterDoesNotWaitForTheFsync holds the writer inside its
// once-a-second fsync: a waiter must still get its records written.
func TestEverySecWaiterDoesNotWaitForTheFsync(t *testing.T) {
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: EverySec, FsyncInterval: 5 * time.Millisecond, fs: fs})
	if err := l.WaitWritten(context.Background(), appendN(l, 3)); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fs.mu.Lock()
	fs.beforeSync = func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	fs.mu.Unlock()
	<-entered // the writer's tick is fsyncing records 1-3, and stays there
	seq := appendN(l, 2)
	written := make(chan error, 1)
	go func() { written <- l.WaitWritten(context.Background(), seq) }()
	select {
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("WaitWritten waited for the writer's fsync")
	}
	if l.Durable() >= seq {
		t.Fatalf("durable %d while the fsync of records up to 3 is held", l.Durable())
	}
	close(release)
	waitFor(t, "the held fsync and the next tick", func() bool { return l.Durable() >= seq })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEverySecLagsAndCatchesUp: records are written when a caller waits
// for them, and Durable moves only when the ticker (or Sync) fsyncs.
func TestEverySecLagsAndCatchesUp(t *testing.T) {
	t.Run("lags until fsync", func(t *testing.T) {
		fs := newMemFS()
		l := mustOpen(t, Options{Dir: "/wal", Mode: EverySec, FsyncInterval: time.Hour, fs: fs})
		defer l.Close()
		seq := appendN(l, 10)
		// Nothing wakes the writer for ten small records: they wait for
		// a caller that needs them written.
		if l.Stats().PendingBytes == 0 || l.Size() > headerSize {
			t.Fatalf("written before anyone waited: %d bytes pending, file %d bytes", l.Stats().PendingBytes, l.Size())
		}
		// WaitWritten writes them in the caller, without any fsync.
		if err := l.WaitWritten(context.Background(), seq); err != nil {
			t.Fatal(err)
		}
		if l.Written() != seq || l.Stats().PendingBytes != 0 || l.Size() <= headerSize {
			t.Fatalf("after WaitWritten: written %d of %d, %d bytes pending, file %d bytes", l.Written(), seq, l.Stats().PendingBytes, l.Size())
		}
		if l.Durable() != 0 {
			t.Fatalf("durable %d before any fsync of the records", l.Durable())
		}
		c := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs.crash(nil)})
		if c.Last() != 0 {
			t.Fatalf("records survived a crash without an fsync: last %d", c.Last())
		}
		c.Close()
		if err := l.Sync(); err != nil {
			t.Fatal(err)
		}
		if l.Durable() != seq {
			t.Fatalf("after Sync durable %d, want %d", l.Durable(), seq)
		}
	})
	t.Run("a full buffer wakes the writer", func(t *testing.T) {
		fs := newMemFS()
		l := mustOpen(t, Options{Dir: "/wal", Mode: EverySec, FsyncInterval: time.Hour, fs: fs})
		defer l.Close()
		big := bytes.Repeat([]byte("v"), 4096)
		for l.Stats().PendingBytes+4200 < deferredWakeBytes {
			l.Append(1, [][][]byte{{[]byte("SET"), []byte("k"), big}})
		}
		// One more crosses the threshold: the writer writes without a waiter.
		seq := l.Append(1, [][][]byte{{[]byte("SET"), []byte("k"), big}})
		waitFor(t, "the writer writes the full buffer", func() bool { return l.Written() == seq })
		if l.Durable() != 0 {
			t.Fatalf("durable %d before any fsync", l.Durable())
		}
	})
	t.Run("ticker catches up", func(t *testing.T) {
		fs := newMemFS()
		const interval = 20 * time.Millisecond
		l := mustOpen(t, Options{Dir: "/wal", Mode: EverySec, FsyncInterval: interval, fs: fs})
		defer l.Close()
		for round := 0; round < 5; round++ {
			seq := appendN(l, 25)
			start := time.Now()
			waitFor(t, "durable catches up", func() bool { return l.Durable() >= seq })
			if d := time.Since(start); d > 50*interval {
				t.Logf("round %d: caught up after %v (interval %v)", round, d, interval)
			}
		}
		// Fsyncs follow the ticker, not the appends.
		if f := l.Stats().Fsyncs; f > 50 {
			t.Fatalf("%d fsyncs for 125 records in everysec mode", f)
		}
	})
}

// waitFor polls cond until it holds, failing after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	poll.Until(t, 10*time.Second, what, cond)
}

func TestFsyncFailureIsFatal(t *testing.T) {
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
	seq := appendN(l, 5)
	if err := l.WaitDurable(context.Background(), seq); err != nil {
		t.Fatal(err)
	}
	injected := errors.New("injected EIO")
	fs.mu.Lock()
	fs.syncErr = injected
	fs.mu.Unlock()
	bad := appendN(l, 1)
	if err := l.WaitDurable(context.Background(), bad); !errors.Is(err, injected) {
		t.Fatalf("WaitDurable after a failed fsync: %v", err)
	}
	// Even if the disk recovers, the log does not pretend.
	fs.mu.Lock()
	fs.syncErr = nil
	fs.mu.Unlock()
	later := appendN(l, 1)
	if err := l.WaitDurable(context.Background(), later); !errors.Is(err, injected) {
		t.Fatalf("WaitDurable after recovery: %v", err)
	}
	if l.Durable() != seq {
		t.Fatalf("durable advanced to %d past the failure", l.Durable())
	}
	if err := l.WaitDurable(context.Background(), seq); err != nil {
		t.Fatalf("already-durable sequence: %v", err)
	}
	if err := l.Sync(); !errors.Is(err, injected) {
		t.Fatalf("Sync: %v", err)
	}
	if err := l.Replay(0, func(Record) error { return nil }); !errors.Is(err, injected) {
		t.Fatalf("Replay on a failed log: %v", err)
	}
	if err := l.Close(); !errors.Is(err, injected) {
		t.Fatalf("Close: %v", err)
	}
}

func TestWriteFailureIsFatal(t *testing.T) {
	fs := newMemFS()
	l := mustOpen(t, Options{Dir: "/wal", Mode: EverySec, FsyncInterval: time.Hour, fs: fs})
	appendN(l, 3)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	injected := errors.New("injected ENOSPC")
	fs.mu.Lock()
	fs.writeErr = injected
	fs.mu.Unlock()
	seq := appendN(l, 3)
	if err := l.WaitDurable(context.Background(), seq); !errors.Is(err, injected) {
		t.Fatalf("WaitDurable after a failed write: %v", err)
	}
	if l.Durable() != 3 {
		t.Fatalf("durable %d", l.Durable())
	}
	l.Close()
	// The half-written record is a torn tail to the next Open.
	fs.mu.Lock()
	fs.writeErr = nil
	fs.mu.Unlock()
	r := mustOpen(t, Options{Dir: "/wal", Mode: Always, fs: fs})
	defer r.Close()
	// Half the batch reached the file: any complete record in that half is
	// kept, the cut-off one is not.
	if r.Last() < 3 || r.Last() >= seq {
		t.Fatalf("reopened last %d", r.Last())
	}
	checkRecords(t, collect(t, r, 0), 1, r.Last())
	if _, _, _, ok := r.TornTail(); !ok {
		t.Fatal("no torn tail reported for the half-written record")
	}
}

func TestWaitDurable(t *testing.T) {
	l := mustOpen(t, Options{Dir: t.TempDir(), Mode: EverySec, FsyncInterval: time.Hour})
	defer l.Close()
	seq := appendN(l, 3)
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	// The fast path allocates nothing.
	if allocs := testing.AllocsPerRun(1000, func() {
		if l.WaitDurable(context.Background(), seq) != nil {
			t.Fatal("not durable")
		}
	}); allocs != 0 {
		t.Fatalf("WaitDurable fast path allocates %.1f times", allocs)
	}
	// A wait that cannot finish ends with the context.
	next := appendN(l, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.WaitDurable(ctx, next); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitDurable with an expiring context: %v", err)
	}
	// DurableNotify closes when Durable moves.
	ch := l.DurableNotify()
	select {
	case <-ch:
		t.Fatal("notify closed before Durable moved")
	default:
	}
	var done atomic.Bool
	go func() {
		<-ch
		done.Store(true)
	}()
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "notify closed", done.Load)
	if l.Durable() != next {
		t.Fatalf("durable %d", l.Durable())
	}
}
