package shard

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// InstallCopy replaces the shard's data with the snapshot at path (the
// primary's image at seq), takes over its history and restarts the log
// after it. On failure the shard is left empty with an empty log, so the
// next handshake starts from nothing rather than from a log that no
// longer matches the data. Clients get LOADING meanwhile; the lock is
// let go now and then so INFO and ROLE still answer.
//
// No snapshot of the shard is written meanwhile: the install waits for
// one in progress (whose header and keys are of the data it replaces,
// and which would otherwise land after the copy's image and be taken
// for the newer one), then keeps new ones, automatic saves and a
// replica's full copy alike, from starting while the lock is let go
// with part of the copy loaded.
func (sh *Shard) InstallCopy(cfg *config.Config, path string, seq uint64) (err error) {
	sh.holdSnapshots(nil)
	defer sh.saving.Store(false)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.db.Flush()
	sh.setLibraries(nil)
	sh.moves.got = nil
	sh.db.Loading = true
	n := 0
	var arrived []arrival
	h, err := snapshot.Load(path, func(key string, e keyspace.Entry) error {
		if arr, ok := e.Val.(snapshot.Arrivals); ok {
			arrived = sh.imageArrivals(arr)
			return nil
		}
		if libs, ok := e.Val.(snapshot.Libraries); ok {
			sh.setLibraries(libs)
			return nil
		}
		sh.db.SetWithExpiry(key, e.Val, e.ExpireAt)
		if n++; n%4096 == 0 {
			sh.mu.Unlock()
			sh.mu.Lock()
		}
		return nil
	})
	sh.db.Loading = false
	if err == nil && (h.Seq != seq || h.Shard != sh.ID) {
		err = fmt.Errorf("the full copy is of shard %d at %d, expected shard %d at %d", h.Shard, h.Seq, sh.ID, seq)
	}
	if err != nil {
		sh.db.Flush()
		if rerr := sh.resetLog(cfg, 1); rerr != nil {
			return rerr
		}
		// The shard's snapshots go with its log: left beside a log that
		// starts again at 1, a restart would load the replaced data
		// under records of another history, or refuse to start.
		sh.dropSnapshotsExcept(0)
		sh.replEpoch.Store(1)
		sh.history = nil
		sh.normalizeHistory()
		return fmt.Errorf("loading the full copy: %w", err)
	}
	sh.arrivedLocked(arrived)
	if err := sh.resetLog(cfg, seq+1); err != nil {
		return err
	}
	if sh.dir != "" {
		// Keep the copy as this shard's snapshot, and drop every other
		// one: those of its own, divergent history included.
		final := filepath.Join(sh.dir, snapshot.FileName(seq))
		if err := os.Rename(path, final); err != nil {
			return err
		}
		sh.dropSnapshotsExcept(seq)
	}
	sh.replEpoch.Store(h.Epoch)
	sh.history = h.History
	sh.forgotten = nil // it holds its primary's history now
	sh.normalizeHistory()
	return nil
}

// dropSnapshotsExcept removes every snapshot of the shard but the one
// at keep (0: all of them), which becomes the shard's snapshot. Caller
// holds mu.
func (sh *Shard) dropSnapshotsExcept(keep uint64) {
	if sh.dir == "" {
		return
	}
	if seqs, err := snapshot.List(sh.dir); err == nil {
		for _, q := range seqs {
			if q != keep {
				os.Remove(filepath.Join(sh.dir, snapshot.FileName(q)))
			}
		}
	}
	syncDirOf(sh.dir)
	sh.snapSeq.Store(keep)
}

// resetLog replaces the shard's log by an empty one whose next record is
// next. Caller holds sh.mu.
func (sh *Shard) resetLog(cfg *config.Config, next uint64) error {
	old := sh.wlog()
	if err := old.Close(); err != nil {
		sh.log.Warn("closing the old log", "shard", sh.ID, "err", err)
	}
	if dir := sh.walDir(cfg); dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	log, err := sh.openLog(cfg)
	if err != nil {
		return err
	}
	if next > 1 {
		log.SetNext(next)
	}
	log.CarryAppends(old.Appended())
	sh.walp.Store(log)
	if sh.sub != nil {
		sh.sub.Restarted(next)
	}
	return nil
}

// syncDirOf fsyncs a directory so renames and removals in it are durable.
func syncDirOf(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
