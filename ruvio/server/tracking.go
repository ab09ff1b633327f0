package server

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// Client-side caching (CLIENT TRACKING) as Redis 7.0 does it. In the
// default mode the server remembers, per shard, which clients read which
// keys, and the first change of such a key sends each of them one
// invalidation and forgets the pair. In BCAST mode clients name key
// prefixes and hear of every change under them, batched. Invalidations go
// to the client itself as a RESP3 push, or to the client it redirects to
// (a RESP3 push, or a message on __redis__:invalidate for a RESP2
// subscriber).

// invalidateChannel is the channel RESP2 clients hear invalidations on.
const invalidateChannel = "__redis__:invalidate"

// trackingMaxKeys is how many keys the tables hold before the server
// forgets some, telling their readers as if they had changed: Redis's
// tracking-table-max-keys at its default, so the table of keys read
// cannot grow without bound.
const trackingMaxKeys = 1_000_000

// trimBatch is the most keys one read makes the server forget, so no
// read pays for a large trim.
const trimBatch = 16

// trackMode is a connection's tracking options. It is never changed once
// stored: CLIENT TRACKING stores a new one, so writers on other
// goroutines read it with one atomic load.
type trackMode struct {
	bcast, optin, optout, noloop bool
	redirect                     int64
	prefixes                     []string // BCAST prefixes, sorted
}

// connTracking is one connection's tracking state.
type connTracking struct {
	mode   atomic.Pointer[trackMode] // nil: tracking is off
	broken atomic.Bool               // the redirect client went away
	// caching is CLIENT CACHING's answer for the next command (OPTIN:
	// track it; OPTOUT: do not). Only the connection's goroutine uses it.
	caching bool
	// hold, guarded by the connection's outMu, keeps queued pushes back
	// while a batch of replies is being built, so an invalidation never
	// overtakes the reply of the read it invalidates.
	hold bool
	// again are the keys remembered before the running command, to be
	// remembered once more after it (see trackBefore).
	again [][]byte
	// own are invalidations of keys the connection's running command
	// changed itself: sent right after that command's reply, as Redis
	// does. Only the connection's goroutine touches it (the keyspace hook
	// adds to it while this connection's command holds the shard lock).
	own [][]byte
}

// tracker is the server's tracking tables: one per shard for the keys
// clients read, and the BCAST prefixes.
type tracker struct {
	once    sync.Once
	on      atomic.Bool // init ran
	srv     *Server
	clients atomic.Int64 // connections with tracking on
	tables  []*trackTable
	// maxKeys lowers trackingMaxKeys (tests); 0 keeps it.
	maxKeys atomic.Int64

	pmu      sync.Mutex
	prefixes map[string]map[*conn]struct{} // BCAST prefix → clients
	nprefix  atomic.Int64                  // len(prefixes), for the write hook
	wake     chan struct{}                 // BCAST keys are waiting
}

// trackTable is one shard's tracked keys. Its lock nests inside the
// shard's: the write hook holds both.
type trackTable struct {
	mu    sync.Mutex
	keys  map[string]map[int64]struct{} // key → ids of clients that read it
	nkeys atomic.Int64
	items atomic.Int64
	// bcast are the keys changed since the last broadcast, with the
	// command that changed each (nil: none of a client's).
	bcast []bcastKey
}

type bcastKey struct {
	key string
	by  *command.Ctx
}

// init makes the tracker on first use, setting the keyspaces' callbacks
// under the shards' locks; held are the locks the caller's EXEC holds
// already.
func (t *tracker) init(s *Server, held []*shard.Shard) {
	t.once.Do(func() {
		t.srv = s
		t.prefixes = map[string]map[*conn]struct{}{}
		t.wake = make(chan struct{}, 1)
		t.tables = make([]*trackTable, len(s.shards))
		for i := range t.tables {
			t.tables[i] = &trackTable{keys: map[string]map[int64]struct{}{}}
		}
		for i, sh := range s.shards {
			tt := t.tables[i]
			own := !heldBy(held, sh)
			if own {
				sh.Lock()
			}
			sh.DB().OnModified = func(key string) { t.modified(sh, tt, key) }
			sh.DB().OnFlush = func() { t.flushed(sh) }
			if own {
				sh.Unlock()
			}
		}
		go t.broadcastLoop()
		t.on.Store(true)
	})
}

