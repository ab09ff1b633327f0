package server

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/pubsub"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// conn is one client connection. Its goroutine reads commands and writes
// replies; other goroutines only append pub/sub messages to its outbox.
type conn struct {
	srv *Server
	// nc is the socket: a connection of the runtime's network poller, or a
	// socket an event loop polls (loop.go). Only the connection's own
	// goroutine or loop uses it, except close, which takes ncMu as the
	// swap from a loop to a goroutine does.
	nc           net.Conn
	ncMu         sync.Mutex
	laddr, raddr net.Addr
	// loop is the event loop that serves the connection, nil while it has
	// a goroutine of its own (loop.go).
	loop *eventLoop
	// leaveLoop says the last command was not run because it must not
	// run on the loop; the loop hands the connection to a goroutine,
	// which runs it.
	leaveLoop bool
	// fromLoop is set once the connection left an event loop; loopStreak
	// counts the commands in a row since then that a loop could have
	// run (mayRejoin).
	fromLoop   bool
	loopStreak int
	// stopBatch says the loop is to stop running what the client sent
	// until the held durable replies have gone (a QUIT, or 64 KiB of
	// replies); parked says the loop stopped reading the connection
	// until then (loop_durable_linux.go). Both belong to the loop.
	stopBatch bool
	parked    bool
	shard     *shard.Shard // the shard whose port the client connected to
	id        int64

	r   *resp.Reader
	w   *resp.Writer
	ctx command.Ctx

	user          *acl.User
	authenticated bool
	userName      atomic.Value // string, for CLIENT LIST from other goroutines
	proto         atomic.Int32 // the writer's protocol, for CLIENT LIST
	name          atomic.Value // string
	libName       atomic.Value // string
	libVer        atomic.Value // string
	created       time.Time
	lastCmd       atomic.Pointer[command.Spec]
	lastActive    atomic.Int64 // Unix ms
	closed        atomic.Bool
	closeAfter    bool // QUIT: close once the reply is sent
	cmdFailed     bool // the running command answered an error (noteError)

	// lastSpec is the command table's entry for the last command's name,
	// which the next command's name is compared with first (execute);
	// lastCmd is what CLIENT LIST reports, the subcommand that ran.
	lastSpec *command.Spec
	// changes is the connection's change stream (CHANGES SUBSCRIBE), or
	// nil; set and ended by the connection's goroutine.
	changes *changeStream
	// CLIENT REPLY's mode, and how many replies SKIP still drops.
	replyMode, replySkip int
	noEvict              atomic.Bool // CLIENT NO-EVICT, stored only
	readonly             atomic.Bool // READONLY: a replica serves this client's reads
	pauseEntered         bool        // a write counted in flight by CLIENT PAUSE's accounting (waitPause)
	// multiCount is CLIENT LIST's view of MULTI: the commands queued plus
	// one while a transaction is open, 0 outside one.
	multiCount atomic.Int32
	// blocked is set while the client waits in a blocking command, which
	// CLIENT UNBLOCK then wakes through unblock with a reason.
	blocked atomic.Bool
	// paused is set while CLIENT PAUSE holds the client's command: Redis
	// counts such a client blocked (INFO blocked_clients, CLIENT LIST b).
	paused  atomic.Bool
	unblock chan int
	// wake is signalled by writes to the keys a blocking command waits
	// for; they are registered under the shard lock of the run that found
	// nothing (Shard.RunOrWait).
	wake chan struct{}
	// waited is how long the current command waited blocked, which the
	// slow log leaves out as Redis does.
	waited time.Duration
	// lap is when the last command of the batch ended, taken as the
	// next one's start so a pipelined command reads the clock once; 0
	// when there is none: a new batch or a flush, which may wait, clears
	// it.
	lap time.Duration
	// pending holds, per shard, the newest record this connection's
	// writes appended that must be durable before replies go out.
	pending    []uint64
	anyPending bool
	// seen holds, per shard, the newest record the connection's commands
	// appended or could see; durable replies and WAIT wait for replicas
	// to hold it.
	seen []uint64
	dur  durability
	held []heldReply
	// flushes counts flushes, so a reply begun before a flush in the
	// middle of its command (a blocking pop) is known to start at 0.
	flushes int
	// cmds counts commands since the last flush into the server's
	// counter: one shared atomic add per batch instead of per command.
	cmds int64
	// now is the wall time in Unix ms read once per batch of pipelined
	// commands, as Redis caches its clock per event-loop turn.
	now int64
	// batch is the shard whose lock the connection holds across a run of
	// pipelined commands on it (see runBatched), nil when none.
	batch *shard.Shard
	// warmSeq counts the batchable commands run since the last read;
	// warmTo[i] is the count up to which warmAhead has warmed shard i's
	// keys (one entry per shard: a pipeline's commands alternate between
	// shards, and each shard's keys are warmed in its own keyspace).
	// ahead is the last look ahead, which covers the commands from
	// aheadFrom to aheadTo (in warmSeq's count) for every shard.
	warmSeq            int
	warmTo             []int
	ahead              []aheadKey
	aheadFrom, aheadTo int
	// lastHist is the last command's latency histogram (see histCache).
	lastHist histCache
	// lastCounter is the last command's call counter (see counterCache).
	lastCounter counterCache

	// Transaction state.
	multi      bool
	multiDirty bool // a command failed to queue: EXEC answers EXECABORT
	queued     [][][]byte
	watches    []*watchEntry
	locked     []*shard.Shard // shards EXEC holds while queued commands run
	// execOps collects, while EXEC runs, the effects of its commands
	// per shard for one record each; IDEM queued in the transaction adds
	// its own there (runOnShard).
	execOps map[*shard.Shard][][][]byte

	// Pub/sub: the connection's channels and patterns, and the outbox
	// (guarded by outMu) that pushes are queued in.
	sub     *pubsub.Subscription
	outMu   sync.Mutex
	outbox  []byte
	outWake chan struct{}
	pusher  bool

	writeMu sync.Mutex // serialises socket writes of replies and pushes

	track connTracking // client-side caching (tracking.go)
}

