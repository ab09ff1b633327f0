package wal

import "context"

// Waiting for records: a caller that must not reply before its record is
// safe waits for Durable (fsynced) or Written (handed to the OS), or
// registers to be woken when either moves.

// WaitDurable returns nil once Durable() >= seq, or the fatal write error,
// ErrClosed, or ctx's error if that comes first. When seq is already durable
// it returns after one atomic load.
func (l *Log) WaitDurable(ctx context.Context, seq uint64) error {
	if l.Durable() >= seq {
		return nil
	}
	l.writeOut(seq) // in EverySec: written now, fsynced at the next tick
	l.syncOut(seq)
	return l.waitUntil(ctx, func() bool { return l.Durable() >= seq })
}

// waitUntil returns nil once reached() holds, or the fatal write error,
// ErrClosed, or ctx's error if that comes first, checking again at every
// publish.
func (l *Log) waitUntil(ctx context.Context, reached func() bool) error {
	for {
		ch := l.DurableNotify()
		// Check after taking the channel: a publish between an earlier
		// check and DurableNotify would otherwise be missed.
		if reached() {
			return nil
		}
		if errp := l.failure.Load(); errp != nil {
			return *errp
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Written is the last sequence written to the OS (at least Durable()):
// what a crash of this process cannot lose.
func (l *Log) Written() uint64 { return max(l.writtenSeq.Load(), l.Durable()) }

// WaitWritten returns nil once Written() >= seq, or the fatal write error,
// ErrClosed, or ctx's error if that comes first. The everysec profile
// acknowledges writes on this, as Redis's appendfsync everysec does.
func (l *Log) WaitWritten(ctx context.Context, seq uint64) error {
	if l.Written() >= seq {
		return nil
	}
	l.writeOut(seq)
	return l.waitUntil(ctx, func() bool { return l.Written() >= seq })
}

// WriteOut makes sure record seq is in the log as far as the profile
// promises before a reply: written to the OS (EverySec, without waiting
// for an fsync), or fsynced (Always). It returns the log's fatal error if
// it could not be. A reader that hands records on (a primary's
// replication stream) calls it first, so that nothing leaves this node
// that it could lose to a crash after the reply: a replica holding a
// record its restarted primary lost would go on from a log the primary
// no longer shares. Always waits for the fsync another pass makes (the
// event loop's turn, or the writer), as Redis writes its replicas'
// buffers after the fsync of appendfsync always, rather than making a
// pass of its own in the middle of a turn.
func (l *Log) WriteOut(seq uint64) error {
	if l.mode == Always {
		return l.waitUntil(context.Background(), func() bool { return l.Durable() >= seq })
	}
	l.writeOut(seq)
	if l.Written() < seq {
		if errp := l.failure.Load(); errp != nil {
			return *errp
		}
	}
	return nil
}

// writeOut writes the records appended so far in the calling goroutine,
// unless another pass already wrote record seq. An EverySec append does
// not wake the writer, so the caller that waits for a record writes it,
// as Redis writes its AOF from its event loop before the replies go out:
// no hand-off to the writer's thread and back stands between a turn's
// commands and their replies, and one write(2) takes every record the
// turn appended. The fsync stays with the writer. Always has syncOut
// instead, and Memory keeps no file.
func (l *Log) writeOut(seq uint64) {
	if l.mode == EverySec {
		l.passUpTo(seq, writeOutPass)
	}
}

// syncOut writes and fsyncs, in the calling goroutine, every record
// appended so far while the log is held (Hold), unless another pass
// (which fsyncs what it writes in Always) has written record seq: so a
// holder makes its turn's records durable with one write(2) and one
// fsync. A record appended while the log was held woke no writer, so a
// caller that did not hold it makes the pass too. Once no one holds the
// log, the last Release has woken the writer for whatever is left, and
// a second pass here would only fsync the same records twice. Only
// Always has work to do.
func (l *Log) syncOut(seq uint64) {
	if l.mode == Always && l.holds.Load() > 0 {
		l.passUpTo(seq, syncPass)
	}
}

// passUpTo makes a waiter's pass (by) in the calling goroutine unless
// another pass has written record seq already, and runs the fsync the
// pass leaves, if any, after releasing flushMu.
func (l *Log) passUpTo(seq uint64, by pass) {
	if l.Written() >= seq {
		return
	}
	var fsync pendingSync
	l.flushMu.Lock()
	if l.Written() < seq {
		_, fsync = l.flush(by)
	}
	l.flushMu.Unlock()
	if fsync.seg != nil {
		l.syncTo(fsync)
	}
}

// DurableNotify returns a channel that is closed the next time Durable
// advances (or the log fails or closes), so that a caller can wait on
// several logs at once. Take the channel, then check Durable, then wait.
func (l *Log) DurableNotify() <-chan struct{} {
	// Flag before loading: a publisher that misses the flag stored Durable
	// before looking at it, so the caller's check after this sees it.
	l.notifyUsed.Store(true)
	return *l.notify.Load()
}

// wakeWaiters closes the current notify channel and installs a fresh one,
// when someone may be waiting (or always, if force).
func (l *Log) wakeWaiters(force bool) {
	// A load first: the swap is a locked instruction, and on nearly every
	// append nobody waits.
	if l.notifyUsed.Load() && l.notifyUsed.Swap(false) || force {
		ch := make(chan struct{})
		close(*l.notify.Swap(&ch))
	}
	l.wakers.Fire()
}

// WakeOnPublish has *wake called, once, on the goroutine that next moves
// Durable or Written forward or fails the log; it must return at once.
// It is DurableNotify for a caller that must not block (an event loop):
// register, then check, and no publish falls between them. Registering
// the same wake again before that publish changes nothing.
func (l *Log) WakeOnPublish(wake *func()) { l.wakers.Add(wake) }

// Failed reports whether the log stopped for good (a write error, or
// closed): a wait for it returns at once.
func (l *Log) Failed() bool { return l.failure.Load() != nil }

// Sync writes and fsyncs everything appended so far; on success Durable()
// is at least the Last() seen on entry.
func (l *Log) Sync() error {
	target := l.last.Load()
	if l.Durable() >= target {
		return nil
	}
	l.mu.Lock()
	l.syncWanted = true
	l.mu.Unlock()
	l.signal()
	return l.WaitDurable(context.Background(), target)
}
