package shard

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// A shard's records carry the replication epoch of the writer that made
// them: a node starts a new replication epoch whenever it becomes a
// writer. The shard's history lists the stretches its log went through,
// each with its epoch, its first sequence and an ID drawn at random where
// it began; a replica and its primary compare histories to find where
// their logs fork.
//
// A stretch begins at a fork (REPLICAOF NO ONE: a new epoch) and at the
// first record a writer makes after it starts. The second is the restart
// mark: a primary whose restart lost records it had already sent (the
// memory and snapshot profiles, or a machine crash under everysec) writes
// new records at their sequences, in the same epoch, and a replica holding
// the old ones must not take the new ones for their continuation. Marked
// with a new ID, the primary's history leaves the replica's where the
// restart began, and the replica takes a full copy. The mark rides on the
// writer's first record (a HistoryOp before its effects), so it takes no
// sequence of its own, and a node that restarts and is made a replica
// before it writes leaves no mark: its log is still a prefix of the new
// primary's.
//
// HistoryOp is the log's own operation that begins a stretch: HistoryOp
// and the stretch's ID in decimal. The record that carries it is the
// stretch's first.
const HistoryOp = "ruvio-history"

// Last is the sequence of the shard's last record (0 for none).
func (sh *Shard) Last() uint64 { return sh.wlog().Last() }

// FirstLogged is the first sequence the shard's log still holds (0 when
// the log is empty): records before it survive only in a snapshot.
func (sh *Shard) FirstLogged() uint64 { return sh.wlog().First() }

// LogBytes is the size of the shard's log on disk (0 before Open).
func (sh *Shard) LogBytes() int64 {
	if sh.wlog() == nil {
		return 0
	}
	return sh.wlog().Size()
}

// ReplayLog calls fn with each logged record after sequence after, in
// order; fn's error stops the replay and is returned.
func (sh *Shard) ReplayLog(after uint64, fn func(wal.Record) error) error {
	return sh.wlog().Replay(after, fn)
}

// DurableSeq is wal_durable_sequence: the log's durable point, or for the
// snapshot profile the sequence of the last snapshot.
func (sh *Shard) DurableSeq() uint64 {
	if sh.durability == config.DurabilitySnapshot {
		return sh.snapSeq.Load()
	}
	return sh.wlog().Durable()
}

// DurableNotify returns a channel closed when the log's durable point
// next moves.
func (sh *Shard) DurableNotify() <-chan struct{} { return sh.wlog().DurableNotify() }

// RepliesWaitForLog reports whether a reply to a write waits for its
// record: the profiles always (fsynced) and everysec (written to the OS).
func (sh *Shard) RepliesWaitForLog() bool {
	return sh.durability == config.DurabilityAlways || sh.durability == config.DurabilityEverysec
}

// HoldLog holds the shard's log for a caller that is about to append
// records and then wait for them (wal.Log.Hold), and returns the log to
// Release; nil when the profile leaves nothing to hold (only always
// fsyncs for its replies).
func (sh *Shard) HoldLog() *wal.Log {
	lg := sh.wlog()
	if sh.durability != config.DurabilityAlways || lg == nil {
		return nil
	}
	lg.Hold()
	return lg
}

// WaitSafe blocks until record seq is as safe as the shard's profile
// promises: fsynced (always), or handed to the OS (everysec: a crash of
// the process loses nothing acknowledged, a crash of the machine up to
// about a second).
func (sh *Shard) WaitSafe(ctx context.Context, seq uint64) error {
	if sh.durability == config.DurabilityEverysec {
		return sh.wlog().WaitWritten(ctx, seq)
	}
	return sh.wlog().WaitDurable(ctx, seq)
}