// ready reports whether the tables exist (some client tracked once).
func (t *tracker) ready() bool { return t.on.Load() }

// modified is the keyspace hook: key changed on sh, whose lock is held.
// A node where nobody tracks pays two atomic loads.
func (t *tracker) modified(sh *shard.Shard, tt *trackTable, key string) {
	if tt.nkeys.Load() == 0 && t.nprefix.Load() == 0 {
		return
	}
	by := sh.RunningLocked()
	tt.mu.Lock()
	if t.nprefix.Load() > 0 {
		tt.bcast = append(tt.bcast, bcastKey{key, by})
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	ids := tt.keys[key]
	if ids != nil {
		delete(tt.keys, key)
		tt.nkeys.Add(-1)
		tt.items.Add(-int64(len(ids)))
	}
	tt.mu.Unlock()
	if ids != nil {
		t.invalidate(key, ids, by)
	}
}

// invalidate tells the clients ids, which read key, that it changed by
// the command by (nil: not a client's).
func (t *tracker) invalidate(key string, ids map[int64]struct{}, by *command.Ctx) {
	msg := keysArray([]string{key})
	for id := range ids {
		c := t.srv.clientByID(id)
		if c == nil {
			continue
		}
		m := c.track.mode.Load()
		// A client that turned tracking off, or switched to BCAST since
		// it read the key, hears nothing of it, as in Redis.
		if m == nil || m.bcast || (m.noloop && by == &c.ctx) {
			continue
		}
		if by == &c.ctx {
			c.track.own = append(c.track.own, msg)
			continue
		}
		t.send(c, m, msg)
	}
}

// flushed is the keyspace hook for FLUSHALL/FLUSHDB (or a replica's full
// copy) on sh, whose lock is held. Redis sends every tracking client one
// invalidation with a null for a flush; here shard 0's flush, which every
// node-wide flush includes, sends it and forgets every shard's keys. A
// key another shard remembered since then is invalidated on its own.
func (t *tracker) flushed(sh *shard.Shard) {
	if sh.ID != 0 {
		tt := t.tables[sh.ID]
		tt.mu.Lock()
		keys := tt.keys
		tt.keys = map[string]map[int64]struct{}{}
		tt.nkeys.Store(0)
		tt.items.Store(0)
		tt.mu.Unlock()
		for key, ids := range keys {
			t.invalidate(key, ids, sh.RunningLocked())
		}
		return
	}
	for _, tt := range t.tables {
		tt.mu.Lock()
		tt.keys = map[string]map[int64]struct{}{}
		tt.nkeys.Store(0)
		tt.items.Store(0)
		tt.mu.Unlock()
	}
	if t.clients.Load() == 0 {
		return
	}
	for _, c := range t.srv.clientsSorted() {
		m := c.track.mode.Load()
		if m == nil {
			continue
		}
		// The null is in the tracking client's protocol, as Redis
		// writes it even when the message goes to its redirect client.
		null := []byte("$-1\r\n")
		if c.proto.Load() >= 3 {
			null = []byte("_\r\n")
		}
		t.send(c, m, null)
	}
}

// send delivers an invalidation of keys (an encoded array, or a null) on
// c's behalf: to c as a RESP3 push, or to its redirect client.
func (t *tracker) send(c *conn, m *trackMode, keys []byte) {
	var to *conn
	end := endpoint{proto: int(c.proto.Load())}
	if m.redirect != 0 {
		to = t.srv.clientByID(m.redirect)
		end.redirect = true
		if to != nil {
			end.found = true
			end.toProto = int(to.proto.Load())
			end.toSubscribed = to.sub.Active()
		}
	} else {
		to = c
		end.toProto = end.proto
	}
	switch routeInvalidation(end) {
	case routePush:
		to.push(append([]byte(">2\r\n$10\r\ninvalidate\r\n"), keys...))
	case routeMessage:
		to.push(append([]byte("*3\r\n$7\r\nmessage\r\n$20\r\n"+invalidateChannel+"\r\n"), keys...))
	case routeBroken:
		c.track.broken.Store(true)
		msg := append([]byte(">2\r\n$21\r\ntracking-redir-broken\r\n:"), strconv.FormatInt(m.redirect, 10)...)
		c.push(append(msg, "\r\n"...))
	case routeBrokenSilent:
		c.track.broken.Store(true)
	}
}

// endpoint is what decides where an invalidation goes: the tracking
// client's protocol, and whether it redirects, to a client that is still
// there, in which protocol and whether subscribed.
type endpoint struct {
	proto        int
	redirect     bool
	found        bool
	toProto      int
	toSubscribed bool
}

// Where an invalidation goes.
const (
	routeNowhere      = iota // RESP2 and no subscribed redirect client
	routePush                // a RESP3 push to the recipient
	routeMessage             // a message on __redis__:invalidate
	routeBroken              // the redirect client is gone: tell the RESP3 client
	routeBrokenSilent        // gone, and a RESP2 client cannot be told
)

// routeInvalidation is Redis's choice (sendTrackingMessage): a RESP3
// recipient gets a push; a RESP2 redirect client gets a pub/sub message
// if it subscribed to anything, else nothing; a RESP2 client without a
// redirect cannot be told.
func routeInvalidation(e endpoint) int {
	switch {
	case e.redirect && !e.found && e.proto >= 3:
		return routeBroken
	case e.redirect && !e.found:
		return routeBrokenSilent
	case e.toProto >= 3:
		return routePush
	case e.redirect && e.toSubscribed:
		return routeMessage
	}
	return routeNowhere
}

// keysArray encodes keys as a RESP array of bulk strings.
func keysArray(keys []string) []byte {
	b := append([]byte{'*'}, strconv.Itoa(len(keys))...)
	b = append(b, "\r\n"...)
	for _, k := range keys {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(k)), 10)
		b = append(b, "\r\n"...)
		b = append(b, k...)
		b = append(b, "\r\n"...)
	}
	return b
}

