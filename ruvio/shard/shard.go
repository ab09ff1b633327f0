// Package shard is one partition of a data node's keyspace with its log and snapshots:
// commands run on it one at a time, every change is a record, and it recovers from its files.
package shard

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// Shard is one partition of the node's keyspace. Commands on its keys run
// one at a time under its lock, whichever port's connection sent them:
// that is the "one writer per shard" rule the log and replication rely
// on. Every change is appended to the shard's log under the lock, so log
// order is the order changes were applied.
type Shard struct {
	// ID is the shard's index on the node; Slots the hash slots it owns.
	ID    int
	Slots slots.Range

	mu sync.Mutex
	// long and waiting let a holder that may keep mu for long (a script)
	// and commands that must not wait for it stay out of each other's
	// way (longlock.go).
	long    atomic.Int32
	waiting atomic.Int32
	db      *keyspace.DB
	// walp is the shard's log. A replica that takes a full copy replaces
	// it (under mu), so readers outside mu load it once per use.
	walp  atomic.Pointer[wal.Log]
	table *command.Table
	log   *slog.Logger
	// replEpoch is the replication epoch new records carry, changed
	// under mu and read without it (ReplicationEpoch); history lists
	// where each stretch of history began, guarded by mu (historyID is its
	// newest stretch's ID, read without it: HistoryID). markNext says
	// the shard has not written since it started (or forked), so its next
	// record of its own begins a stretch (history.go); guarded by mu.
	replEpoch atomic.Uint64
	history   []snapshot.EpochStart
	historyID atomic.Uint64
	markNext  bool
	// forgotten, noted and notedPath: the memory profile's noted history
	// (forgotten.go), guarded by mu.
	forgotten []uint64
	noted     []uint64
	notedPath string
	// ops collects the effects of the command running under mu, to be
	// appended as one record.
	ops [][][]byte
	// sub receives every appended record (the replication backlog);
	// guarded by mu.
	sub LogSubscriber
	// applier applies a primary's records on a replica shard; guarded by
	// mu, made on first use.
	applier *replayer

	durability string
	dir        string // "" for the memory profile: no files

	saving        atomic.Bool
	lastSaveOK    atomic.Bool
	lastSave      atomic.Int64  // Unix seconds of the last snapshot (or of the start)
	snapSeq       atomic.Uint64 // sequence of the last snapshot
	changesAtSave atomic.Int64  // changes() when the last snapshot began
	recovered     Recovery
	// keepLog keeps the log a snapshot covers, so a test can compare a
	// replay of the whole log with snapshot + replay.
	keepLog bool
	// Slot moves (moves.go).
	moves moveHooks
	// notes collects the keyspace notifications of the work done under
	// mu; they are published, in order, once mu is released.
	notes   notify.Buffer
	publish func([]notify.Event)
	// lfu is the keyspace's access-frequency settings (evict.go).
	lfu keyspace.LFU
	// publishOnUnlock makes Unlock publish the notifications collected
	// under the lock: those of a primary's records a replica applied
	// (ApplyReplicatedLocked), whose caller takes the lock itself.
	publishOnUnlock bool
	// running is the context of the client command holding mu, or nil:
	// keyspace hooks use it to tell a client's own writes from others'
	// (CLIENT TRACKING NOLOOP).
	running *command.Ctx
	// libraries is the node's function libraries, on shard 0
	// (libraries.go).
	libraries atomic.Pointer[LibraryImage]
}

// LogSubscriber is told of every record the shard appends, in log order,
// while the shard's lock is held, so it can never miss or reorder one.
// Replication keeps its backlog this way.
type LogSubscriber interface {
	// Appended is called with each new record; ops and frame are only
	// valid during the call. frame is the record's encoded frame when the
	// shard has it (a replica's record, as its primary sent it), else nil.
	Appended(seq, replEpoch uint64, ops [][][]byte, frame []byte)
	// Restarted is called when the log was replaced by an empty one
	// (a full copy) whose next record is next.
	Restarted(next uint64)
}

// New makes shard id owning the slots r. It holds nothing until Open.
func New(id int, r slots.Range, log *slog.Logger) *Shard {
	sh := &Shard{ID: id, Slots: r, log: log}
	sh.db = keyspace.New(clock.NowMs)
	sh.db.LFU = &sh.lfu
	sh.db.OnExpire = func(key string) {
		// A key that expires is deleted everywhere through the log, like
		// Redis propagating DEL, so replicas never decide on their own.
		sh.AppendLocked([][][]byte{{[]byte("DEL"), []byte(key)}})
		sh.notes.Add(notify.Expired, "expired", key)
	}
	sh.db.OnNew = func(key string) { sh.notes.Add(notify.New, "new", key) }
	sh.db.OnMiss = func(key string) {
		// Only a wanted event pays for the copy: key may be an argument
		// in the client's buffer.
		if sh.notes.Wants(notify.KeyMiss) {
			sh.notes.Add(notify.KeyMiss, "keymiss", strings.Clone(key))
		}
	}
	sh.lastSaveOK.Store(true)
	return sh
}

