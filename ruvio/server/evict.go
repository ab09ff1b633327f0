package server

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/memcmd"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/replication"
)

// How eviction measures memory.
//
// Used memory is the Go heap's object bytes (sampleMemory), read from
// runtime/metrics every tick. That figure is fine for INFO but has two
// flaws as the gauge eviction steers by: it is up to a tick old, and a
// key that was evicted stays in it until the garbage collector has run
// and swept, so an eviction loop that re-read it would see no progress
// and evict everything. Eviction therefore keeps a running estimate: the
// last sample less the estimated sizes of the keys evicted since the
// collector's last cycle. When the cycle count moves on, the sample
// reflects those frees and the count starts again from zero. Garbage
// that commands leave behind still counts until a collection, so under a
// heavy write load eviction errs towards evicting somewhat more than
// strictly needed, never towards running out of memory; a tick's worth
// of writes may overshoot the limit before the next sample sees them.
//
// That garbage can be far more than the headroom: the collector lets the
// heap grow to twice what was live before it runs, so a node whose limit
// is near its live data would evict most of it for garbage's sake. So a
// client that finds the node over the limit first has the collector run,
// at most once per forcedGCInterval, and takes a fresh sample; only what
// is still over after that is evicted. A forced collection costs the
// client that waits for it a pause proportional to the live heap, which
// is the price of a limit on live data in a collected runtime.
//
// Under noeviction nothing is evicted, but what commands deleted (DEL,
// UNLINK, LPOP, FLUSHALL...) is garbage the gauge still counts: the
// collector would not run while writes are refused, since they allocate
// nothing, so the node would refuse writes for memory it no longer
// uses. A client that finds the node over the limit therefore has the
// collector run there too, at most once per forcedGCInterval and only if
// some write was logged since the last collection, so writes resume
// within that interval of a deletion. A flush collects at once, as
// Redis's FLUSHALL frees at once: FLUSHALL and FLUSHDB have the
// collector run before they answer (after letting the shards go), their
// ASYNC forms in the background, so the next write and INFO's
// used_memory see the memory free.

// evictState is a server's eviction bookkeeping, kept beside the Server
// (like its LATENCY state) so that eviction is self-contained.
type evictState struct {
	// mu lets one client evict at a time: two clients evicting for the
	// same excess would free it twice.
	mu sync.Mutex
	// freed is the estimated bytes evicted since GC cycle gcCycle.
	freed   atomic.Int64
	gcCycle atomic.Uint64
	// next is the shard the next eviction starts from, so shards take
	// turns.
	next atomic.Uint32
	// settings is the limit and policy in force, refreshed by
	// applyEviction: every write that may grow memory reads it.
	settings atomic.Pointer[evictSettings]
	// lastGC is when eviction last had the collector run, and
	// changesAtGC the shards' records then (both guarded by mu).
	lastGC      time.Time
	changesAtGC int64
	// flushGC is set while a collection started by a flush runs.
	flushGC atomic.Bool
}

// forcedGCInterval is the least time between two collections eviction
// forces on finding the node over the limit, minGCInterval between two it
// forces while evicting (see freeMemory).
const (
	forcedGCInterval = 100 * time.Millisecond
	minGCInterval    = 10 * time.Millisecond
)

// evictSettings are the maxmemory and maxmemory-policy settings eviction
// reads.
type evictSettings struct {
	limit   int64 // maxmemory; 0 for none
	policy  keyspace.Policy
	evicts  bool // false for noeviction
	samples int
}

// applyEviction takes the eviction settings from cfg: the policy and its
// sample count for eviction, and for every shard's keyspace the LFU
// settings (whose counters an LFU policy keeps on each access) and
// whether small integers are shared (OBJECT REFCOUNT). Called with cfg
// not changing underneath: at start, on each tick, and after CONFIG SET.
func (s *Server) applyEviction(cfg *config.Config) {
	pol, evicts := keyspace.PolicyByName(cfg.MaxMemoryPolicy)
	st := s.evict
	cur := st.settings.Load()
	want := evictSettings{limit: cfg.MaxMemory, policy: pol, evicts: evicts, samples: cfg.MaxMemorySamples}
	if cur == nil || *cur != want {
		st.settings.Store(&want)
	}
	lfu := evicts && pol.Order == keyspace.ByFreq
	unshared := keyspace.NoSharedIntegers(cfg.MaxMemory, cfg.MaxMemoryPolicy)
	for _, sh := range s.shards {
		sh.LFU().Set(lfu, int64(cfg.LFULogFactor), int64(cfg.LFUDecayTime))
		sh.LFU().SetIntegersUnshared(unshared)
	}
}

// gcCycle is the number of garbage collections completed so far.
func gcCycle() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// noteGC forgets the frees counted before collection cycle, which the
// heap sample taken after reading it reflects. Called after each sample,
// by the sampler alone.
func (st *evictState) noteGC(cycle uint64) {
	if cycle != st.gcCycle.Load() {
		st.gcCycle.Store(cycle)
		st.freed.Store(0)
	}
}

// memoryEstimate is used memory as eviction sees it (see above).
func (s *Server) memoryEstimate() int64 {
	return max(s.usedMem.Load()-s.evict.freed.Load(), 0)
}

