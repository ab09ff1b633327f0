package keyspace

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// LFU holds the access-frequency settings a keyspace reads on every
// lookup: whether an LFU maxmemory policy is in force (only then are the
// counters kept, as in Redis) and lfu-log-factor and lfu-decay-time.
// It also carries the one other eviction setting a command asks about,
// whether integers are shared (see SetIntegersUnshared). The server
// changes them while shards run, hence the atomics.
type LFU struct {
	on        atomic.Bool
	logFactor atomic.Int64
	decayMin  atomic.Int64
	unshared  atomic.Bool
}

// SetIntegersUnshared records whether maxmemory is set with an LRU or
// LFU policy. Redis then stops handing out its shared objects for the
// integers 0 to 9999, since each value needs an object of its own to hold
// its access time or counter, and OBJECT REFCOUNT of such a value says 1.
func (l *LFU) SetIntegersUnshared(on bool) { l.unshared.Store(on) }

// IntegersUnshared reports what SetIntegersUnshared last recorded.
func (l *LFU) IntegersUnshared() bool { return l != nil && l.unshared.Load() }

// NoSharedIntegers is Redis's rule for SetIntegersUnshared: a memory
// limit with a policy that evicts by access time or frequency.
func NoSharedIntegers(maxmemory int64, policy string) bool {
	p, evicts := PolicyByName(policy)
	return maxmemory != 0 && evicts && (p.Order == ByIdle || p.Order == ByFreq)
}

// Set changes the settings: on says whether an LFU policy is in force,
// logFactor and decayMinutes are lfu-log-factor and lfu-decay-time.
func (l *LFU) Set(on bool, logFactor, decayMinutes int64) {
	l.logFactor.Store(logFactor)
	l.decayMin.Store(decayMinutes)
	l.on.Store(on)
}

// On reports whether an LFU policy is in force.
func (l *LFU) On() bool { return l != nil && l.on.Load() }

// LFUInit is the counter a new key starts with, Redis's LFU_INIT_VAL, so
// that a key just written is not the first to go.
const LFUInit = 5

// LFUIncr is Redis's logarithmic counter increment: the counter grows by
// one with probability 1/((counter-LFUInit)*logFactor+1), so a factor of
// 10 needs about a million accesses to reach the ceiling of 255. r is a
// random number in [0, 1).
func LFUIncr(counter uint8, logFactor int64, r float64) uint8 {
	if counter == 255 {
		return 255
	}
	base := float64(counter) - LFUInit
	if base < 0 {
		base = 0
	}
	if r < 1/(base*float64(logFactor)+1) {
		counter++
	}
	return counter
}

// LFUDecay is the counter after its decay: one less for every
// decayMinutes that passed between the last access (lastMs) and nowMs; a
// decay time of 0 never decays.
func LFUDecay(counter uint8, lastMs, nowMs, decayMinutes int64) uint8 {
	if decayMinutes <= 0 || nowMs <= lastMs {
		return counter
	}
	periods := (nowMs - lastMs) / 60000 / decayMinutes
	if periods >= int64(counter) {
		return 0
	}
	return counter - uint8(periods)
}

// Freq is e's access-frequency counter as OBJECT FREQ reports it: decayed
// to now, without counting this look as an access.
func (db *DB) Freq(e *Entry) uint8 {
	return LFUDecay(e.Freq(), e.Access(), db.Now(), db.LFU.decayMinutes())
}

func (l *LFU) decayMinutes() int64 {
	if l == nil {
		return 0
	}
	return l.decayMin.Load()
}

// accessed records a lookup of e at now: its access time, and under an
// LFU policy its counter, decayed for the time since the last access and
// then incremented.
func (db *DB) accessed(e *Entry, now int64) {
	if db.LFU.On() {
		c := LFUDecay(e.Freq(), e.Access(), now, db.LFU.decayMin.Load())
		e.SetFreq(LFUIncr(c, db.LFU.logFactor.Load(), rand.Float64()))
	}
	e.SetAccess(now)
}

// Sample calls fn for up to n random keys, only keys with a time to live
// when volatile. Like Redis's dictGetSomeKeys the keys are not drawn one
// by one: the walk starts at a random place and takes the keys it meets,
// which is random enough to pick eviction candidates and cheap. Expired
// keys not yet removed are included: they are the best candidates.
func (db *DB) Sample(n int, volatile bool, fn func(key string, e *Entry)) {
	if n <= 0 {
		return
	}
	if volatile {
		// Map iteration starts at a random position.
		for k := range db.expires {
			if n == 0 {
				return
			}
			if e := db.raw(k); e != nil {
				fn(k, e)
				n--
			}
		}
		return
	}
	if db.count == 0 {
		return
	}
	// From a random slot, the slots with keys in turn, each from a
	// random position, until n keys are found or every slot was seen.
	for slot := range db.usedSlots(rand.IntN(slots.Count)) {
		db.bySlot[slot].each(rand.Int(), func(e *Entry) bool {
			fn(e.key, e)
			n--
			return n > 0
		})
		if n == 0 {
			break
		}
	}
}

