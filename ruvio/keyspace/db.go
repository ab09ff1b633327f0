// Package keyspace holds one shard's keys: values by slot, expiry, the
// versions WATCH compares and the wake-ups blocking commands wait on.
// A DB is not safe for concurrent use; its shard serialises access.
package keyspace

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// Entry is one key's value and its expiry (Unix ms, 0 = none).
//
// Val holds one of: []byte (string), *deque.Deque (list),
// *hash.Hash (hash), map[string]struct{} (set), *sortedset.Set
// (sorted set), *stream.Stream (stream).
type Entry struct {
	Val      any
	ExpireAt int64
	// key is the entry's key as its slot's table holds it (table.go).
	key string
	// meta is what eviction keeps about the key, no part of the value
	// (snapshots, digests and replication ignore it): when it was last
	// stored or looked up, in Unix ms, for OBJECT IDLETIME, in the low 56
	// bits, and the access-frequency counter an LFU maxmemory policy
	// keeps (see LFU) in the top 8. One word keeps an Entry at 48 bytes,
	// a size class, where separate fields would take 64.
	meta uint64
}

const accessMask = 1<<56 - 1

// Access is when the key was last stored or looked up, in Unix ms.
func (e *Entry) Access() int64 { return int64(e.meta & accessMask) }

// SetAccess records an access at ms (Unix ms; clamped to 0 and to what
// 56 bits hold, some two million years).
func (e *Entry) SetAccess(ms int64) {
	e.meta = e.meta&^accessMask | uint64(min(max(ms, 0), accessMask))
}

// Freq is the key's LFU counter as last stored, without decay (DB.Freq
// decays it to now).
func (e *Entry) Freq() uint8 { return uint8(e.meta >> 56) }

// SetFreq stores the key's LFU counter.
func (e *Entry) SetFreq(f uint8) { e.meta = e.meta&accessMask | uint64(f)<<56 }

// DB is the keyspace of one shard.
type DB struct {
	// bySlot holds the keys of each slot, so SCAN can walk slots in order
	// and a slot range can be moved as a unit.
	bySlot [slots.Count]table
	// used has a bit set for each slot that holds a key, so sampling and
	// RANDOMKEY go straight to a slot with keys: a shard's keys sit in
	// the slots it serves, often a small part of all of them.
	used    [slots.Count / 64]uint64
	count   int
	expires map[string]struct{}

	// Now returns the current wall time in Unix ms (injected so tests and
	// the chaos clock reach expiry).
	Now func() int64
	// OnExpire is called with a key removed because its time ran out, so
	// the deletion reaches the log as an effect. May be nil.
	OnExpire func(key string)
	// OnNew is called with a key that did not exist and now does (the
	// "new" keyspace notification). May be nil; not called while Loading,
	// unless Applying.
	OnNew func(key string)
	// OnMiss is called with a key a read found missing (the "keymiss"
	// notification), on the lookups that count a keyspace miss. key may
	// be a command's argument in place: keep a copy, not key. May be nil.
	OnMiss func(key string)
	// Applying is set while a replica applies its primary's records: the
	// keyspace is Loading, but the commands' notifications fire, as on a
	// Redis replica.
	Applying bool
	// OnModified is called with every key a write, a deletion or an
	// expiry changes (from Touch), so client-side caching can invalidate
	// it; also while Loading, since a replica's clients track keys its
	// primary's stream changes. May be nil.
	OnModified func(key string)
	// OnFlush is called when Flush empties the keyspace. May be nil.
	OnFlush func()
	// CmdNow, while a command runs, is its time in Unix ms (the shard
	// sets it from the command's context): lookups read it rather than
	// the clock, once per key, as Redis reads the time once per command.
	// 0 outside commands: the clock is read.
	CmdNow int64
	// Hint, while a command runs, is the slot of one of its keys that
	// the server worked out to route it (the shard sets it from the
	// command's context and clears it after): lookups of that key, the
	// same bytes in memory, take its slot from there. The zero value
	// holds none.
	Hint SlotHint

	// Loading turns lazy expiry off while a log is replayed or a replica
	// applies its primary's stream: a key's expiry is then decided by the
	// DEL the log carries, never by the clock at replay time, so replay
	// reaches the state the log describes.
	Loading bool

	// Replica makes the keyspace a copy that its primary's log alone
	// changes: a key whose time ran out reads as missing but stays until
	// the primary's DEL arrives, and active expiry does nothing, so the
	// replica's log stays the primary's, record for record (Redis replicas
	// behave the same way since 3.2).
	Replica bool

	// KeepExpired, when set and true, holds expiry as Replica does: a key
	// whose time ran out reads as missing but stays, and nothing is
	// logged. The server sets it to CLIENT PAUSE WRITE, under which Redis
	// expires nothing either, so a paused primary's log stands still.
	KeepExpired func() bool

	// Whole is set when this keyspace holds every slot, so a key named
	// by any pattern is here (SORT BY and GET on a node of one shard
	// outside a cluster).
	Whole bool

	// ActiveExpireOff stops active expiry (DEBUG SET-ACTIVE-EXPIRE 0):
	// keys whose time ran out go only when a command looks them up.
	ActiveExpireOff bool

	// LFU, when set, tells lookups whether to keep access-frequency
	// counters and how (evict.go).
	LFU *LFU
	// Shapes, when set, are the parameters of values' layout.
	Shapes *Shapes
	// pool is eviction's candidates between evictions (evict.go).
	pool *evictPool

	// slotKey, slotMemo and hashMemo are locate's last key, its slot and
	// its hash.
	slotKey  string
	slotMemo int
	hashMemo uint64

	cow     *cowState // a snapshot in progress, or nil
	watched map[string]*watch
	waiters map[string][]chan struct{}
	Stats   Stats
}