// evictTimeLimit bounds one command's eviction work, like Redis's
// eviction time limit: a command that hits it runs anyway, and the next
// one carries on.
const evictTimeLimit = 2 * time.Millisecond

// evictOutcome is what freeMemory achieved.
type evictOutcome int

const (
	evictUnder    evictOutcome = iota // memory is under the limit
	evictRunning                      // progress, stopped by the time limit
	evictNoMemory                     // still over and nothing left to evict
)

// freeMemory evicts keys, shard by shard, until the estimate is under
// limit, nothing evictable is left or the time limit is reached. Each
// shard evicts from its own keyspace under its own lock. A replica never
// evicts: it follows its primary's DELs, as in Redis.
//
// The collector is made to run (see above) when the node is found over
// the limit and none ran for forcedGCInterval; and, at most once per
// minGCInterval, when eviction has freed a 32nd of the limit since the
// last collection and is still over, or has nothing left to evict after
// evicting since the last collection: each time, the gauge may be
// showing garbage rather than data. A node that stays over with nothing
// to evict has freed nothing since, so it does not collect for every
// command it refuses.
func (s *Server) freeMemory(limit int64) evictOutcome {
	if s.repl.Role() == replication.Replica {
		// As a Redis replica with replica-ignore-maxmemory (its default):
		// its primary's DELs bound its data, and it refuses nothing for
		// memory (a write still gets the replica's own refusal).
		return evictUnder
	}
	st := s.evict
	set := st.settings.Load()
	if set == nil || s.pause.Holds(true) {
		return evictNoMemory
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if s.memoryEstimate() <= limit {
		return evictUnder
	}
	collect := func(interval time.Duration) bool {
		if time.Since(st.lastGC) < interval {
			return false
		}
		st.changesAtGC = s.loggedChanges()
		runtime.GC()
		st.lastGC = time.Now()
		s.sampleMemory()
		return true
	}
	if !set.evicts {
		if s.loggedChanges() != st.changesAtGC && collect(forcedGCInterval) && s.memoryEstimate() <= limit {
			return evictUnder
		}
		return evictNoMemory
	}
	began := time.Now()
	defer func() { s.observeEvent("eviction-cycle", time.Since(began)) }()
	collect(forcedGCInterval)
	work := time.Now()
	n := len(s.shards)
	for dry := 0; ; {
		if s.memoryEstimate() <= limit {
			return evictUnder
		}
		if st.freed.Load() > limit/32 && collect(minGCInterval) {
			continue
		}
		sh := s.shards[int(st.next.Add(1))%n]
		freed, ok := sh.EvictOne(set.policy, set.samples, evictedSize)
		if ok {
			st.freed.Add(freed)
			dry = 0
		} else if dry++; dry == n {
			if st.freed.Load() > 0 && collect(minGCInterval) {
				dry = 0
				continue
			}
			return evictNoMemory
		}
		if time.Since(work) > evictTimeLimit {
			return evictRunning
		}
	}
}

// loggedChanges is the number of records the shards' logs took: it
// moves when a command changed data, deletions included.
func (s *Server) loggedChanges() int64 {
	var n int64
	for _, sh := range s.shards {
		n += sh.Changes()
	}
	return n
}

// collectAfterFlush has the collector run after a flush and takes a
// fresh sample, so the next write and INFO see the memory the flush
// freed: before returning, or in the background for an ASYNC flush
// (unless one it started still runs).
func (s *Server) collectAfterFlush(async bool) {
	if !async {
		runtime.GC()
		s.sampleMemory()
		return
	}
	if !s.evict.flushGC.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.evict.flushGC.Store(false)
		runtime.GC()
		s.sampleMemory()
	}()
}

// evictedSize estimates what evicting key frees: its entry, its key
// string and its value, as MEMORY USAGE counts them.
func evictedSize(key string, e *keyspace.Entry) int64 {
	return memcmd.KeySize(key, e.ExpireAt != 0, e.Val, memcmd.DefaultSamples)
}

// checkMemoryLocked is checkMemory for a command run while its caller
// holds shard locks (a queued command of EXEC, a script's redis.call),
// where eviction, which takes shard locks, cannot run. It refuses under
// noeviction when over the limit; under an evicting policy it refuses
// nothing, memory being left to the eviction that ran before EXEC or the
// script, as Redis evicts once before them.
func (s *Server) checkMemoryLocked(spec *command.Spec) string {
	if spec.Flags&command.DenyOOM == 0 {
		return ""
	}
	max := s.maxMemory()
	if max <= 0 || s.memoryEstimate() <= max || s.repl.Role() == replication.Replica {
		return ""
	}
	if set := s.evict.settings.Load(); set != nil && set.evicts {
		return ""
	}
	return errOOM
}

// errOOM is Redis's refusal of a command that may grow memory over
// maxmemory.
const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// checkMemoryHere is checkMemory, or checkMemoryLocked while the client's
// EXEC holds shard locks (a script queued in the transaction).
func (c *conn) checkMemoryHere(spec *command.Spec) string {
	if len(c.locked) > 0 {
		return c.srv.checkMemoryLocked(spec)
	}
	return c.srv.checkMemory(spec, nil)
}