// SafeOrWake is WaitSafe for a caller that must not block: it reports
// whether seq is as safe as the profile promises (or the log failed),
// and when not, has *wake called at the log's next progress
// (wal.Log.WakeOnPublish). Under everysec it writes the records out
// first, as WaitSafe does: a write(2) does not wait for the disk, and
// left to the writer's tick, a record no replica stream has sent yet
// would wait up to a second.
func (sh *Shard) SafeOrWake(seq uint64, wake *func()) bool {
	lg := sh.wlog()
	lg.WakeOnPublish(wake)
	if sh.durability == config.DurabilityEverysec {
		lg.WriteOut(seq) // a failure shows in Failed
		return lg.Written() >= seq || lg.Failed()
	}
	return lg.Durable() >= seq || lg.Failed()
}

// WriteOut makes sure the shard's records up to seq are in its log as
// the profile keeps them before a reply (wal.Log.WriteOut: written under
// everysec, fsynced under always): a primary's replication stream and
// full copies call it before records leave for a replica, so that a
// crash of this process can never leave a replica holding records the
// restarted primary does not have.
func (sh *Shard) WriteOut(seq uint64) error { return sh.wlog().WriteOut(seq) }

// ReplicationEpoch is the replication epoch the shard's new records carry.
// It takes no lock, so a command inside EXEC, which holds it, may ask.
func (sh *Shard) ReplicationEpoch() uint64 { return sh.replEpoch.Load() }

// PositionLocked is the shard's last record: its replication epoch and
// sequence. Caller holds the lock.
func (sh *Shard) PositionLocked() repl.Position {
	return repl.Position{Epoch: sh.replEpoch.Load(), Seq: sh.wlog().Last()}
}

// Position is PositionLocked for a caller that does not hold the lock.
func (sh *Shard) Position() repl.Position {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.PositionLocked()
}

// HistoryAndPosition is HistoryLocked and PositionLocked read together,
// for a caller that does not hold the lock.
func (sh *Shard) HistoryAndPosition() ([]repl.EpochStart, repl.Position) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.HistoryLocked(), sh.PositionLocked()
}

// HistoryLocked returns a copy of the shard's history (each stretch's
// replication epoch, first sequence and ID, oldest first) as the
// replication handshake carries it. Caller holds the lock.
func (sh *Shard) HistoryLocked() []repl.EpochStart {
	h := make([]repl.EpochStart, len(sh.history))
	for i, s := range sh.history {
		h[i] = repl.EpochStart{Epoch: s.Epoch, FirstSeq: s.FirstSeq, ID: s.ID}
	}
	return h
}

// HistoryID is the ID of the shard's newest stretch of history: 0 for a
// stretch recorded without one, or a fresh log's before its first record.
// It takes no lock, so a command inside EXEC, which holds it, may ask.
func (sh *Shard) HistoryID() uint64 { return sh.historyID.Load() }

// historyChanged publishes the newest stretch's ID (HistoryID) after the
// history changed. Caller holds the lock.
func (sh *Shard) historyChanged() {
	var id uint64
	if n := len(sh.history); n > 0 {
		id = sh.history[n-1].ID
	}
	sh.historyID.Store(id)
	sh.noteHistoryLocked()
}

// LatestReplicationEpoch is the largest replication epoch the shard has
// seen: its current one or any in its history.
func (sh *Shard) LatestReplicationEpoch() uint64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	m := sh.replEpoch.Load()
	for _, e := range sh.history {
		m = max(m, e.Epoch)
	}
	return m
}

// ForkReplicationEpoch starts replEpoch on the shard at its current
// position with a record that carries no effects but its HistoryOp, so
// the fork is in the log, on disk and in every replica's history. The
// shard is a writer from then on. forget ends the forgotten stretches'
// note (forgotten.go): the node was told to go on without them.
func (sh *Shard) ForkReplicationEpoch(replEpoch uint64, forget bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	next := sh.wlog().Last() + 1
	id := newStretchID()
	if forget {
		sh.forgotten = nil // told to go on without them (LOSTRECORDS seen)
	}
	sh.noteStretch(replEpoch, next, id)
	sh.markNext = false
	sh.appendAt(replEpoch, [][][]byte{historyOp(id)})
	sh.db.Replica = false
	sh.log.Info("new epoch", "shard", sh.ID, "epoch", replEpoch, "first_sequence", next, "history_id", id)
}