// Stats are counters INFO stats reports.
type Stats struct {
	ExpiredKeys    int64
	EvictedKeys    int64
	KeyspaceHits   int64
	KeyspaceMisses int64
}

type watch struct {
	version uint64
	refs    int
}

// New returns an empty keyspace reading time from now.
func New(now func() int64) *DB {
	return &DB{
		expires: make(map[string]struct{}),
		watched: make(map[string]*watch),
		waiters: make(map[string][]chan struct{}),
		Now:     now,
	}
}

// Len is the number of keys, including expired ones not yet removed.
func (db *DB) Len() int { return db.count }

// Expires is the number of keys that have a time to live.
func (db *DB) Expires() int { return len(db.expires) }

// locate is key's slot and its hash in the slot's table. A command looks
// its key up and then stores it with the same string, so the last answer
// is kept and reused when the string is that one (same bytes in memory,
// compared in constant time): SET hashes its key once instead of twice.
func (db *DB) locate(key string) (slot int, h uint64) {
	if len(key) == len(db.slotKey) && unsafe.StringData(key) == unsafe.StringData(db.slotKey) {
		return db.slotMemo, db.hashMemo
	}
	slot, h = db.keySlot(key), hashKey(key)
	db.remember(key, slot, h)
	return slot, h
}

// remember keeps key's slot and hash for locate's next call with key.
func (db *DB) remember(key string, slot int, h uint64) {
	db.slotKey, db.slotMemo, db.hashMemo = key, slot, h
}

// A SlotHint is a key's slot, computed by a caller that needed it before
// the keyspace did. Key is the key as the command holds it: a lookup
// uses Slot only for those very bytes (same address, same length), so
// the hint must not outlive the buffer it points into.
type SlotHint struct {
	Key  []byte
	Slot int
}

// keySlot is key's slot: the hint's when key is the hint's key, else
// worked out. With two shards the server has routed every command by its
// key's slot before the keyspace looks the key up.
func (db *DB) keySlot(key string) int {
	if k := db.Hint.Key; len(k) == len(key) && len(k) > 0 && unsafe.SliceData(k) == unsafe.StringData(key) {
		return db.Hint.Slot
	}
	return slots.OfString(key)
}

// slotOf is key's slot.
func (db *DB) slotOf(key string) int {
	slot, _ := db.locate(key)
	return slot
}

func (db *DB) raw(key string) *Entry {
	slot, h := db.locate(key)
	return db.bySlot[slot].get(key, h)
}

// Get returns the live entry of key, removing it first when it expired.
func (db *DB) Get(key string) *Entry { return db.live(db.raw(key), key) }