// remember records that c read keys.
func (t *tracker) remember(c *conn, keys [][]byte) {
	for _, k := range keys {
		sh := t.srv.shardFor(k)
		tt := t.tables[sh.ID]
		tt.mu.Lock()
		ids := tt.keys[string(k)]
		if ids == nil {
			ids = map[int64]struct{}{}
			tt.keys[string(k)] = ids
			tt.nkeys.Add(1)
		}
		if _, ok := ids[c.id]; !ok {
			ids[c.id] = struct{}{}
			tt.items.Add(1)
		}
		tt.mu.Unlock()
		t.trim(string(k))
	}
}

// trim forgets some keys while the tables hold more than the limit, each
// with an invalidation to its readers, as Redis does past
// tracking-table-max-keys; never keep, the key just noted. Map order
// picks them, at random as in Redis.
func (t *tracker) trim(keep string) {
	limit := t.maxKeys.Load()
	if limit <= 0 {
		limit = trackingMaxKeys
	}
	var total int64
	for _, tt := range t.tables {
		total += tt.nkeys.Load()
	}
	over := min(total-limit, trimBatch)
	if over <= 0 {
		return
	}
	gone := map[string]map[int64]struct{}{}
	for _, tt := range t.tables {
		tt.mu.Lock()
		for k, ids := range tt.keys {
			if int64(len(gone)) == over {
				break
			}
			if k == keep {
				continue
			}
			gone[k] = ids
			delete(tt.keys, k)
			tt.nkeys.Add(-1)
			tt.items.Add(-int64(len(ids)))
		}
		tt.mu.Unlock()
	}
	for k, ids := range gone {
		t.invalidate(k, ids, nil)
	}
}

// broadcastLoop sends BCAST invalidations. Each shard's changed keys are
// taken under the shard's lock, so the keys one command changed on a
// shard go out together.
func (t *tracker) broadcastLoop() {
	for {
		select {
		case <-t.wake:
		case <-t.srv.tickStop:
			return
		}
		var changed []bcastKey
		for i, sh := range t.srv.shards {
			tt := t.tables[i]
			tt.mu.Lock()
			n := len(tt.bcast)
			tt.mu.Unlock()
			if n == 0 {
				continue
			}
			sh.Lock()
			tt.mu.Lock()
			changed = append(changed, tt.bcast...)
			tt.bcast = nil
			tt.mu.Unlock()
			sh.Unlock()
		}
		t.broadcast(changed)
	}
}