// Lock takes the shard's lock: commands, and anything reading or changing
// the keyspace, run under it.
func (sh *Shard) Lock() { sh.mu.Lock() }

// Unlock releases the shard's lock, after publishing the notifications of
// the primary's records applied under it.
func (sh *Shard) Unlock() {
	if !sh.publishOnUnlock {
		sh.mu.Unlock()
		return
	}
	sh.publishOnUnlock = false
	sh.PublishNotesLocked()
	sh.mu.Unlock()
}

// DB is the shard's keyspace. Use it only while holding the lock; a
// change made through it reaches the log only by AppendLocked.
func (sh *Shard) DB() *keyspace.DB { return sh.db }

// wlog returns the shard's log (nil before Open).
func (sh *Shard) wlog() *wal.Log { return sh.walp.Load() }

// AppendLocked writes one record of effects (each a command's argv) and
// returns its sequence, or 0 when there is nothing to write. Caller holds
// the lock.
func (sh *Shard) AppendLocked(ops [][][]byte) uint64 {
	if len(ops) == 0 || sh.wlog() == nil {
		return 0
	}
	return sh.appendOwn(ops)
}

// appendOwn appends a record the shard wrote as a writer (not one of its
// primary's), the first since it started beginning a stretch of history
// (markStart). Caller holds the lock.
func (sh *Shard) appendOwn(ops [][][]byte) uint64 {
	if sh.markNext {
		ops = sh.markStart(ops)
	}
	return sh.appendAt(sh.replEpoch.Load(), ops)
}

// appendAt writes a record of the given replication epoch under mu, also
// when it has no effects (an epoch's first record marks the fork), and
// hands it to the subscriber.
func (sh *Shard) appendAt(replEpoch uint64, ops [][][]byte) uint64 {
	return sh.appendFramed(replEpoch, ops, nil)
}

// appendFramed is appendAt for a record whose encoded frame is known
// (nil: not known), which the log and the subscriber then copy instead of
// encoding the record again.
func (sh *Shard) appendFramed(replEpoch uint64, ops [][][]byte, frame []byte) uint64 {
	seq := sh.wlog().AppendFramed(replEpoch, ops, frame)
	if sh.moves.tap != nil {
		sh.moves.tap(ops)
	}
	if sh.sub != nil {
		sh.sub.Appended(seq, replEpoch, ops, frame)
	}
	return seq
}

// changes counts the records appended since start, to this log and to
// the logs it replaced: the log counts them, so an append costs no
// counter of the shard's own.
// Changes is the number of records the shard's log has taken since it
// opened (0 without a log).
func (sh *Shard) Changes() int64 { return sh.changes() }

func (sh *Shard) changes() int64 {
	if l := sh.wlog(); l != nil {
		return l.Appended()
	}
	return 0
}

// RecordLocked appends the effects of the command ctx ran, as one record,
// without copying them (the log encodes them before returning). Caller
// holds the lock.
func (sh *Shard) RecordLocked(ctx *command.Ctx) uint64 {
	sh.ops = sh.ops[:0]
	ctx.EachEffect(func(argv [][]byte) { sh.ops = append(sh.ops, argv) })
	return sh.AppendLocked(sh.ops)
}

// Run executes a data command against this shard with its lock held and
// returns the last record the command may have made or seen (see
// Observed). The caller sets ctx.Now.
func (sh *Shard) Run(spec *command.Spec, ctx *command.Ctx) uint64 {
	return sh.RunOrWait(spec, ctx, nil)
}

// RunOrWait is Run for a blocking command: when the command finds nothing
// and asks to wait (ctx.Block), its keys are registered with wake (see
// WaitLocked) before the lock is released, so a write that comes right
// after the run is not missed. A nil wake registers nothing, for a run
// whose keys are registered already; the caller removes the
// registrations with Unwait when it stops waiting.
func (sh *Shard) RunOrWait(spec *command.Spec, ctx *command.Ctx, wake chan struct{}) uint64 {
	sh.mu.Lock()
	return sh.RunAndUnlock(spec, ctx, wake)
}

// RunWoken is RunOrWait for a blocking command woken from its wait, its
// keys still registered with wake. When it must wait again the wake
// passes to the client after it on each of its keys
// (keyspace.DB.WakeAfter): a write wakes only the client that blocked
// first, so blocked clients are served in the order they blocked.
func (sh *Shard) RunWoken(spec *command.Spec, ctx *command.Ctx, wake chan struct{}) uint64 {
	sh.mu.Lock()
	seq := sh.RunLocked(spec, ctx)
	if ctx.Block != nil {
		for _, k := range ctx.Block.Keys {
			sh.db.WakeAfter(k, wake)
		}
	}
	sh.PublishNotesLocked()
	sh.mu.Unlock()
	return seq
}