// Evict removes key as an eviction: like Delete, but counted in
// Stats.EvictedKeys. It reports whether the key existed.
func (db *DB) Evict(key string) bool {
	if db.raw(key) == nil {
		return false
	}
	db.remove(key)
	db.Stats.EvictedKeys++
	db.Touch(key)
	return true
}

// Policy is how a maxmemory policy other than noeviction picks the keys
// to evict.
type Policy struct {
	// Volatile limits the candidates to keys with a time to live.
	Volatile bool
	// Order is what makes a candidate the better one to evict.
	Order Order
}

// Order ranks eviction candidates.
type Order uint8

// The orders of the Redis policies.
const (
	ByIdle   Order = iota // *-lru: longest since the last access first
	ByFreq                // *-lfu: lowest access frequency first
	ByTTL                 // volatile-ttl: nearest expiry first
	ByRandom              // *-random: any key
)

// PolicyByName returns the Policy of a maxmemory-policy name, or false for
// noeviction and unknown names.
func PolicyByName(name string) (Policy, bool) {
	switch name {
	case "volatile-lru":
		return Policy{true, ByIdle}, true
	case "allkeys-lru":
		return Policy{false, ByIdle}, true
	case "volatile-lfu":
		return Policy{true, ByFreq}, true
	case "allkeys-lfu":
		return Policy{false, ByFreq}, true
	case "volatile-random":
		return Policy{true, ByRandom}, true
	case "allkeys-random":
		return Policy{false, ByRandom}, true
	case "volatile-ttl":
		return Policy{true, ByTTL}, true
	}
	return Policy{}, false
}

// Score ranks e as a candidate at nowMs: the higher, the sooner it should
// go. An expired key outranks every live one.
func (p Policy) Score(e *Entry, nowMs, decayMinutes int64) int64 {
	if e.ExpireAt != 0 && e.ExpireAt <= nowMs {
		return 1 << 62
	}
	switch p.Order {
	case ByIdle:
		return nowMs - e.Access()
	case ByFreq:
		// Among equally rare keys the one idle longest goes first, so
		// the frequency weighs most and idleness breaks ties.
		return (255-int64(LFUDecay(e.Freq(), e.Access(), nowMs, decayMinutes)))<<40 | min(max(nowMs-e.Access(), 0), 1<<40-1)
	case ByTTL:
		return -e.ExpireAt
	}
	return 0
}

// poolSize is how many good candidates a keyspace keeps between
// evictions, as Redis's EVPOOL_SIZE.
const poolSize = 16

// evictPool is the candidates kept between evictions: the best keys
// earlier samplings found, for a policy. Redis keeps such a pool so that
// each eviction compares its fresh sample with the best of the earlier
// ones, which brings sampled LRU close to true LRU.
type evictPool struct {
	policy Policy
	keys   []string
}

// Candidate samples keys as p says and returns the one to evict and its
// entry (which may have expired without being removed yet), or false
// when nothing can be evicted (no keys, or no volatile keys for a
// volatile policy). samples is maxmemory-samples. The sample is weighed
// together with the pool of earlier candidates, scored afresh (a key read
// since it entered the pool has become a worse candidate); the best goes
// and the next best stay in the pool.
func (db *DB) Candidate(p Policy, samples int) (string, *Entry, bool) {
	if p.Order == ByRandom {
		var key string
		var entry *Entry
		db.Sample(1, p.Volatile, func(k string, e *Entry) { key, entry = k, e })
		return key, entry, entry != nil
	}
	now := db.Now()
	decay := db.LFU.decayMinutes()
	if db.pool == nil {
		db.pool = &evictPool{}
	}
	if db.pool.policy != p {
		db.pool.policy, db.pool.keys = p, db.pool.keys[:0]
	}
	type cand struct {
		key   string
		e     *Entry
		score int64
	}
	cands := make([]cand, 0, poolSize+samples)
	seen := make(map[string]bool, poolSize+samples)
	add := func(key string, e *Entry) {
		if seen[key] || (p.Volatile && e.ExpireAt == 0) {
			return
		}
		seen[key] = true
		cands = append(cands, cand{key, e, p.Score(e, now, decay)})
	}
	for _, k := range db.pool.keys {
		if e := db.raw(k); e != nil {
			add(k, e)
		}
	}
	db.Sample(max(samples, 1), p.Volatile, add)
	if len(cands) == 0 {
		db.pool.keys = db.pool.keys[:0]
		return "", nil, false
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(b.score, a.score) })
	db.pool.keys = db.pool.keys[:0]
	for _, c := range cands[1:min(len(cands), poolSize+1)] {
		db.pool.keys = append(db.pool.keys, c.key)
	}
	return cands[0].key, cands[0].e, true
}
