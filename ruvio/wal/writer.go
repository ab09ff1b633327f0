package wal

import (
	"encoding/binary"
	"fmt"
	"os"
	"time"
)

// maxSpareCap bounds the buffer the writer keeps for reuse, so that one
// burst does not pin a large allocation for the life of the log.
const maxSpareCap = 4 << 20

// run is the writer goroutine: it waits for appends (or the EverySec tick)
// and flushes, until Close asks it to make a last pass and exit.
func (l *Log) run() {
	defer close(l.done)
	var tick <-chan time.Time
	if l.mode == EverySec {
		t := time.NewTicker(l.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-l.wake:
		case <-tick:
			l.mu.Lock()
			l.tickDue = true
			l.mu.Unlock()
		}
		l.flushMu.Lock()
		exit, fsync := l.flush(writerPass)
		l.flushMu.Unlock()
		if fsync.seg != nil {
			l.syncTo(fsync)
		}
		if exit {
			return
		}
	}
}

// pass is who runs a flush pass, and so what it does beyond writing.
type pass int

const (
	// writerPass is the writer goroutine's: it fsyncs when the mode or a
	// Sync, tick or Close asks, and makes the closing log's last pass.
	writerPass pass = iota
	// writeOutPass is an EverySec waiter's (writeOut): it writes and
	// leaves the fsync to the writer's tick.
	writeOutPass
	// syncPass is an Always waiter's (syncOut): it writes and fsyncs.
	syncPass
)

// flush writes whatever has been appended and rotates segments that have
// grown too large; when its pass asks for an fsync, it returns the fsync
// for the caller to run after releasing flushMu (syncTo), which then
// publishes Durable. It reports whether Close asked the writer to exit.
// Appends that arrive while it runs wait in the fresh pending buffer for
// the next pass: that is the group commit. The caller holds flushMu. A
// waiter's pass leaves a closing log to the writer's last pass, and a
// segment any pass seals is fsynced, as always.
func (l *Log) flush(by pass) (exit bool, fsync pendingSync) {
	writer := by == writerPass
	l.mu.Lock()
	exit = l.closing
	if l.err != nil || (!writer && l.closing) {
		l.mu.Unlock()
		return exit, fsync
	}
	batch := l.pending
	if len(batch) > 0 {
		l.pending, l.spare = l.spare[:0], nil
		l.inflight = batch
	}
	wantSync := by == syncPass || writer && (l.mode == Always || l.syncWanted || l.tickDue || exit)
	if writer {
		l.syncWanted, l.tickDue = false, false
	}
	written := l.written
	rollAt := l.rollAt
	l.mu.Unlock()

	// A requested roll: the active segment ends after rollAt. Done before
	// writing when the segment already reaches rollAt, else when the batch
	// crosses it (below).
	roll := func() error {
		if err := l.rotate(written); err != nil {
			return err
		}
		l.mu.Lock()
		if l.rollAt == rollAt {
			l.rollAt = 0
		}
		l.mu.Unlock()
		rollAt = 0
		return nil
	}
	if rollAt > 0 {
		switch {
		case l.active == nil || l.active.base > rollAt:
			// Nothing at or before rollAt is in the active segment.
			l.mu.Lock()
			if l.rollAt == rollAt {
				l.rollAt = 0
			}
			l.mu.Unlock()
			rollAt = 0
		case written >= rollAt && l.active.size > headerSize:
			if err := roll(); err != nil {
				l.fail(err)
				return exit, fsync
			}
		}
	}

	// A segment that grows by appends gives way to a ready spare, so that
	// a new log's writes go into preallocated zeros after its first
	// megabyte rather than its first SegmentBytes.
	if len(batch) > 0 && l.givesWay(l.active) {
		if err := l.rotate(written); err != nil {
			l.fail(err)
			return exit, fsync
		}
	}

	// Usually one write(2) takes the whole batch; a batch that would carry
	// the segment past SegmentBytes is split after the record that crosses
	// the limit, so that segments stay near their nominal size however
	// large the batch.
	for rest := batch; len(rest) > 0; {
		if err := l.prepareActive(frameSeq(rest)); err != nil {
			l.fail(err)
			return exit, fsync
		}
		n, last := splitBatch(rest, l.segBytes-l.active.size)
		if rollAt > 0 && last > rollAt && frameSeq(rest) <= rollAt {
			// Stop this write at rollAt; the segment is rolled after it.
			n, last = splitUpTo(rest, rollAt)
		}
		_, err := l.active.h.f.WriteAt(rest[:n], l.active.size)
		l.mu.Lock()
		if err == nil {
			// Readers may now read these bytes from the file, so the
			// size grows in the same critical section that drops them
			// from the in-memory copy.
			l.active.size += int64(n)
			l.written = last
			l.inflight = rest[n:]
		}
		l.mu.Unlock()
		if err != nil {
			l.fail(fmt.Errorf("wal: write %s: %w", l.active.path, err))
			return exit, fsync
		}
		rest, written = rest[n:], last
		if rollAt > 0 && written == rollAt && len(rest) > 0 {
			if err := roll(); err != nil {
				l.fail(err)
				return exit, fsync
			}
			continue
		}
		if l.active.size > l.segBytes {
			if err := l.rotate(written); err != nil {
				l.fail(err)
				return exit, fsync
			}
		}
	}
	if rollAt > 0 && written >= rollAt && l.active != nil && l.active.base <= rollAt && l.active.size > headerSize {
		// The batch ended exactly at rollAt: seal the segment now rather
		// than on the next record, so a snapshot can drop it at once.
		if err := roll(); err != nil {
			l.fail(err)
			return exit, fsync
		}
	}
	if len(batch) > 0 {
		l.maybeFillSpare()
	}
	if len(batch) > 0 && written > l.writtenSeq.Load() {
		// In the OS's hands now: a crash of this process no longer loses
		// these records (EverySec acknowledges on this, as Redis does).
		l.writtenSeq.Store(written)
		if l.mode == EverySec {
			// Forced for the same reason as publish: WaitWritten and
			// WaitDurable share one channel.
			l.wakeWaiters(true)
		}
	}
	if len(batch) > 0 {
		l.mu.Lock()
		l.inflight = nil
		if cap(batch) <= maxSpareCap {
			l.spare = batch[:0]
		}
		l.mu.Unlock()
	}

	if wantSync && written > l.durable.Load() {
		// The fsync runs after the caller releases flushMu (syncTo), so
		// that a waiter writing its records never waits for the disk. The
		// handle is held so that the file stays open whatever rotates or
		// drops the segment meanwhile.
		l.active.h.acquire()
		fsync = pendingSync{seg: l.active, written: written}
	}
	return exit, fsync
}

