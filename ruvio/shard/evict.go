package shard

import (
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// LFU is the shard keyspace's access-frequency settings, which the server
// changes with maxmemory-policy, lfu-log-factor and lfu-decay-time.
func (sh *Shard) LFU() *keyspace.LFU { return &sh.lfu }

// EvictOne evicts one key of this shard chosen by p among samples keys,
// and returns the size the key had by size and whether a key went. The
// eviction is a write like any other: a DEL record in the shard's log,
// which replication carries to the replicas (they never evict on their
// own, as Redis replicas do not), and an "evicted" notification. A key
// whose time already ran out goes as an expiry instead, since that is
// what it is. A replica's shard evicts nothing.
func (sh *Shard) EvictOne(p keyspace.Policy, samples int, size func(key string, e *keyspace.Entry) int64) (int64, bool) {
	sh.mu.Lock()
	if sh.db.Replica || sh.db.Loading {
		sh.mu.Unlock()
		return 0, false
	}
	key, e, ok := sh.db.Candidate(p, samples)
	if !ok {
		sh.mu.Unlock()
		return 0, false
	}
	freed := size(key, e)
	if sh.db.Peek(key) == nil {
		// Expired: Get removes it through the expiry path (its DEL and
		// its "expired" notification).
		sh.db.Get(key)
	} else {
		sh.db.Evict(key)
		sh.AppendLocked([][][]byte{{[]byte("DEL"), []byte(key)}})
		sh.notes.Add(notify.Evicted, "evicted", key)
	}
	sh.PublishNotesLocked()
	sh.mu.Unlock()
	return freed, true
}
