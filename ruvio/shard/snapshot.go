package shard

import (
	"errors"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// ErrSaveInProgress is Redis's reply to BGSAVE during a save.
var ErrSaveInProgress = errors.New("ERR Background save already in progress")

// snapshotPoll is how often a writer waiting for the snapshot in
// progress looks again.
const snapshotPoll = 20 * time.Millisecond

// holdSnapshots waits until no snapshot of the shard is being written
// and takes the right to write one (saving), which keeps every other
// from starting until it is given back. It reports false, holding
// nothing, if cancel closes first (nil: never).
func (sh *Shard) holdSnapshots(cancel <-chan struct{}) bool {
	for !sh.saving.CompareAndSwap(false, true) {
		select {
		case <-cancel:
			return false
		case <-time.After(snapshotPoll):
		}
	}
	return true
}

// Saving reports whether a snapshot of the shard is being written.
func (sh *Shard) Saving() bool { return sh.saving.Load() }

// LastSave is the Unix time (seconds) of the shard's last snapshot, or of
// its start before any.
func (sh *Shard) LastSave() int64 { return sh.lastSave.Load() }

// LastSaveOK reports whether the last snapshot succeeded.
func (sh *Shard) LastSaveOK() bool { return sh.lastSaveOK.Load() }

// ChangesSinceSave counts the records appended since the last snapshot
// began.
func (sh *Shard) ChangesSinceSave() int64 { return sh.changes() - sh.changesAtSave.Load() }

// StartSnapshot begins a snapshot of the shard at its current sequence
// and writes it in the background; done (if not nil) receives the
// outcome.
func (sh *Shard) StartSnapshot(done chan<- error) error {
	if sh.dir == "" {
		return errNoFiles
	}
	if !sh.saving.CompareAndSwap(false, true) {
		return ErrSaveInProgress
	}
	sh.snapshotHeld(done)
	return nil
}

// errNoFiles refuses a snapshot of a shard that keeps no files.
var errNoFiles = errors.New("ERR durability memory keeps no files: nothing to save to")

// SnapshotNow is StartSnapshot that first waits for a snapshot in
// progress instead of refusing: that one holds an earlier state, and the
// caller needs the state now on disk (FLUSHALL's save).
func (sh *Shard) SnapshotNow(done chan<- error) error {
	if sh.dir == "" {
		return errNoFiles
	}
	sh.holdSnapshots(nil)
	sh.snapshotHeld(done)
	return nil
}

// snapshotHeld starts the snapshot StartSnapshot describes for a caller
// that holds the right to write one (saving), which it gives back when
// the snapshot is done.
func (sh *Shard) snapshotHeld(done chan<- error) {
	sh.mu.Lock()
	h := sh.headerLocked()
	arrivals := sh.arrivalsPayloadLocked()
	sh.db.BeginSnapshot()
	sh.changesAtSave.Store(sh.changes())
	// End the log's segment at the snapshot's sequence, so that once the
	// snapshot is on disk every record it holds can be dropped.
	sh.wlog().RollAfter(h.Seq)
	sh.mu.Unlock()
	go func() {
		err := sh.writeSnapshot(h, arrivals)
		sh.finishSnapshot(h, err)
		if done != nil {
			done <- err
		}
	}()
}

// headerLocked describes a snapshot of the shard as it is now. Caller
// holds mu.
func (sh *Shard) headerLocked() snapshot.Header {
	return snapshot.Header{Shard: sh.ID, Seq: sh.wlog().Last(), Epoch: sh.replEpoch.Load(),
		History: append([]snapshot.EpochStart(nil), sh.history...), CreatedMs: clock.NowMs()}
}

// WriteCopy writes a snapshot of the shard into dir for a replica's full
// copy while writes go on, waiting first for a BGSAVE in progress (or
// until cancel closes). It returns the file's path and header.
func (sh *Shard) WriteCopy(dir string, cancel <-chan struct{}) (string, snapshot.Header, error) {
	if !sh.holdSnapshots(cancel) {
		return "", snapshot.Header{}, errors.New("replica went away")
	}
	defer sh.saving.Store(false)
	sh.mu.Lock()
	h := sh.headerLocked()
	arrivals := sh.arrivalsPayloadLocked()
	sh.db.BeginSnapshot()
	sh.mu.Unlock()
	path, err := sh.writeImage(dir, h, arrivals)
	return path, h, err
}

// writeSnapshot writes the snapshot StartSnapshot began and drops what
// it covers.
func (sh *Shard) writeSnapshot(h snapshot.Header, arrivals []byte) error {
	if _, err := sh.writeImage(sh.dir, h, arrivals); err != nil {
		return err
	}
	// The image holds every record up to h.Seq: the log before it goes.
	if !sh.keepLog {
		if err := sh.wlog().DropBefore(h.Seq); err != nil {
			return err
		}
	}
	return snapshot.RemoveOlder(sh.dir, h.Seq)
}

// writeImage writes the keyspace as of BeginSnapshot into dir, walking
// the shard's slots a batch at a time under the lock, encoding into
// memory, and writing each batch out with the lock released. It ends the
// snapshot state whatever happens and returns the file's path.
func (sh *Shard) writeImage(dir string, h snapshot.Header, arrivals []byte) (string, error) {
	w, err := snapshot.Create(dir, h)
	if err != nil {
		sh.endSnapshotState()
		return "", err
	}
	// The libraries as they are now, which may be newer than h.Seq: the
	// record of a newer change sets them again when replayed.
	addErr := sh.addLibraries(w)
	if addErr == nil && len(arrivals) > 0 {
		// The ranges the records up to h.Seq brought, as of the header.
		addErr = w.AddArrivals(arrivals)
	}
	add := func(k string, e *keyspace.Entry) {
		if addErr == nil {
			addErr = w.Add(k, e)
		}
	}
	// Every slot, not only the shard's first range: a cluster map may put
	// any slot on any shard. An empty slot costs one map lookup.
	for slot := 0; slot < slots.Count; {
		sh.mu.Lock()
		for end := min(slot+64, slots.Count); slot < end; slot++ {
			sh.db.SnapshotSlot(slot, add)
		}
		sh.mu.Unlock()
		if addErr == nil {
			addErr = w.Flush()
		}
		if addErr != nil {
			break
		}
	}
	sh.endSnapshotState()
	if addErr != nil {
		w.Abort()
		return "", addErr
	}
	return w.Commit()
}

func (sh *Shard) endSnapshotState() {
	sh.mu.Lock()
	sh.db.EndSnapshot()
	sh.mu.Unlock()
}

func (sh *Shard) finishSnapshot(h snapshot.Header, err error) {
	if err != nil {
		sh.lastSaveOK.Store(false)
		sh.log.Error("snapshot failed", "shard", sh.ID, "seq", h.Seq, "err", err)
	} else {
		sh.lastSaveOK.Store(true)
		sh.snapSeq.Store(h.Seq)
		sh.lastSave.Store(clock.Default.Now().Unix())
		sh.log.Info("snapshot written", "shard", sh.ID, "seq", h.Seq, "epoch", h.Epoch)
	}
	sh.saving.Store(false)
}

// maybeSnapshot starts a background snapshot when the profile's rules say
// so: save rules for the snapshot profile, log size for the WAL profiles.
func (sh *Shard) maybeSnapshot(cfg *config.Config, now int64) {
	if sh.dir == "" || sh.saving.Load() {
		return
	}
	switch sh.durability {
	case config.DurabilitySnapshot:
		rules, _ := config.ParseSaveRules(cfg.Save)
		changed := sh.changes() - sh.changesAtSave.Load()
		elapsed := now - sh.lastSave.Load()
		for _, r := range rules {
			if changed >= r.Changes && changed > 0 && elapsed >= r.Seconds {
				sh.StartSnapshot(nil)
				return
			}
		}
	default:
		if cfg.WALSnapshotBytes > 0 && sh.wlog().Size() > cfg.WALSnapshotBytes {
			sh.StartSnapshot(nil)
		}
	}
}