// pendingSync is the fsync a writer's pass leaves for after flushMu: seg,
// which holds every record up to written.
type pendingSync struct {
	seg     *segment
	written uint64
}

// syncTo fsyncs what a writer's pass wrote and publishes it as durable,
// then lets the segment's handle go.
func (l *Log) syncTo(p pendingSync) {
	defer p.seg.h.release()
	if err := l.syncFile(p.seg); err != nil {
		l.fail(err)
		return
	}
	l.publish(p.written)
}

// splitBatch returns how many bytes of the encoded records in b to write
// into a segment with room bytes left before SegmentBytes — all of them, or
// up to and including the first record that uses the room up — and the
// sequence of the last record in that prefix.
func splitBatch(b []byte, room int64) (n int, last uint64) {
	for n < len(b) {
		last = frameSeq(b[n:])
		n += frameHeaderSize + int(binary.LittleEndian.Uint32(b[n:]))
		if int64(n) > room {
			break
		}
	}
	return n, last
}

// splitUpTo returns how many bytes of the encoded records in b hold the
// records with sequence <= seq, and the last such sequence.
func splitUpTo(b []byte, seq uint64) (n int, last uint64) {
	for n < len(b) {
		s := frameSeq(b[n:])
		if s > seq {
			break
		}
		last = s
		n += frameHeaderSize + int(binary.LittleEndian.Uint32(b[n:]))
	}
	return n, last
}

// frameSeq is the sequence of the encoded record at the start of b (which
// Append produced, so it is well formed).
func frameSeq(b []byte) uint64 {
	seq, _ := binary.Uvarint(b[frameHeaderSize:])
	return seq
}

// prepareActive makes sure there is an active segment for a batch starting
// at first: it creates the first segment of an empty log lazily (so that
// SetNext can still choose its name), and replaces an empty segment whose
// name SetNext has made wrong.
func (l *Log) prepareActive(first uint64) error {
	if a := l.active; a != nil && a.size == headerSize && a.base != first {
		// Remove the stale name durably before creating the new one: a
		// crash must not leave both, which would read as a sequence gap.
		if err := l.fs.Remove(a.path); err != nil {
			return fmt.Errorf("wal: remove empty segment %s: %w", a.path, err)
		}
		if err := l.fs.SyncDir(l.dir); err != nil {
			return fmt.Errorf("wal: sync dir %s: %w", l.dir, err)
		}
		l.mu.Lock()
		l.segs = l.segs[:len(l.segs)-1]
		l.mu.Unlock()
		a.h.release()
		l.active = nil
	}
	if l.active != nil {
		return nil
	}
	seg, err := l.createSegment(first)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.segs = append(l.segs, seg)
	l.mu.Unlock()
	l.active = seg
	return nil
}