type watchEntry struct {
	shard *shard.Shard
	key   string
	// token is taken and read under the shard's lock: by WATCH, or by the
	// busy script's run WATCH was queued on (busywatch.go).
	token keyspace.WatchToken
}

func (s *Server) newConn(nc net.Conn, sh *shard.Shard) *conn {
	c := &conn{
		srv:     s,
		nc:      nc,
		laddr:   nc.LocalAddr(),
		raddr:   nc.RemoteAddr(),
		shard:   sh,
		id:      s.nextID.Add(1),
		created: clock.Default.Now(),
		outWake: make(chan struct{}, 1),
		unblock: make(chan int, 1),
		wake:    make(chan struct{}, 1),
	}
	c.name.Store("")
	c.libName.Store("")
	c.libVer.Store("")
	c.lastActive.Store(clock.NowMs())
	c.pending = make([]uint64, len(s.shards))
	c.seen = make([]uint64, len(s.shards))
	c.warmTo = make([]int, len(s.shards))
	c.dur.timeout = DefaultDurabilityTimeout
	c.ctx.Tokens = c
	c.r = resp.NewReader(countingReader{c})
	c.w = resp.NewWriter(lockedWriter{c})
	c.w.OnError = c.noteError
	c.r.Limits.Shared = &s.readLimits
	c.proto.Store(2)
	c.sub = pubsub.NewSubscription(pushReceiver{c})
	c.setUser(nil)
	if u, ok := s.acl.Get("default"); ok && u.Enabled() && u.NoPass() {
		c.setUser(u)
	}
	s.clientsMu.Lock()
	s.clients[c.id] = c
	s.clientsMu.Unlock()
	return c
}

// countingReader counts the bytes clients send, once per read call. It
// is also where a connection that kept a shard's lock across pipelined
// commands lets go of it: the read buffer ran dry, and a read may wait
// on the socket.
type countingReader struct{ c *conn }

func (cr countingReader) Read(p []byte) (int, error) {
	cr.c.unlockBatch()
	n, err := cr.c.nc.Read(p)
	cr.c.srv.stats.netInput.Add(int64(n))
	return n, err
}

// lockedWriter sends reply bytes under the connection's write lock so
// they never interleave with pub/sub pushes.
type lockedWriter struct{ c *conn }

func (lw lockedWriter) Write(p []byte) (int, error) {
	lw.c.writeMu.Lock()
	defer lw.c.writeMu.Unlock()
	n, err := lw.c.nc.Write(p)
	lw.c.srv.stats.netOutput.Add(int64(n))
	return n, err
}

// setUser makes the connection act as u (nil: not authenticated).
func (c *conn) setUser(u *acl.User) {
	c.user, c.authenticated = u, u != nil
	c.r.Limits.Unauthenticated = u == nil
	if u == nil {
		c.userName.Store("default")
	} else {
		c.userName.Store(u.Name())
	}
}