// GetForWrite is Get for a command about to store under key, an argument
// in a buffer the caller reuses. It returns key's live entry and key as a
// string the keyspace may keep: the entry's own when there is one, which
// spares a copy on every overwrite, else a copy of key whose slot and hash
// the store that follows finds already computed (locate). key itself is
// neither kept nor remembered.
func (db *DB) GetForWrite(key []byte) (*Entry, string) {
	k := unsafe.String(unsafe.SliceData(key), len(key))
	slot, h := db.keySlot(k), hashKey(k)
	if e := db.live(db.bySlot[slot].get(k, h), k); e != nil {
		return e, e.key
	}
	owned := string(key)
	db.remember(owned, slot, h)
	return nil, owned
}

// live is e, key's entry, or nil when it expired, which it then removes
// (on a primary) with a copy of key: an expiry is rare, and the copy
// keeps key itself off the heap for callers like Read.
func (db *DB) live(e *Entry, key string) *Entry {
	if e == nil {
		return nil
	}
	now := db.now()
	if db.gone(e, key, now) {
		return nil
	}
	db.accessed(e, now)
	return e
}

// gone reports whether e, key's entry, expired at now, and then removes
// it (on a primary).
func (db *DB) gone(e *Entry, key string, now int64) bool {
	if e.ExpireAt == 0 || db.Loading || e.ExpireAt > now {
		return false
	}
	if !db.Replica && (db.KeepExpired == nil || !db.KeepExpired()) {
		db.expire(strings.Clone(key))
	}
	return true
}

// ReadNoTouch is Read for the commands that look at a key without using
// its value (EXISTS, TYPE, TTL and the like): an expired key is removed
// and the hit or miss counted, but the key's access time, which idle
// time and LRU eviction go by, is left as it was, as Redis's
// LOOKUP_NOTOUCH leaves it.
func (db *DB) ReadNoTouch(key string) *Entry {
	e := db.ReadQuiet(key)
	if e == nil && db.OnMiss != nil {
		db.OnMiss(key)
	}
	return e
}

// ReadQuiet is ReadNoTouch without the keymiss notification: OBJECT's
// lookup, which Redis makes with LOOKUP_NONOTIFY.
func (db *DB) ReadQuiet(key string) *Entry {
	e := db.bySlot[db.keySlot(key)].get(key, hashKey(key))
	if e != nil && db.gone(e, key, db.now()) {
		e = nil
	}
	if e == nil {
		db.Stats.KeyspaceMisses++
	} else {
		db.Stats.KeyspaceHits++
	}
	return e
}

// now is the running command's time, or the clock's outside commands.
func (db *DB) now() int64 {
	if db.CmdNow != 0 {
		return db.CmdNow
	}
	return db.Now()
}

// Stored returns key's entry as stored, even past its expiry time, without
// removing it or counting an access (DEBUG OBJECT's lookup).
func (db *DB) Stored(key string) *Entry { return db.raw(key) }

// Peek returns the live entry of key like Get, without counting it as an
// access (OBJECT's lookup) and without removing an expired entry.
func (db *DB) Peek(key string) *Entry {
	e := db.raw(key)
	if e == nil || (e.ExpireAt != 0 && !db.Loading && e.ExpireAt <= db.now()) {
		return nil
	}
	return e
}

// Read is Get that counts a keyspace hit or miss. Unlike Get it keeps
// nothing of key (Get keeps the last key's slot and hash for a store
// that follows with the same string), so a key converted from a
// command's argument for a read stays off the heap: GET allocated its
// key on every call.
func (db *DB) Read(key string) *Entry {
	e := db.live(db.bySlot[db.keySlot(key)].get(key, hashKey(key)), key)
	if e == nil {
		db.Stats.KeyspaceMisses++
		if db.OnMiss != nil {
			db.OnMiss(key)
		}
	} else {
		db.Stats.KeyspaceHits++
	}
	return e
}

// ReadArg is Read of a key in the caller's buffer, a command's argument
// as it arrived. Read keeps nothing of its key, so the key is read in
// place, not copied: the same bytes the server routed the command by,
// whose slot a hint then carries (SlotHint).
func (db *DB) ReadArg(key []byte) *Entry {
	return db.Read(unsafe.String(unsafe.SliceData(key), len(key)))
}

