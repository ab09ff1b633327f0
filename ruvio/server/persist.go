package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/resp"
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

// recovery is what a shard reports after loading its files.
type recovery struct {
	keys, records int64
	elapsed       time.Duration
	snapshotSeq   uint64
}

// open prepares the shard's files and loads its data. It runs before the
// shard serves anyone.
func (sh *Shard) open(cfg *config.Config, table *command.Table) (recovery, error) {
	start := time.Now()
	var rec recovery
	sh.durability = cfg.Durability
	sh.table = table
	persistent := cfg.Durability != config.DurabilityMemory
	sh.epoch = 1
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
			h, err := snapshot.Load(path, func(key string, e keyspace.Entry) error {
				sh.db.SetWithExpiry(key, e.Val, e.ExpireAt)
				rec.keys++
				return nil
			})
			if err != nil {
				return rec, fmt.Errorf("shard %d: %w", sh.ID, err)
			}
			sh.epoch, sh.history = h.Epoch, h.History
			sh.snapSeq.Store(seq)
			rec.snapshotSeq = seq
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
		// The snapshot is newer than the whole log (the log before it was
		// dropped and nothing followed): continue after the snapshot.
		log.Close()
		return rec, fmt.Errorf("shard %d: the log ends at %d, before the snapshot at %d", sh.ID, log.Last(), snapSeq)
	}
	sh.db.Loading = true
	replayer := newReplayer(sh)
	err = log.Replay(snapSeq, func(r wal.Record) error {
		rec.records++
		if r.Epoch != sh.epoch {
			sh.noteEpoch(r.Epoch, r.Seq)
		}
		return replayer.apply(r)
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
	rec.keys = int64(sh.db.Len())
	rec.elapsed = time.Since(start)
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

// noteEpoch records that the log moved to epoch at seq.
func (sh *Shard) noteEpoch(epoch, seq uint64) {
	sh.epoch = epoch
	sh.history = append(sh.history, snapshot.EpochStart{Epoch: epoch, FirstSeq: seq})
}

// replayer applies log records to the shard's keyspace through the
// command table, discarding replies.
type replayer struct {
	sh       *Shard
	ctx      command.Ctx
	sink     errorSink
	failed   int
	firstErr string
}

// errorSink keeps the first error reply a replayed command wrote.
type errorSink struct {
	wrote bool
	buf   []byte
}

func (e *errorSink) Write(p []byte) (int, error) {
	if !e.wrote && len(p) > 0 && p[0] == '-' {
		e.buf = append(e.buf[:0], p...)
		e.wrote = true
	}
	return len(p), nil
}

func newReplayer(sh *Shard) *replayer {
	r := &replayer{sh: sh}
	r.ctx.W = resp.NewWriter(&r.sink)
	r.ctx.DB = sh.db
	r.ctx.InMulti = true // a replayed blocking command must never wait
	return r
}

func (r *replayer) apply(rec wal.Record) error {
	for _, op := range rec.Ops {
		if len(op) == 0 {
			continue
		}
		if command.Eq(op[0], "flushall") {
			r.sh.db.Flush()
			continue
		}
		spec := r.sh.table.Lookup(op[0])
		if spec == nil || (spec.Run == nil && spec.PerKey == nil) {
			return fmt.Errorf("record %d: %q is not a command the log can hold", rec.Seq, op[0])
		}
		// The log owns op only during this call: copy what a value may keep.
		args := make([][]byte, len(op))
		for i, a := range op {
			args[i] = append([]byte(nil), a...)
		}
		r.ctx.Reset()
		r.ctx.Args = args
		r.ctx.Values = r.ctx.Values[:0]
		r.ctx.Now = clock.NowMs()
		r.sink.wrote = false
		if r.sh.db.Snapshotting() {
			// A replica applies its primary's records while a snapshot of
			// its own may be running.
			for _, i := range spec.KeyIndexes(args) {
				r.sh.db.WillModify(string(args[i]))
			}
		}
		if spec.PerKey != nil {
			for _, i := range spec.KeyIndexes(args) {
				spec.PerKey(&r.ctx, args[i])
			}
		} else {
			spec.Run(&r.ctx)
		}
		r.ctx.W.Flush()
		if r.sink.wrote {
			r.failed++
			if r.firstErr == "" {
				r.firstErr = fmt.Sprintf("seq %d %q: %s", rec.Seq, op[0], strings.TrimSpace(string(r.sink.buf)))
			}
		}
	}
	return nil
}

// errSaveInProgress is Redis's reply to BGSAVE during a save.
var errSaveInProgress = errors.New("ERR Background save already in progress")

// startSnapshot begins a snapshot of the shard at its current sequence and
// writes it in the background; done receives the outcome.
func (sh *Shard) startSnapshot(done chan<- error) error {
	if sh.dir == "" {
		return errors.New("ERR durability memory keeps no files: nothing to save to")
	}
	if !sh.saving.CompareAndSwap(false, true) {
		return errSaveInProgress
	}
	sh.mu.Lock()
	h := snapshot.Header{Shard: sh.ID, Seq: sh.wlog().Last(), Epoch: sh.epoch,
		History: append([]snapshot.EpochStart(nil), sh.history...), CreatedMs: clock.NowMs()}
	sh.db.BeginSnapshot()
	sh.changesAtSave.Store(sh.changes.Load())
	// End the log's segment at the snapshot's sequence, so that once the
	// snapshot is on disk every record it holds can be dropped.
	sh.wlog().RollAfter(h.Seq)
	sh.mu.Unlock()
	go func() {
		err := sh.writeSnapshot(h)
		sh.finishSnapshot(h, err)
		if done != nil {
			done <- err
		}
	}()
	return nil
}

// writeSnapshot writes the snapshot startSnapshot began and drops what
// it covers.
func (sh *Shard) writeSnapshot(h snapshot.Header) error {
	if _, err := sh.writeImage(sh.dir, h); err != nil {
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
func (sh *Shard) writeImage(dir string, h snapshot.Header) (string, error) {
	w, err := snapshot.Create(dir, h)
	if err != nil {
		sh.endSnapshotState()
		return "", err
	}
	var addErr error
	add := func(k string, e *keyspace.Entry) {
		if addErr == nil {
			addErr = w.Add(k, e)
		}
	}
	for slot := sh.Slots.First; slot <= sh.Slots.Last; {
		sh.mu.Lock()
		for end := min(slot+64, sh.Slots.Last+1); slot < end; slot++ {
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
		changed := sh.changes.Load() - sh.changesAtSave.Load()
		elapsed := now - sh.lastSave.Load()
		for _, r := range rules {
			if changed >= r.Changes && changed > 0 && elapsed >= r.Seconds {
				sh.startSnapshot(nil)
				return
			}
		}
	default:
		if cfg.WALSnapshotBytes > 0 && sh.wlog().Size() > cfg.WALSnapshotBytes {
			sh.startSnapshot(nil)
		}
	}
}

// durableSeq is wal_durable_sequence: the log's durable point, or for the
// snapshot profile the sequence of the last snapshot.
func (sh *Shard) durableSeq() uint64 {
	if sh.durability == config.DurabilitySnapshot {
		return sh.snapSeq.Load()
	}
	return sh.wlog().Durable()
}

// closeFiles syncs and closes the log; the snapshot profile first writes a
// final snapshot so a clean shutdown loses nothing.
func (sh *Shard) closeFiles(save bool) error {
	if save && sh.durability == config.DurabilitySnapshot && sh.changes.Load() != sh.changesAtSave.Load() {
		done := make(chan error, 1)
		if err := sh.startSnapshot(done); err == nil {
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

// waitDurable blocks until every write the connection made is as safe as
// its shard's profile promises: fsynced (always), or handed to the OS
// (everysec: a crash of the process loses nothing acknowledged, a crash
// of the machine up to about a second).
func (c *conn) waitDurable() error {
	for i, seq := range c.pending {
		if seq == 0 {
			continue
		}
		c.pending[i] = 0
		sh := c.srv.shards[i]
		wait := sh.wlog().WaitDurable
		if sh.durability == config.DurabilityEverysec {
			wait = sh.wlog().WaitWritten
		}
		if err := wait(context.Background(), seq); err != nil {
			return err
		}
	}
	c.anyPending = false
	return nil
}