func (c *conn) close() {
	if c.closed.CompareAndSwap(false, true) {
		c.ncMu.Lock()
		c.nc.Close()
		c.ncMu.Unlock()
	}
}

// serve is the connection's read-execute-reply loop on its own
// goroutine.
func (c *conn) serve() { c.serveFrom(nil, false) }

// serveFrom runs the connection on its goroutine: first args, when a
// loop the connection left had read them (newBatch as the loop saw it),
// then what the client sends, until the connection ends, when it is
// cleaned up, or goes back to an event loop, which then owns it.
func (c *conn) serveFrom(args [][]byte, newBatch bool) {
	rejoined := false
	defer func() {
		if !rejoined {
			c.cleanup()
		}
	}()
	if args != nil && !c.handle(args, newBatch) {
		return
	}
	for {
		if c.loopStreak >= rejoinAfter && c.r.Buffered() == 0 && c.mayRejoin() && c.srv.adopt(c) {
			rejoined = true
			return
		}
		newBatch := c.r.Buffered() == 0
		args, err := c.r.ReadCommand()
		if err != nil {
			c.readFailed(err)
			return
		}
		if len(args) == 0 {
			continue
		}
		if !c.handle(args, newBatch) {
			return
		}
	}
}

// readFailed ends a connection whose next command could not be read. A
// client sending garbage gets Redis's error and is dropped; nothing it
// sent was executed.
func (c *conn) readFailed(err error) {
	if errors.Is(err, resp.ErrQueryLimit) {
		// As Redis: closed without a reply, and logged.
		c.srv.warnQueryLimit(c)
		return
	}
	if resp.IsProtocolError(err) {
		c.w.Error(err.Error())
		c.flush()
		c.srv.log.Debug("protocol error, closing client", "id", c.id, "addr", c.raddr.String(), "err", err)
	} else if !errors.Is(err, io.EOF) && !c.closed.Load() && !errors.Is(err, net.ErrClosed) {
		c.srv.log.Debug("client read failed", "id", c.id, "err", err)
	}
}

// handle runs one command; newBatch says it is the first of what one read
// brought. It reports whether the connection stays open.
func (c *conn) handle(args [][]byte, newBatch bool) bool {
	if newBatch {
		c.lap = 0
		c.warmSeq, c.aheadTo = 0, 0
		clear(c.warmTo)
		c.now = clock.NowMs()
		c.lastActive.Store(c.now)
		if c.cmds > 0 {
			c.srv.stats.commands.Add(c.cmds)
			c.cmds = 0
		}
	}
	mark, flushes := c.w.Buffered(), c.flushes
	c.execute(args)
	if c.leaveLoop {
		return true
	}
	if c.replyMode != replyOn || c.replySkip > 0 {
		if flushes != c.flushes {
			mark = 0
		}
		c.dropReply(mark)
	}
	if c.dur.replicas > 0 {
		if flushes != c.flushes {
			mark = 0
		}
		c.holdReply(mark)
	}
	if c.closeAfter {
		if c.loop != nil && len(c.held) > 0 {
			c.stopBatch = true // the loop sends the held replies, then closes
			return true
		}
		c.flush()
		return false
	}
	// Keep replies while more of a pipeline is already buffered: one
	// write (and one wait for the log) per batch instead of per command.
	// A loop flushes once it has run all that the read brought.
	if (c.loop == nil && c.r.Buffered() == 0) || c.w.Buffered() > 64<<10 {
		if c.loop != nil && len(c.held) > 0 {
			c.stopBatch = true // a loop must not wait for replicas
			return true
		}
		return c.flush()
	}
	return true
}

func (c *conn) cleanup() {
	c.stopChanges(false)
	c.unlockBatch()
	c.srv.stats.commands.Add(c.cmds)
	c.close()
	c.unwatchAll()
	c.srv.hub.Drop(c.sub)
	c.srv.track.disable(c)
	c.srv.clientsMu.Lock()
	delete(c.srv.clients, c.id)
	c.srv.clientsMu.Unlock()
}

// push queues an out-of-band message (pub/sub) for the client and makes
// sure a goroutine will send it.
func (c *conn) push(msg []byte) {
	c.outMu.Lock()
	c.outbox = append(c.outbox, msg...)
	start := !c.pusher
	c.pusher = true
	c.outMu.Unlock()
	if start {
		go c.pushLoop()
	}
	select {
	case c.outWake <- struct{}{}:
	default:
	}
}