func (db *DB) expire(key string) {
	db.remove(key)
	db.Stats.ExpiredKeys++
	db.Touch(key)
	if db.OnExpire != nil {
		db.OnExpire(key)
	}
}

// Set stores val under key with no expiry, replacing any old value.
func (db *DB) Set(key string, val any) *Entry {
	return db.SetWithExpiry(key, val, 0)
}

// SetWithExpiry stores val under key expiring at the given Unix ms
// (0 = never), replacing any old value.
func (db *DB) SetWithExpiry(key string, val any, expireAt int64) *Entry {
	db.WillModify(key)
	slot, h := db.locate(key)
	t := &db.bySlot[slot]
	e := t.get(key, h)
	if e == nil {
		e = newEntry(key)
		e.SetFreq(LFUInit)
		e.SetAccess(db.now())
		t.insert(e, h)
		if t.len() == 1 {
			db.used[slot/64] |= 1 << (slot % 64)
		}
		db.count++
		if db.OnNew != nil && (!db.Loading || db.Applying) {
			db.OnNew(key)
		}
	} else {
		db.accessed(e, db.now())
	}
	e.Val = val
	db.setExpiry(key, e, expireAt)
	db.Touch(key)
	return e
}

// SetFound is SetWithExpiry for a command that has just looked key up:
// found is what Get returned for it, nil when the key was missing. A key
// that exists is changed in its entry without being looked up again, and
// without counting a second access: the lookup counted it, as Redis's
// lookup before an overwrite does (its overwrite keeps the LFU counter).
func (db *DB) SetFound(key string, found *Entry, val any, expireAt int64) *Entry {
	if found == nil {
		return db.SetWithExpiry(key, val, expireAt)
	}
	db.WillModify(key)
	found.Val = val
	db.setExpiry(key, found, expireAt)
	db.Touch(key)
	return found
}

// SetStringFound is SetFound for a string value: it stores a copy of b.
// When found holds a string of b's length that NewString made (a value
// changed in place is copied again, so that it reads as stored whole:
// Embedded), its bytes are overwritten where they are and nothing is
// allocated. A string value belongs to its
// key alone (SETRANGE and SETBIT change one in place too), and whoever
// reads one copies it before the shard's lock is let go, so no one else
// sees the change; a running snapshot has kept the old bytes first
// (WillModify). A caller that still needs the old value after the call
// must not pass its entry.
func (db *DB) SetStringFound(key string, found *Entry, b []byte, expireAt int64) *Entry {
	if found != nil && len(b) > 0 {
		if cur, ok := found.Val.([]byte); ok && len(cur) == len(b) && (len(b) > embedMax || Embedded(found.Val)) {
			db.WillModify(key)
			copy(cur, b)
			db.setExpiry(key, found, expireAt)
			db.Touch(key)
			return found
		}
	}
	return db.SetFound(key, found, NewString(b), expireAt)
}

// Add stores val under key, which must not exist, and returns its entry.
func (db *DB) Add(key string, val any) *Entry { return db.SetWithExpiry(key, val, 0) }

// SetExpire changes key's expiry (0 = persist). It reports whether key exists.
func (db *DB) SetExpire(key string, expireAt int64) bool {
	e := db.Get(key)
	if e == nil {
		return false
	}
	db.WillModify(key)
	db.setExpiry(key, e, expireAt)
	db.Touch(key)
	return true
}

func (db *DB) setExpiry(key string, e *Entry, expireAt int64) {
	if expireAt == 0 {
		if e.ExpireAt != 0 {
			delete(db.expires, key)
		}
	} else if e.ExpireAt == 0 {
		db.expires[key] = struct{}{}
	}
	e.ExpireAt = expireAt
}

// Delete removes key and reports whether it existed (and was live).
func (db *DB) Delete(key string) bool {
	if db.Get(key) == nil {
		return false
	}
	db.remove(key)
	db.Touch(key)
	return true
}

func (db *DB) remove(key string) {
	db.WillModify(key)
	slot, h := db.locate(key)
	t := &db.bySlot[slot]
	e := t.remove(key, h)
	if e == nil {
		return
	}
	if t.len() == 0 {
		db.used[slot/64] &^= 1 << (slot % 64)
	}
	if e.ExpireAt != 0 {
		delete(db.expires, key)
	}
	db.count--
}

