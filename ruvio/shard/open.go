package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// Each shard persists on its own, under <data_dir>/shard-<i>/: a WAL in
// wal/ (profiles always and everysec) and snapshots (every profile but
// memory). Recovery loads the newest snapshot, then replays the log after
// it through the same command table, so replay reaches the state the log
// describes.

// walMode maps a durability profile to the log's mode. The snapshot
// profile keeps sequences in memory only: its durable point is the last
// snapshot.
func walMode(durability string) wal.Mode {
	switch durability {
	case config.DurabilityAlways:
		return wal.Always
	case config.DurabilityEverysec:
		return wal.EverySec
	}
	return wal.Memory
}

// shardDir is where shard i keeps its files.
func shardDir(dataDir string, i int) string {
	return filepath.Join(dataDir, fmt.Sprintf("shard-%d", i))
}

// Recovery is what a shard reports after loading its files.
type Recovery struct {
	// Keys is the number of keys loaded; Records the log records
	// replayed after the snapshot.
	Keys, Records int64
	// Elapsed is how long loading took.
	Elapsed time.Duration
	// SnapshotSeq is the sequence of the snapshot loaded (0: none).
	SnapshotSeq uint64
}

// Recovered is what Open loaded.
func (sh *Shard) Recovered() Recovery { return sh.recovered }

// Open prepares the shard's files and loads its data, replaying logged
// commands through table. It runs before the shard serves anyone.
func (sh *Shard) Open(cfg *config.Config, table *command.Table) (Recovery, error) {
	start := time.Now()
	var rec Recovery
	sh.durability = cfg.Durability
	sh.table = table
	persistent := cfg.Durability != config.DurabilityMemory
	sh.replEpoch.Store(1)
	if !persistent {
		if err := sh.openForgotten(cfg.DataDir); err != nil {
			return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
		}
	}
	if persistent {
		sh.dir = shardDir(cfg.DataDir, sh.ID)
		if err := os.MkdirAll(sh.dir, 0o755); err != nil {
			return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
		}
		path, seq, ok, err := snapshot.Latest(sh.dir)
		if err != nil {
			return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
		}
		if ok {
			sh.db.Loading = true
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
				rec.Keys++
				return nil
			})
			if err != nil {
				return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
			}
			sh.arrivedLocked(arrived)
			sh.replEpoch.Store(h.Epoch)
			sh.history = h.History
			sh.snapSeq.Store(seq)
			rec.SnapshotSeq = seq
		}
	}
	snapSeq := sh.snapSeq.Load()
	log, err := sh.openLog(cfg)
	if err != nil {
		return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
	}
	sh.walp.Store(log)
	switch {
	case log.Last() == 0:
		if snapSeq > 0 {
			log.SetNext(snapSeq + 1)
		}
	case log.First() > snapSeq+1:
		log.Close()
		return rec, fmt.Errorf("shard %d: the log starts at sequence %d but the newest snapshot ends at %d: records %d-%d are missing",
			sh.ID, log.First(), snapSeq, snapSeq+1, log.First()-1)
	case log.Last() < snapSeq:
		// The snapshot holds every record the log does and more: a crash
		// came after the snapshot was stored and before the log had
		// written (or fsynced) its last records, which a snapshot takes
		// from memory. Start the log again after the snapshot.
		sh.log.Warn("the log ends before the newest snapshot, which holds all of it: the log starts again after the snapshot",
			"shard", sh.ID, "log_last", log.Last(), "snapshot_seq", snapSeq)
		if err := sh.resetLog(cfg, snapSeq+1); err != nil {
			return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
		}
		log = sh.wlog()
	}
	sh.db.Loading = true
	replayer := newReplayer(sh)
	var now int64
	err = log.Replay(snapSeq, func(r wal.Record) error {
		// The clock is read every few hundred records: replay runs
		// hundreds of thousands a second, so each sees the time within a
		// few milliseconds.
		if rec.Records%256 == 0 {
			now = clock.NowMs()
		}
		rec.Records++
		sh.noteRecordLocked(r)
		return replayer.apply(r, now)
	})
	sh.db.Loading = false
	if err != nil {
		log.Close()
		return rec, fmt.Errorf("shard %d: replaying the log: %w", sh.ID, err)
	}
	if replayer.failed > 0 {
		sh.log.Warn("some log records replayed with errors", "shard", sh.ID, "records", replayer.failed, "first", replayer.firstErr)
	}
	sh.normalizeHistory()
	sh.markNext = true
	rec.Keys = int64(sh.db.Len())
	rec.Elapsed = time.Since(start)
	sh.lastSave.Store(clock.Default.Now().Unix())
	sh.recovered = rec
	return rec, nil
}

// walDir is where the shard's log lives ("" for a profile without one).
func (sh *Shard) walDir(cfg *config.Config) string {
	if walMode(cfg.Durability) == wal.Memory {
		return ""
	}
	return filepath.Join(sh.dir, "wal")
}

// openLog opens the shard's log as the profile says.
func (sh *Shard) openLog(cfg *config.Config) (*wal.Log, error) {
	return wal.Open(wal.Options{Dir: sh.walDir(cfg), Mode: walMode(cfg.Durability), SegmentBytes: cfg.WALSegmentBytes, Logger: sh.log})
}

// Close syncs and closes the log; the snapshot profile first writes a
// final snapshot when save is set, so a clean shutdown loses nothing. A
// snapshot being written then (BGSAVE, a save rule) holds only what came
// before it began: the final one waits for it and follows.
func (sh *Shard) Close(save bool) error {
	if save && sh.durability == config.DurabilitySnapshot && sh.changes() != sh.changesAtSave.Load() {
		sh.holdSnapshots(nil)
		if sh.changes() == sh.changesAtSave.Load() {
			// The snapshot waited for held every change.
			sh.saving.Store(false)
		} else {
			done := make(chan error, 1)
			sh.snapshotHeld(done)
			if err := <-done; err != nil {
				sh.log.Error("final snapshot failed", "shard", sh.ID, "err", err)
			}
		}
	}
	if sh.wlog() == nil {
		return nil
	}
	return sh.wlog().Close()
}