// pushLoop sends queued pushes until the connection closes.
func (c *conn) pushLoop() {
	for {
		if err := c.drainOutbox(); err != nil {
			c.close()
			return
		}
		if c.closed.Load() {
			return
		}
		select {
		case <-c.outWake:
		case <-time.After(time.Second):
			// Re-check closed now and then so the goroutine ends with
			// the connection.
		}
	}
}

// drainOutbox writes queued pushes. The write lock is taken before the
// outbox is emptied so two drainers cannot reorder messages.
func (c *conn) drainOutbox() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.outMu.Lock()
	if c.track.hold {
		// Replies are being built: pushes go out after them.
		c.outMu.Unlock()
		return nil
	}
	buf := c.outbox
	c.outbox = nil
	c.outMu.Unlock()
	if len(buf) == 0 {
		return nil
	}
	n, err := c.nc.Write(buf)
	c.srv.stats.netOutput.Add(int64(n))
	return err
}

// flushBeforePush sends pending replies so a reply queued before a
// pub/sub confirmation reaches the client first.
func (c *conn) flushBeforePush() { c.flush() }

// flush sends the buffered replies once the writes they acknowledge are
// durable as the profile promises. If the log cannot make them durable the
// replies are never sent and the connection is closed: the client must
// treat those writes as indeterminate. It reports whether the connection
// is still usable.
func (c *conn) flush() bool {
	c.lap = 0 // a flush may wait: the next command reads the clock
	c.unlockBatch()
	if c.anyPending {
		if err := c.waitDurable(); err != nil {
			c.srv.log.Error("log not durable: closing client without replies", "id", c.id, "err", err)
			c.close()
			return false
		}
	}
	c.releaseHeld()
	c.flushes++
	err := c.w.Flush()
	c.releasePushes()
	return err == nil
}

func (c *conn) unwatchAll() {
	for _, w := range c.watches {
		if c.srv.queueWatch(watchOp{w: w, unwatch: true}) {
			continue
		}
		w.shard.Lock()
		w.shard.DB().Unwatch(w.token)
		w.shard.Unlock()
	}
	c.watches = nil
}

// subscribed reports whether the connection is in RESP2 subscriber mode.
func (c *conn) subscribed() bool {
	return c.w.Proto < 3 && c.sub.Active()
}

// pushReceiver is the connection as the pub/sub hub sees it.
type pushReceiver struct{ c *conn }

func (r pushReceiver) Push(b []byte) { r.c.push(b) }
func (r pushReceiver) Proto() int    { return int(r.c.proto.Load()) }

func (c *conn) clientName() string { return c.name.Load().(string) }

// isBlocked reports what Redis counts as a blocked client: one waiting
// in a blocking command or held by CLIENT PAUSE.
func (c *conn) isBlocked() bool { return c.blocked.Load() || c.paused.Load() }

// flagsString renders CLIENT LIST's flags field.
func (c *conn) flagsString() string {
	var b strings.Builder
	if c.srv.isMonitor(c) {
		b.WriteByte('O')
	}
	if c.sub.Active() {
		b.WriteByte('P')
	}
	if c.multiCount.Load() > 0 {
		b.WriteByte('x')
	}
	if c.isBlocked() {
		b.WriteByte('b')
	}
	b.Write(c.trackFlags(nil))
	if c.readonly.Load() {
		b.WriteByte('r')
	}
	if c.noEvict.Load() {
		b.WriteByte('e')
	}
	if b.Len() == 0 {
		return "N"
	}
	return b.String()
}

// queryLimitWarnEvery is how often a client closed for the query limit
// is logged: one client resending a large command must not flood the log.
const queryLimitWarnEvery = 10 * time.Second

// applyReadLimits hands cfg's proto-max-bulk-len and
// client-query-buffer-limit to every connection's reader.
func (s *Server) applyReadLimits(cfg *config.Config) {
	s.readLimits.MaxBulk.Store(cfg.ProtoMaxBulkLen)
	s.readLimits.MaxQuery.Store(cfg.ClientQueryBufferLimit)
}

// warnQueryLimit logs a client closed for sending an argument larger
// than client-query-buffer-limit, at most once in queryLimitWarnEvery.
func (s *Server) warnQueryLimit(c *conn) {
	now := clock.NowMs()
	last := s.queryLimitWarned.Load()
	if now-last < queryLimitWarnEvery.Milliseconds() || !s.queryLimitWarned.CompareAndSwap(last, now) {
		return
	}
	s.log.Warn("closing client that reached max query buffer length", "id", c.id, "addr", c.raddr.String(),
		"client-query-buffer-limit", s.readLimits.MaxQuery.Load())
}
