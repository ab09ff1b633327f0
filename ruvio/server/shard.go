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

// record takes effects (commands to replay) of a change made under mu.
func (sh *Shard) record(effects [][][]byte) {
	for _, e := range effects {
		sh.recordOne(e)
	}
}

// recordOne takes one effect; argv is not kept.
func (sh *Shard) recordOne(argv [][]byte) {
	sh.changes.Add(1)
}

// recordCtx takes the effects of the command ctx ran, without copying.
func (sh *Shard) recordCtx(ctx *command.Ctx) { ctx.EachEffect(sh.recordOne) }

// run executes a data command against this shard with its lock held. The
// caller sets ctx.Now.
func (sh *Shard) run(spec *command.Spec, ctx *command.Ctx) {
	sh.mu.Lock()
	ctx.DB = sh.db
	spec.Run(ctx)
	sh.recordCtx(ctx)
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
