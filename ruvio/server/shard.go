package server

import (
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// Shard is one partition of the node's keyspace. Commands on its keys run
// one at a time under mu, whichever port's connection sent them: that is
// the "one writer per shard" rule the log and replication rely on.
type Shard struct {
	ID    int
	Slots slots.Range

	mu sync.Mutex
	db *keyspace.DB
	// changes counts effects applied since start; the log's sequence
	// numbers will be these.
	changes atomic.Int64
}

func newShard(id int, r slots.Range) *Shard {
	sh := &Shard{ID: id, Slots: r}
	sh.db = keyspace.New(clock.NowMs)
	sh.db.OnExpire = func(key string) {
		// A key that expires is deleted everywhere through the log, like
		// Redis propagating DEL, so replicas never decide on their own.
		sh.record([][][]byte{{[]byte("DEL"), []byte(key)}})
	}
	return sh
}

// record takes the effects of a command that ran under mu.
func (sh *Shard) record(effects [][][]byte) {
	if len(effects) == 0 {
		return
	}
	sh.changes.Add(int64(len(effects)))
}

// run executes a data command against this shard with its lock held.
func (sh *Shard) run(spec *command.Spec, ctx *command.Ctx) {
	sh.mu.Lock()
	ctx.DB = sh.db
	ctx.Now = clock.NowMs()
	spec.Run(ctx)
	sh.record(ctx.Effects())
	sh.mu.Unlock()
}

// tick runs the shard's periodic work: active expiry.
func (sh *Shard) tick() {
	sh.mu.Lock()
	sh.db.ActiveExpire(16)
	sh.mu.Unlock()
}

// keyCount returns the number of keys and of keys with a time to live.
func (sh *Shard) keyCount() (keys, expires int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.db.Len(), sh.db.Expires()
}
