package server

import (
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/keyspace"
)

// WATCH and UNWATCH while a script is busy. Redis answers both while a
// script runs past busy-reply-threshold: it serves clients from inside
// the script between two of its commands, so a key watched then counts
// as changed if the rest of the script writes it. Here the script's run
// holds its shard's lock to the end, so a WATCH or UNWATCH of a key on
// that shard is queued on the run instead, and the run registers it, as
// the lock's holder, before its next command and at its end. Only a
// command the script runs can change a key of its shard meanwhile, so
// the watch starts where Redis's would.

// watchOp is one queued WATCH of w's key, or UNWATCH of w's token.
type watchOp struct {
	w       *watchEntry
	unwatch bool
}

// busyWatches is a run's queue; ops are guarded by the run's mu, and
// queued counts them so the run's commands look without locking.
type busyWatches struct {
	ops    []watchOp
	queued atomic.Int32
}

// queueWatch queues op on the busy run holding its entry's shard, if
// there is one, and reports whether it did.
func (s *Server) queueWatch(op watchOp) bool {
	// One atomic load unless a script is running (running is made with
	// the first script).
	if s.scripts.active.Load() == 0 {
		return false
	}
	r := s.scripts.running[op.w.shard.ID].Load()
	if r == nil {
		return false
	}
	// A script younger than busy-reply-threshold is waited for until it
	// ends or passes it, as for every command: Redis serves nothing
	// during a script that is not yet busy.
	r.settle(s.tickStop)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.busy {
		// Ended: the caller takes the lock.
		return false
	}
	r.watches.ops = append(r.watches.ops, op)
	r.watches.queued.Add(1)
	return true
}

// registerWatches runs the queued WATCHes and UNWATCHes on db, whose
// shard's lock the run holds, in the order they came.
func (r *scriptRun) registerWatches(db *keyspace.DB) {
	if r.watches.queued.Load() == 0 {
		return
	}
	r.mu.Lock()
	ops := r.watches.ops
	r.watches.ops = nil
	r.watches.queued.Store(0)
	r.mu.Unlock()
	for _, op := range ops {
		if op.unwatch {
			db.Unwatch(op.w.token)
		} else {
			op.w.token = db.Watch(op.w.key)
		}
	}
}
