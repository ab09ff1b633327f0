package server

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// Shard is one partition of the node's keyspace. Commands on its keys run
// one at a time under mu, whichever port's connection sent them: that is
// the "one writer per shard" rule the log and replication rely on. Every
// change is appended to the shard's log under mu, so log order is the
// order changes were applied.
type Shard struct {
	ID    int
	Slots slots.Range

	mu sync.Mutex
	db *keyspace.DB
	// walp is the shard's log. A replica that takes a full copy replaces
	// it (under mu), so readers outside mu load it once per use.
	walp  atomic.Pointer[wal.Log]
	table *command.Table
	log   *slog.Logger
	// epoch is the replication epoch new records carry; history lists
	// where each epoch began. Guarded by mu.
	epoch   uint64
	history []snapshot.EpochStart
	// ops collects the effects of the command running under mu, to be
	// appended as one record.
	ops [][][]byte

	durability string
	dir        string // "" for the memory profile: no files
	// changes counts records appended since start.
	changes atomic.Int64

	saving        atomic.Bool
	lastSaveOK    atomic.Bool
	lastSave      atomic.Int64  // Unix seconds of the last snapshot (or of the start)
	snapSeq       atomic.Uint64 // sequence of the last snapshot
	changesAtSave atomic.Int64  // changes when the last snapshot began
	recovered     recovery
	// keepLog keeps the log a snapshot covers, so a test can compare a
	// replay of the whole log with snapshot + replay.
	keepLog bool

	repl shardRepl
}

func newShard(id int, r slots.Range, log *slog.Logger) *Shard {
	sh := &Shard{ID: id, Slots: r, log: log}
	sh.db = keyspace.New(clock.NowMs)
	sh.db.OnExpire = func(key string) {
		// A key that expires is deleted everywhere through the log, like
		// Redis propagating DEL, so replicas never decide on their own.
		sh.append([][][]byte{{[]byte("DEL"), []byte(key)}})
	}
	sh.lastSaveOK.Store(true)
	return sh
}

// wlog returns the shard's log (nil before open).
func (sh *Shard) wlog() *wal.Log { return sh.walp.Load() }

// append writes one record of effects under mu and returns its sequence.
func (sh *Shard) append(ops [][][]byte) uint64 {
	if len(ops) == 0 || sh.wlog() == nil {
		return 0
	}
	return sh.appendAt(sh.epoch, ops)
}

// appendAt writes a record of the given epoch under mu, also when it has
// no effects (an epoch's first record marks the fork), and hands it to
// the replication backlog when replicas may read it.
func (sh *Shard) appendAt(epoch uint64, ops [][][]byte) uint64 {
	sh.changes.Add(1)
	seq := sh.wlog().Append(epoch, ops)
	if sh.repl.backlog != nil {
		sh.repl.backlog.add(seq, epoch, ops)
	}
	return seq
}

// recordCtx appends the effects of the command ctx ran, as one record,
// without copying them (the log encodes them before returning).
func (sh *Shard) recordCtx(ctx *command.Ctx) uint64 {
	sh.ops = sh.ops[:0]
	ctx.EachEffect(func(argv [][]byte) { sh.ops = append(sh.ops, argv) })
	return sh.append(sh.ops)
}

// run executes a data command against this shard with its lock held and
// returns the sequence of the record it appended (0 for none). The caller
// sets ctx.Now.
func (sh *Shard) run(spec *command.Spec, ctx *command.Ctx) uint64 {
	sh.mu.Lock()
	ctx.DB = sh.db
	if spec.Flags&command.Write != 0 && sh.db.Snapshotting() {
		for _, i := range spec.KeyIndexes(ctx.Args) {
			sh.db.WillModify(string(ctx.Args[i]))
		}
	}
	spec.Run(ctx)
	sh.recordCtx(ctx)
	seq := sh.observed()
	sh.mu.Unlock()
	return seq
}

// observed is the last record a command that just ran under mu may have
// seen or made: its reply must not leave before that record is safe, or a
// read could show a write that a crash then takes back (a read of a value
// whose record is not yet fsynced is not linearizable across the crash).
// Cheap: when nothing is in flight the log is already durable past it.
func (sh *Shard) observed() uint64 {
	if sh.wlog() == nil {
		return 0
	}
	return sh.wlog().Last()
}

// tick runs the shard's periodic work: active expiry and snapshot rules.
func (sh *Shard) tick(cfg *config.Config) {
	sh.mu.Lock()
	sh.db.ActiveExpire(16)
	sh.mu.Unlock()
	sh.maybeSnapshot(cfg, clock.Default.Now().Unix())
}

// keyCount returns the number of keys and of keys with a time to live.
func (sh *Shard) keyCount() (keys, expires int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.db.Len(), sh.db.Expires()
}