// rotate seals the active segment and starts the next one. The old segment
// is fsynced first, which is what lets recovery treat damage anywhere but
// the last segment as corruption rather than a torn write. A preallocated
// segment is cut to its records first, so sealed segments hold no zeros
// and read as they always have (to an older release too).
func (l *Log) rotate(written uint64) error {
	cut, err := l.sealRoom(l.active)
	if err != nil {
		return err
	}
	if cut || written > l.durable.Load() {
		if err := l.syncFile(l.active); err != nil {
			return err
		}
		l.publish(written)
	}
	seg, err := l.createSegment(written + 1)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.segs = append(l.segs, seg)
	l.mu.Unlock()
	l.log.Debug("wal: rotated segment", "sealed", l.active.path, "bytes", l.active.size, "next", seg.path)
	l.active = seg
	return nil
}

// createSegment creates, stamps and fsyncs a new segment and fsyncs the
// directory, so that its name is durable before any record in it can be
// reported durable.
func (l *Log) createSegment(base uint64) (*segment, error) {
	path := segmentPath(l.dir, base)
	f := l.takeSpare(path) // its zeros are overwritten, never appended to
	grows := f == nil
	if grows {
		var err error
		if f, err = l.fs.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL); err != nil {
			return nil, fmt.Errorf("wal: create %s: %w", path, err)
		}
	}
	seg := &segment{path: path, base: base, size: headerSize, h: newHandle(f), grows: grows}
	if _, err := f.WriteAt(appendHeader(nil, base), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("wal: write header of %s: %w", path, err)
	}
	if err := l.syncFile(seg); err != nil {
		f.Close()
		return nil, err
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		f.Close()
		return nil, fmt.Errorf("wal: sync dir %s: %w", l.dir, err)
	}
	return seg, nil
}

// sealRoom cuts the zeros after a segment's records, reporting whether
// there were any.
func (l *Log) sealRoom(s *segment) (bool, error) {
	size, err := s.h.f.Size()
	if err != nil {
		return false, fmt.Errorf("wal: stat %s: %w", s.path, err)
	}
	if size <= s.size {
		return false, nil
	}
	if err := s.h.f.Truncate(s.size); err != nil {
		return false, fmt.Errorf("wal: truncate %s: %w", s.path, err)
	}
	return true, nil
}

// syncFile fsyncs one segment, counting it.
func (l *Log) syncFile(s *segment) error {
	l.fsyncs.Add(1)
	began := time.Now()
	err := s.h.f.Sync()
	l.fsyncTime.Observe(time.Since(began))
	if err != nil {
		return fmt.Errorf("wal: fsync %s: %w", s.path, err)
	}
	return nil
}

// publish advances Durable to seq and wakes its waiters. A writer's fsync
// (syncTo) and a rotation in a waiter's pass may publish at the same time,
// in either order: Durable only ever moves forward.
func (l *Log) publish(seq uint64) {
	for {
		cur := l.durable.Load()
		if seq <= cur {
			return
		}
		if l.durable.CompareAndSwap(cur, seq) {
			break
		}
	}
	// Forced: a waiter's flag may have been taken by a wake-up for
	// Written (which did not move Durable); skipping the close would then
	// leave it waiting on the current channel for good.
	l.wakeWaiters(true)
}

// fail makes a write or fsync error fatal: after a failed fsync the kernel
// may have dropped the dirty pages while marking them clean, so no later
// fsync could vouch for them. Durable stops where it is, appended records
// are discarded, and every waiter beyond Durable gets the error.
func (l *Log) fail(err error) {
	l.mu.Lock()
	first := l.failLocked(err)
	l.mu.Unlock()
	if first {
		l.logFailure(err)
	}
}

// failLocked records the failure under l.mu and reports whether it was the
// first; the caller logs it after unlocking, keeping I/O out of the lock.
func (l *Log) failLocked(err error) bool {
	if l.err != nil {
		return false
	}
	l.err = err
	l.pending, l.inflight, l.spare = nil, nil, nil
	l.failure.Store(&err)
	l.wakeWaiters(true)
	return true
}

func (l *Log) logFailure(err error) {
	l.log.Error("wal: log failed; writes are no longer durable", "dir", l.dir, "err", err)
}