// WaitLocked registers wake to be signalled by writes to keys, after
// emptying it of a signal left from an earlier wait: signals come from
// writers, who hold the lock, so none is lost. Caller holds the lock.
func (sh *Shard) WaitLocked(keys []string, wake chan struct{}) {
	select {
	case <-wake:
	default:
	}
	for _, k := range keys {
		sh.db.WaitKey(k, wake)
	}
}

// Unwait removes the registrations RunOrWait or WaitLocked made for keys.
func (sh *Shard) Unwait(keys []string, wake chan struct{}) {
	sh.mu.Lock()
	for _, k := range keys {
		sh.db.UnwaitKey(k, wake)
	}
	sh.mu.Unlock()
}

// RunLocked is Run for a caller that already holds the lock, as a
// connection does across a run of pipelined commands on one shard. The
// commands' notifications stay in the buffer until the caller publishes
// them (PublishNotesLocked) before it unlocks.
func (sh *Shard) RunLocked(spec *command.Spec, ctx *command.Ctx) uint64 {
	// The hint serves this run only: a context that runs another command
	// next may hold other arguments in the same buffer.
	hint := ctx.SlotHint
	ctx.SlotHint = keyspace.SlotHint{}
	if msg := sh.fenced(spec, ctx.Args); msg != "" {
		ctx.W.Error(msg)
		return 0
	}
	ctx.DB = sh.db
	sh.db.Hint = hint
	if spec.Flags&command.Write != 0 && sh.db.Snapshotting() {
		for _, i := range spec.KeyIndexes(ctx.Args) {
			sh.db.WillModify(string(ctx.Args[i]))
		}
	}
	ctx.Notes = &sh.notes
	sh.running = ctx
	sh.db.CmdNow = ctx.Now
	spec.Run(ctx)
	sh.db.CmdNow = 0
	sh.db.Hint = keyspace.SlotHint{} // the arguments' buffer is reused
	sh.running = nil
	sh.RecordLocked(ctx)
	return sh.Observed()
}

// RunningLocked is the context of the client command running under the
// lock (nil: none, or work of the server's own). Caller holds the lock.
func (sh *Shard) RunningLocked() *command.Ctx { return sh.running }

// SetRunningLocked names the client command about to run under the lock
// when the caller runs it itself rather than through Run; nil when it is
// done. Caller holds the lock.
func (sh *Shard) SetRunningLocked(ctx *command.Ctx) { sh.running = ctx }

// SetNotify gives the shard the node's notify-keyspace-events setting and
// the function that publishes notifications. Call before the shard serves.
func (sh *Shard) SetNotify(mask *atomic.Uint32, publish func([]notify.Event)) {
	sh.notes.Mask = mask
	sh.publish = publish
}

// Notes is the buffer in which commands run under the lock leave their
// keyspace notifications. Caller holds the lock.
func (sh *Shard) Notes() *notify.Buffer { return &sh.notes }

// PublishNotesLocked empties the notification buffer into the node's
// pub/sub. Caller holds the lock: as in Redis, a change's notification is
// queued to every subscriber before anyone else can see the change, so a
// client that observes it (a DBSIZE after an active expiry, a GET after
// another client's SET) and then publishes gets its message delivered
// after the notification. Publishing only queues bytes on subscribers'
// connections; it never waits on a socket.
func (sh *Shard) PublishNotesLocked() {
	evs := sh.notes.Take()
	if len(evs) > 0 && sh.publish != nil {
		sh.publish(evs)
	}
}

// Observed is the last record a command that just ran under the lock may
// have seen or made: its reply must not leave before that record is safe,
// or a read could show a write that a crash then takes back (a read of a
// value whose record is not yet fsynced is not linearizable across the
// crash). Cheap: when nothing is in flight the log is already durable
// past it.
func (sh *Shard) Observed() uint64 {
	if sh.wlog() == nil {
		return 0
	}
	return sh.wlog().Last()
}

// Tick runs the shard's periodic work: active expiry and snapshot rules.
func (sh *Shard) Tick(cfg *config.Config) {
	sh.mu.Lock()
	sh.db.ActiveExpire(16)
	sh.PublishNotesLocked()
	sh.mu.Unlock()
	sh.maybeSnapshot(cfg, clock.Default.Now().Unix())
}

// KeyCount returns the number of keys and of keys with a time to live.
func (sh *Shard) KeyCount() (keys, expires int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.KeyCountLocked()
}

// KeyCountLocked is KeyCount for a caller that holds the lock.
func (sh *Shard) KeyCountLocked() (keys, expires int) {
	return sh.db.Len(), sh.db.Expires()
}

// SetReplicaLocked marks the keyspace as a replica's copy, which only its
// primary's log changes (no expiry of its own), or not. Caller holds the
// lock.
func (sh *Shard) SetReplicaLocked(on bool) { sh.db.Replica = on }