// markStart begins a stretch of the current epoch at the record about to
// be appended, whose effects are ops: it returns them after a HistoryOp.
// Caller holds the lock.
func (sh *Shard) markStart(ops [][][]byte) [][][]byte {
	next := sh.wlog().Last() + 1
	id := newStretchID()
	sh.noteStretch(sh.replEpoch.Load(), next, id)
	sh.markNext = false
	sh.log.Info("first write since start: a new stretch of history", "shard", sh.ID, "epoch", sh.replEpoch.Load(),
		"first_sequence", next, "history_id", id)
	return append([][][]byte{historyOp(id)}, ops...)
}

// historyOp is the HistoryOp that begins a stretch with ID id.
func historyOp(id uint64) [][]byte {
	return [][]byte{[]byte(HistoryOp), strconv.AppendUint(nil, id, 10)}
}

// stretchMark reads the HistoryOp a record begins with, if any.
func stretchMark(ops [][][]byte) (id uint64, ok bool) {
	if len(ops) == 0 || len(ops[0]) != 2 || !command.Eq(ops[0][0], HistoryOp) {
		return 0, false
	}
	id, err := strconv.ParseUint(string(ops[0][1]), 10, 64)
	return id, err == nil
}

// newStretchID draws a stretch's ID: random, never 0 (the ID of a
// stretch recorded without one).
func newStretchID() uint64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand does not fail on the systems Go supports
		}
		if id := binary.LittleEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}

// noteRecordLocked follows a replayed or replicated record in the
// shard's history: one that begins with a HistoryOp begins a stretch, and
// so does, without an ID, one whose epoch differs from the last (a log a
// release that drew no IDs wrote). Caller holds the lock.
func (sh *Shard) noteRecordLocked(rec wal.Record) {
	if id, ok := stretchMark(rec.Ops); ok {
		sh.noteStretch(rec.Epoch, rec.Seq, id)
	} else if rec.Epoch != sh.replEpoch.Load() {
		sh.noteStretch(rec.Epoch, rec.Seq, 0)
	}
}

// SubscribeLocked makes sub receive every record appended from now on,
// replacing any earlier subscriber. Caller holds the lock, so no record
// slips between the log and the subscriber's start.
func (sh *Shard) SubscribeLocked(sub LogSubscriber) { sh.sub = sub }

// noteStretch records that a stretch of replEpoch with ID id begins at
// seq. It takes the place of a last stretch of the same epoch that began
// at seq too, which holds no record: the first stretch a fresh log is
// given (normalizeHistory) before its first record.
func (sh *Shard) noteStretch(replEpoch, seq, id uint64) {
	sh.replEpoch.Store(replEpoch)
	e := snapshot.EpochStart{Epoch: replEpoch, FirstSeq: seq, ID: id}
	if n := len(sh.history); n > 0 && sh.history[n-1].Epoch == replEpoch && sh.history[n-1].FirstSeq == seq {
		sh.history[n-1] = e
	} else {
		sh.history = append(sh.history, e)
	}
	sh.historyChanged()
}

// normalizeHistory makes the history begin at sequence 1: a log that
// never changed replication epoch, or whose first one was implicit,
// starts in replication epoch 1.
func (sh *Shard) normalizeHistory() {
	switch {
	case len(sh.history) > 0 && sh.history[0].FirstSeq <= 1:
	case len(sh.history) > 0 && sh.history[0].Epoch <= 1:
		sh.history[0].FirstSeq = 1
	default:
		sh.history = append([]snapshot.EpochStart{{Epoch: 1, FirstSeq: 1}}, sh.history...)
	}
	sh.historyChanged()
}