// broadcast sends each BCAST client the changed keys under each of its
// prefixes: one message per prefix, keys sorted, as Redis sends them.
func (t *tracker) broadcast(changed []bcastKey) {
	if len(changed) == 0 {
		return
	}
	t.pmu.Lock()
	defer t.pmu.Unlock()
	for _, p := range sortedKeys(t.prefixes) {
		last := map[string]*command.Ctx{} // key → the command that changed it last
		for _, ch := range changed {
			if len(ch.key) >= len(p) && ch.key[:len(p)] == p {
				last[ch.key] = ch.by
			}
		}
		if len(last) == 0 {
			continue
		}
		keys := sortedKeys(last)
		all := keysArray(keys)
		for c := range t.prefixes[p] {
			m := c.track.mode.Load()
			if m == nil || !m.bcast {
				continue
			}
			if !m.noloop {
				t.send(c, m, all)
				continue
			}
			var own []string
			for _, k := range keys {
				if last[k] != &c.ctx {
					own = append(own, k)
				}
			}
			if len(own) > 0 {
				t.send(c, m, keysArray(own))
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// enable turns tracking on for c with mode m, whose prefixes (BCAST) are
// added to those c already has.
func (t *tracker) enable(c *conn, m *trackMode) {
	old := c.track.mode.Load()
	if old == nil {
		t.clients.Add(1)
	}
	if m.bcast {
		add := m.prefixes
		if len(add) == 0 {
			add = []string{""}
		}
		var have []string
		if old != nil {
			have = old.prefixes
		}
		t.pmu.Lock()
		for _, p := range add {
			if slices.Contains(have, p) {
				continue
			}
			have = append(have, p)
			cs := t.prefixes[p]
			if cs == nil {
				cs = map[*conn]struct{}{}
				t.prefixes[p] = cs
			}
			cs[c] = struct{}{}
		}
		t.nprefix.Store(int64(len(t.prefixes)))
		t.pmu.Unlock()
		m.prefixes = slices.Clone(have)
		slices.Sort(m.prefixes)
	}
	c.track.broken.Store(false)
	c.track.mode.Store(m)
}

// disable turns tracking off for c. Keys it read stay in the table until
// they change (then nobody is told), as in Redis.
func (t *tracker) disable(c *conn) {
	old := c.track.mode.Load()
	if old == nil {
		return
	}
	if old.bcast {
		t.pmu.Lock()
		for _, p := range old.prefixes {
			if cs := t.prefixes[p]; cs != nil {
				delete(cs, c)
				if len(cs) == 0 {
					delete(t.prefixes, p)
				}
			}
		}
		t.nprefix.Store(int64(len(t.prefixes)))
		t.pmu.Unlock()
	}
	c.track.mode.Store(nil)
	c.track.broken.Store(false)
	c.track.caching = false
	t.clients.Add(-1)
}

// counts are INFO's tracking_total_keys, _items and _prefixes.
func (t *tracker) counts() (keys, items, prefixes int64) {
	if !t.ready() {
		return 0, 0, 0
	}
	for _, tt := range t.tables {
		keys += tt.nkeys.Load()
		items += tt.items.Load()
	}
	return keys, items, t.nprefix.Load()
}

// clientByID is the connected client with id, or nil.
func (s *Server) clientByID(id int64) *conn {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	return s.clients[id]
}

// The connection's side: remembering reads and ordering pushes.

// trackBefore runs before a command of a tracking connection: it
// remembers the keys the command will read. Remembering before the read
// and again after it (trackAfter) means a write that slips in between,
// on another shard lock holder, still sends an invalidation: the client
// can never keep a value read before a change it was not told of.
func (c *conn) trackBefore(m *trackMode, run *command.Spec, args [][]byte) {
	c.holdPushes()
	c.track.again = c.track.again[:0]
	if m.bcast {
		return
	}
	caching := c.track.caching
	add := func(run *command.Spec, args [][]byte) {
		if run.Flags&command.ReadOnly == 0 || run.Flags&command.PubSub != 0 {
			return
		}
		if (m.optin && !caching) || (m.optout && caching) {
			return
		}
		for _, i := range run.KeyIndexes(args) {
			c.track.again = append(c.track.again, args[i])
		}
	}
	if run.Name == "exec" {
		if !c.multi || c.multiDirty {
			return
		}
		// The queued commands run now; a queued CLIENT CACHING applies
		// to those after it.
		for _, q := range c.queued {
			qs := c.srv.table.Lookup(q[0])
			if qs == nil {
				continue
			}
			if sub := qs.Resolve(q); sub != nil {
				qs = sub
			}
			if qs.Name == "client|caching" && len(q) == 3 {
				if (m.optin && command.Eq(q[2], "yes")) || (m.optout && command.Eq(q[2], "no")) {
					caching = true
				}
				continue
			}
			add(qs, q)
		}
	} else {
		add(run, args)
	}
	if len(c.track.again) > 0 {
		c.srv.track.remember(c, c.track.again)
	}
}

// trackScriptRead remembers the keys a read-only command run by one of
// c's scripts read, under the script's shard lock, as Redis tracks the
// reads of a script's commands (an OPTIN client's CLIENT CACHING YES
// covers the whole script).
func (c *conn) trackScriptRead(run *command.Spec, args [][]byte) {
	m := c.track.mode.Load()
	if m == nil || m.bcast || run.Flags&command.ReadOnly == 0 || run.Flags&command.PubSub != 0 {
		return
	}
	if (m.optin && !c.track.caching) || (m.optout && c.track.caching) {
		return
	}
	var keys [][]byte
	for _, i := range run.KeyIndexes(args) {
		keys = append(keys, args[i])
	}
	if len(keys) > 0 {
		c.srv.track.remember(c, keys)
	}
}

// trackAfter runs after a command of a connection that was tracking when
// it began.
func (c *conn) trackAfter(spec *command.Spec) {
	if m := c.track.mode.Load(); m != nil && !m.bcast && len(c.track.again) > 0 {
		c.srv.track.remember(c, c.track.again)
	}
	c.track.again = c.track.again[:0]
	if len(c.track.own) > 0 {
		if m := c.track.mode.Load(); m != nil {
			for _, keys := range c.track.own {
				if m.redirect == 0 && c.proto.Load() >= 3 && c.replyMode == replyOn && c.replySkip == 0 {
					// After this command's reply, before the next one's.
					c.w.Raw([]byte(">2\r\n$10\r\ninvalidate\r\n"))
					c.w.Raw(keys)
				} else {
					c.srv.track.send(c, m, keys)
				}
			}
		}
		c.track.own = c.track.own[:0]
	}
	// CLIENT CACHING lasts for the next command, or a whole transaction.
	if !c.multi && spec.Name != "client" {
		c.track.caching = false
	}
}

// holdPushes keeps a tracking connection's pushes back from the first
// command of a batch it runs; flush lets them go after the replies. A
// command that never reaches it read nothing it could be told about.
func (c *conn) holdPushes() {
	if c.track.hold {
		return
	}
	// What was queued before may go before the replies.
	c.drainOutbox()
	c.outMu.Lock()
	c.track.hold = true
	c.outMu.Unlock()
}

// releasePushes sends the pushes held while replies were built, after
// them.
func (c *conn) releasePushes() {
	if !c.track.hold {
		return
	}
	c.outMu.Lock()
	c.track.hold = false
	c.outMu.Unlock()
	c.drainOutbox()
}

// trackFlags are CLIENT LIST's tracking flags.
func (c *conn) trackFlags(b []byte) []byte {
	m := c.track.mode.Load()
	if m == nil {
		return b
	}
	b = append(b, 't')
	if c.track.broken.Load() {
		b = append(b, 'R')
	}
	if m.bcast {
		b = append(b, 'B')
	}
	return b
}

// trackRedirect is CLIENT LIST's redir field.
func (c *conn) trackRedirect() int64 {
	if m := c.track.mode.Load(); m != nil {
		return m.redirect
	}
	return -1
}