// Flush removes every key and invalidates every WATCH.
func (db *DB) Flush() int {
	db.freezeForSnapshot()
	n := db.count
	// A WATCH fails for the keys the flush deleted, not for watched keys
	// that were absent, as in Redis 7.
	for k, w := range db.watched {
		if db.raw(k) != nil {
			w.version++
		}
	}
	db.bySlot = [slots.Count]table{}
	db.used = [slots.Count / 64]uint64{}
	db.count = 0
	db.expires = make(map[string]struct{})
	if db.OnFlush != nil {
		db.OnFlush()
	}
	return n
}

// Touch marks key modified: WATCHes on it fail and blocked clients waiting
// on it are woken to retry. Every write calls it (Set and Delete do).
func (db *DB) Touch(key string) {
	if db.OnModified != nil {
		db.OnModified(key)
	}
	if len(db.watched) != 0 {
		if w := db.watched[key]; w != nil {
			w.version++
		}
	}
	if len(db.waiters) != 0 {
		if ws := db.waiters[key]; len(ws) > 0 {
			// The client that blocked first looks first; it hands the
			// wake on when it leaves or cannot be served (WakeAfter),
			// so blocked clients are served in the order they blocked,
			// as Redis serves them.
			signal(ws[0])
		}
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// WakeAfter hands a wake on along key's waiters, when key holds a value
// someone might be served from: to the waiter registered after ch, or,
// when ch is not (or no longer) registered, to the first one. A woken
// waiter that could not be served calls it, and so does one that stops
// waiting (UnwaitKey).
func (db *DB) WakeAfter(key string, ch chan struct{}) {
	ws := db.waiters[key]
	if len(ws) == 0 || db.Peek(key) == nil {
		return
	}
	if i := slices.Index(ws, ch) + 1; i < len(ws) {
		signal(ws[i])
	}
}

// Watch registers interest in key and returns the token EXEC compares.
func (db *DB) Watch(key string) WatchToken {
	// A key that is already expired counts as absent; removing it now
	// means its later lazy expiry cannot look like a modification.
	db.Get(key)
	w := db.watched[key]
	if w == nil {
		w = &watch{}
		db.watched[key] = w
	}
	w.refs++
	return WatchToken{Key: key, Version: w.version}
}

// WatchToken is the state of a watched key when WATCH ran.
type WatchToken struct {
	Key     string
	Version uint64
}

// Changed reports whether the key changed since the token was taken.
func (db *DB) Changed(t WatchToken) bool {
	w := db.watched[t.Key]
	if w == nil || w.version != t.Version {
		return true
	}
	// Redis treats a watched key that expired meanwhile as modified.
	if e := db.raw(t.Key); e != nil && e.ExpireAt != 0 && e.ExpireAt <= db.Now() {
		return true
	}
	return false
}

// Unwatch drops one registration made by Watch.
func (db *DB) Unwatch(t WatchToken) {
	w := db.watched[t.Key]
	if w == nil {
		return
	}
	if w.refs--; w.refs <= 0 {
		delete(db.watched, t.Key)
	}
}

// WaitKey registers ch to be signalled when key is written; the caller
// must call UnwaitKey with the same channel.
func (db *DB) WaitKey(key string, ch chan struct{}) {
	db.waiters[key] = append(db.waiters[key], ch)
}

// UnwaitKey removes a registration made by WaitKey, and hands a wake on
// to the first waiter left (WakeAfter): the one leaving may have been
// served, or woken and gone, while the key still holds what the next in
// line waits for.
func (db *DB) UnwaitKey(key string, ch chan struct{}) {
	ws := db.waiters[key]
	for i, c := range ws {
		if c == ch {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(db.waiters, key)
		return
	}
	db.waiters[key] = ws
	db.WakeAfter(key, ch)
}

// Rename moves src's entry (value and expiry) to dst, replacing dst.
func (db *DB) Rename(src, dst string) bool {
	e := db.Get(src)
	if e == nil {
		return false
	}
	val, exp := e.Val, e.ExpireAt
	db.remove(src)
	db.Touch(src)
	db.SetWithExpiry(dst, val, exp)
	return true
}
