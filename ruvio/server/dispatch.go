package server

import (
	"errors"
	"math"
	"net"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// handler runs a command the server implements itself.
type handler func(c *conn, args [][]byte)

// execute checks and runs one command, writing its reply.
func (c *conn) execute(args [][]byte) {
	s := c.srv
	// A pipeline sends the same command again and again: the name is
	// compared with the last command's before the table is searched.
	spec := c.lastSpec
	if spec == nil || !command.Eq(args[0], spec.Name) {
		spec = s.table.Lookup(args[0])
		c.lastSpec = spec
	}
	run := spec.Resolve(args)
	switch {
	case c.loop != nil && !c.loopMay(run):
		// Nothing ran: the goroutine the connection moves to runs it.
		c.leaveLoop = true
		return
	case c.fromLoop && c.loop == nil:
		if c.loopMay(run) {
			c.loopStreak++
		} else {
			c.loopStreak = 0
		}
	}
	c.cmds++
	// The last command, for CLIENT LIST's cmd=, is what Redis records:
	// the subcommand a container ran ("client|info"), the container
	// itself when no subcommand was given, and none (NULL) for an
	// unknown command or subcommand.
	if run != c.lastCmd.Load() {
		c.lastCmd.Store(run)
	}
	if spec == nil {
		c.fail(command.ErrUnknownCommand(args))
		return
	}
	if run == nil {
		c.fail(command.ErrUnknownSubcommand(strings.ToUpper(spec.Name), string(args[1])))
		return
	}
	batch := c.batchable(run)
	if !batch {
		c.unlockBatch()
	}
	if !run.ArityOK(len(args)) {
		c.reject(run, command.ErrWrongArgs(run.Name))
		return
	}
	if !c.authenticated && spec.Flags&command.NoAuth == 0 {
		c.reject(run, "NOAUTH Authentication required.")
		return
	}
	if msg := c.checkACL(spec, run, args); msg != "" {
		c.reject(run, msg)
		return
	}
	queueing := c.multi && !isTxnControl(spec.Name)
	// A command CLIENT PAUSE held is looked at again once it may run, as
	// Redis processes a postponed command again: meanwhile the node may
	// have become a replica, the slots may have moved, the lease may have
	// run out.
	if !c.passPause(run, queueing, func() bool { return c.admit(spec, run, args) }) {
		return
	}
	if queueing {
		c.queue(run, args)
		return
	}
	start := c.lap
	if start == 0 {
		start = clock.Stopwatch()
	}
	c.waited = 0
	c.cmdFailed = false
	line := c.monitorCommand(run, args)
	trk := c.track.mode.Load()
	if trk != nil {
		c.trackBefore(trk, run, args)
	}
	c.call(run, args, batch)
	c.leavePause()
	if batch && run.CopiesArgs {
		// Nothing refers to the arguments any more: a batchable command
		// is not queued, tracked, monitored or blocked, and the command
		// copied what it kept.
		c.r.Release()
	}
	if trk != nil {
		c.trackAfter(spec)
	}
	if line != nil {
		c.srv.feedMonitors(line)
	}
	stop := clock.Stopwatch()
	elapsed := stop - start
	took := elapsed - c.waited
	c.lap = stop
	if elapsed > time.Millisecond {
		// The batch's time (c.now, which commands read as the time of
		// the command) moves on after a command that took long or
		// waited (WAIT, durability, a pause), as Redis reads the time
		// again for each command.
		c.now = clock.NowMs()
	}
	c.srv.observeLatency(run, took, c.cmdFailed, &c.lastHist)
	c.logSlow(run, args, took)
	if m := s.metrics; m != nil {
		m.observe(c.shard.ID, run, took, &c.lastCounter)
	}
}

// reject answers msg to a command refused before it ran (fail). EXEC
// refused discards the transaction and answers EXECABORT with the reason,
// with or without MULTI, as Redis's rejectCommand does; the reason keeps
// its own code (BUSY, NOAUTH, NOPERM) but not a plain ERR.
func (c *conn) reject(run *command.Spec, msg string) {
	c.srv.latTrack.recordRejected(run)
	if run.Name == "exec" {
		c.abortExec(strings.TrimPrefix(msg, "ERR "))
		return
	}
	c.fail(msg)
}

// abortExec discards the transaction and answers EXEC refused as a whole,
// for reason.
func (c *conn) abortExec(reason string) {
	c.resetMulti()
	c.fail("EXECABORT Transaction discarded because of: " + reason)
}

// fail answers an error that, inside MULTI, also dooms the transaction
// (Redis: a command that cannot be queued makes EXEC answer EXECABORT).
func (c *conn) fail(msg string) {
	if c.multi {
		c.multiDirty = true
	}
	c.w.Error(msg)
}

func isTxnControl(name string) bool {
	switch name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

// checkACL returns the NOPERM reply when the user may not run the
// command or touch its keys or channels, and records the denial in the
// ACL log (ACL LOG); "" when the command may run.
func (c *conn) checkACL(spec, run *command.Spec, args [][]byte) string {
	v := c.aclCheck(spec, run, args, "")
	if v.Denied == acl.Allowed {
		return ""
	}
	return noPermReply(v, spec, run)
}

// aclCheck is checkACL's verdict, the denial recorded in the ACL log
// with the context from (aclContext: "" for the client's own command).
// The check itself is aclVerdict, which ACL DRYRUN shares.
func (c *conn) aclCheck(spec, run *command.Spec, args [][]byte, from string) acl.Verdict {
	u := c.aclUser()
	if u == nil {
		// Not authenticated: only NoAuth commands got here.
		return acl.Verdict{}
	}
	v := aclVerdict(u, spec, run, args)
	if v.Denied != acl.Allowed {
		c.logDenial(u, v, spec, run, args, from)
	}
	return v
}

// aclUser is the connection's user as its rules stand now (nil before
// it authenticates).
func (c *conn) aclUser() *acl.User {
	u := c.user
	if u == nil {
		return nil
	}
	if latest, ok := u.Latest(); ok {
		u = latest
		c.user = latest
	}
	return u
}

// memoryRefusal is the OOM reply a command gets while the node is over
// maxmemory. Inside MULTI every command but EXEC, DISCARD, QUIT and RESET
// counts as one that may grow memory (queueing does), as in Redis; EXEC
// itself is checked against its queued commands in cmdExec.
func (c *conn) memoryRefusal(spec, run *command.Spec) string {
	if c.multi {
		switch spec.Name {
		case "exec", "discard", "quit", "reset":
			return ""
		}
		run = &command.Spec{Flags: command.DenyOOM}
	}
	// Eviction takes every shard's lock in turn: a lock kept across a
	// pipeline is released first.
	return c.srv.checkMemory(run, c.unlockBatch)
}

// checkMemory lets a command that may grow memory run only once the node
// is under maxmemory, evicting keys first under an evicting policy
// (evict.go), and refuses it when nothing more can be evicted.
//
// beforeEvict, when not nil, runs once the node is found over the limit
// and before eviction starts; the estimate is read once, so it always
// runs before any eviction.
func (s *Server) checkMemory(spec *command.Spec, beforeEvict func()) string {
	if spec.Flags&command.DenyOOM == 0 {
		return ""
	}
	max := s.maxMemory()
	if max <= 0 || s.memoryEstimate() <= max {
		return ""
	}
	if beforeEvict != nil {
		beforeEvict()
	}
	if s.freeMemory(max) == evictNoMemory {
		return errOOM
	}
	return ""
}

// call runs a command whose checks passed; batch says it may run under
// the lock the connection keeps across a pipeline (batchable).
func (c *conn) call(spec *command.Spec, args [][]byte, batch bool) {
	if h, ok := spec.Ext.(handler); ok {
		h(c, args)
		return
	}
	c.ctx.Reset()
	c.ctx.Args = args
	c.ctx.W = c.w
	c.ctx.Values = c.ctx.Values[:0]
	c.ctx.InMulti = false
	c.ctx.Now = c.now
	if spec.PerKey != nil {
		c.runPerKey(spec, &c.ctx)
		return
	}
	sh, hint, ok := c.srv.routeHinted(spec, args)
	if !ok {
		c.w.Error(command.ErrCrossSlot)
		return
	}
	if sh == nil {
		sh = c.shard
	}
	if batch {
		c.runBatched(spec, sh, hint)
		return
	}
	if msg := c.lockShard(sh); msg != "" {
		c.fail(msg)
		return
	}
	c.ctx.SlotHint = hint // taken by the run (shard.RunLocked)
	c.notePending(sh, sh.RunAndUnlock(spec, &c.ctx, c.wake))
	if c.ctx.Block != nil {
		c.block(spec, sh)
	}
}

// Running a pipeline's commands under one lock.
//
// A client that pipelines sends its commands in one read. Taking and
// releasing the shard's lock around each of them costs two atomic
// operations per command and, with many clients on few CPUs, a lock
// handed between goroutines sixteen times per batch of sixteen instead
// of once. So a connection keeps the lock of the shard its last data
// command ran on while the next command, parsed from what the last
// socket read brought, is a plain data command on the same shard.
//
// It lets go before anything that could wait or take other locks:
// reading from the socket (countingReader), flushing replies (which may
// wait for the log or replicas), any command the server handles itself,
// commands on another shard, blocking commands, transactions, tracking,
// MONITOR, a running script, and eviction. The shard's other users (its
// ticks, replication, snapshots, other clients) wait at most for the
// rest of one read batch, as they would for one long command.

// batchable reports whether run may execute in a run of commands under
// one lock.
func (c *conn) batchable(run *command.Spec) bool {
	if _, own := run.Ext.(handler); own || run.PerKey != nil || run.Flags&command.Blocking != 0 || c.multi {
		return false
	}
	s := c.srv
	return c.track.mode.Load() == nil && s.scripts.active.Load() == 0 && !s.watchedByMonitors()
}

// runBatched runs a data command on sh under the lock the connection
// holds, taking it (and releasing another shard's) first.
func (c *conn) runBatched(spec *command.Spec, sh *shard.Shard, hint keyspace.SlotHint) {
	if c.batch != sh {
		c.unlockBatch()
		if msg := c.lockShard(sh); msg != "" {
			c.fail(msg)
			return
		}
		c.batch = sh
	}
	c.ctx.SlotHint = hint // taken by the run (shard.RunLocked)
	if c.warmSeq >= c.warmTo[sh.ID] && sh.DB().WarmWorthwhile() {
		c.warmAhead(sh)
	}
	c.warmSeq++
	c.notePending(sh, sh.RunLocked(spec, &c.ctx))
	if c.ctx.Block != nil {
		// Not reached by the blocking commands, which never run
		// batched; registered under this lock all the same.
		sh.WaitLocked(c.ctx.Block.Keys, c.wake)
		c.unlockBatch()
		c.block(spec, sh)
	}
}

// aheadKey is a key of a command the connection looked ahead at: which
// of the look's commands it belongs to, its shard and where it lives.
type aheadKey struct {
	cmd   int
	shard int
	spot  keyspace.Spot
}

// warmAhead fetches into the caches, together, the keys sh holds of the
// command about to run and of the commands buffered behind it, up to
// keyspace.WarmMax commands (see keyspace.DB.Warm). Commands that will
// not run batched cost a wasted fetch each.
//
// One look ahead serves every shard: it finds each key's slot, shard
// and hash once, and a shard whose turn comes within the commands it
// covers warms its keys from there on. Looking again for each shard
// parsed the same commands and hashed the same keys once per shard,
// which with two shards was a third of what warming cost.
func (c *conn) warmAhead(sh *shard.Shard) {
	if c.warmSeq >= c.aheadTo {
		var first []byte
		if len(c.ctx.Args) > 1 {
			first = c.ctx.Args[1]
		}
		var n int
		c.ahead, n = lookAhead(c.ahead[:0], first, c.r.Ahead(), c.shardOfSlot)
		c.aheadFrom, c.aheadTo = c.warmSeq, c.warmSeq+n
	}
	var spots [keyspace.WarmMax]keyspace.Spot
	sh.DB().WarmSpots(spotsFrom(spots[:0], c.ahead, sh.ID, c.warmSeq-c.aheadFrom))
	c.warmTo[sh.ID] = c.aheadTo
}

// shardOfSlot is the number of the shard that holds slot here.
func (c *conn) shardOfSlot(slot int) int {
	owner, _ := c.srv.slotShard(slot)
	return owner.ID
}

// lookAhead appends to dst the keys of the command about to run (first,
// nil when it has none) and of up to keyspace.WarmMax-1 whole commands
// at the start of buffered, numbering the commands from 0, and returns
// how many commands it covered. shardOf names a slot's shard.
func lookAhead(dst []aheadKey, first, buffered []byte, shardOf func(slot int) int) ([]aheadKey, int) {
	add := func(cmd int, key []byte) {
		spot := keyspace.Spot{Slot: slots.Of(key), Hash: keyspace.HashKey(key)}
		// A pipeline that names one key again and again warms it once
		// (two keys of one slot and hash are taken for one: a hint lost).
		if n := len(dst); n > 0 && dst[n-1].spot == spot {
			return
		}
		dst = append(dst, aheadKey{cmd: cmd, shard: shardOf(spot.Slot), spot: spot})
	}
	if first != nil {
		add(0, first)
	}
	n := 1
	for ; n < keyspace.WarmMax; n++ {
		key, size, ok := resp.CommandKey(buffered)
		if size == 0 {
			break
		}
		buffered = buffered[size:]
		if ok {
			add(n, key)
		}
	}
	return dst, n
}

// spotsFrom appends to dst the spots of the keys in ahead that shard
// holds, of the commands from cmd on.
func spotsFrom(dst []keyspace.Spot, ahead []aheadKey, shard, cmd int) []keyspace.Spot {
	for _, k := range ahead {
		if k.shard == shard && k.cmd >= cmd {
			dst = append(dst, k.spot)
		}
	}
	return dst
}

// unlockBatch releases the lock held across a run of commands, if any,
// and publishes the notifications its commands left.
func (c *conn) unlockBatch() {
	sh := c.batch
	if sh == nil {
		return
	}
	c.batch = nil
	sh.PublishNotesLocked()
	sh.Unlock()
}

// notePending remembers the newest record a command of this connection
// appended to sh, so its reply waits until the record is safe as the
// profile promises: fsynced (always) or written to the OS (everysec).
func (c *conn) notePending(sh *shard.Shard, seq uint64) {
	if seq == 0 {
		return
	}
	c.noteSeen(sh, seq)
	if !sh.RepliesWaitForLog() {
		return
	}
	c.pending[sh.ID] = max(c.pending[sh.ID], seq)
	c.anyPending = true
}

// route finds the shard owning every key of the command; ok is false
// when the keys span shards. A keyless command gets a nil shard.
func (s *Server) route(spec *command.Spec, args [][]byte) (sh *shard.Shard, ok bool) {
	sh, _, ok = s.routeHinted(spec, args)
	return sh, ok
}

// routeHinted is route that also returns the slot of the command's first
// key when it worked it out (with more than one shard), for the keyspace
// to reuse (command.Ctx.SlotHint).
func (s *Server) routeHinted(spec *command.Spec, args [][]byte) (sh *shard.Shard, hint keyspace.SlotHint, ok bool) {
	if len(s.shards) == 1 {
		return s.shards[0], hint, true
	}
	var buf [4]int
	for n, i := range spec.AppendKeyIndexes(buf[:0], args) {
		slot := slots.Of(args[i])
		owner, _ := s.slotShard(slot)
		if sh != nil && owner != sh {
			return nil, keyspace.SlotHint{}, false
		}
		if n == 0 {
			hint = keyspace.SlotHint{Key: args[i], Slot: slot}
		}
		sh = owner
	}
	return sh, hint, true
}

// runPerKey runs a command whose keys are independent, locking each key's
// shard in turn (once when they all share one), and writes the reply.
func (c *conn) runPerKey(spec *command.Spec, ctx *command.Ctx) {
	idx := spec.KeyIndexes(ctx.Args)
	results := make([]int64, 0, len(idx))
	if sh, same := c.srv.route(spec, ctx.Args); same {
		if msg := c.lockShard(sh); msg != "" {
			c.fail(msg)
			return
		}
		if msg := c.srv.moveFence(spec, ctx.Args); msg != "" {
			// Frozen since the checks before the lock (a slot move).
			sh.Unlock()
			c.w.Error(msg)
			return
		}
		ctx.DB, ctx.Notes = sh.DB(), sh.Notes()
		sh.SetRunningLocked(ctx)
		sh.DB().CmdNow = ctx.Now
		for _, i := range idx {
			if spec.Flags&command.Write != 0 {
				sh.DB().WillModify(string(ctx.Args[i]))
			}
			results = append(results, spec.PerKey(ctx, ctx.Args[i]))
		}
		sh.DB().CmdNow = 0
		sh.SetRunningLocked(nil)
		sh.RecordLocked(ctx)
		c.notePending(sh, sh.Observed())
		sh.PublishNotesLocked()
		sh.Unlock()
	} else {
		// Every shard the keys are on, locked at once in the shards'
		// order: a script busy on one refuses the whole command.
		keyShards := make([]*shard.Shard, len(idx))
		need := make([]bool, len(c.srv.shards))
		for j, i := range idx {
			keyShards[j] = c.srv.shardFor(ctx.Args[i])
			need[keyShards[j].ID] = true
		}
		held := c.srv.shardsOf(need)
		if msg := c.lockShards(held); msg != "" {
			c.fail(msg)
			return
		}
		for j, i := range idx {
			sh := keyShards[j]
			ctx.Reset()
			ctx.DB, ctx.Notes = sh.DB(), sh.Notes()
			if spec.Flags&command.Write != 0 {
				sh.DB().WillModify(string(ctx.Args[i]))
			}
			sh.SetRunningLocked(ctx)
			results = append(results, spec.PerKey(ctx, ctx.Args[i]))
			sh.SetRunningLocked(nil)
			sh.RecordLocked(ctx)
			c.notePending(sh, sh.Observed())
		}
		for _, sh := range held {
			sh.PublishNotesLocked()
			sh.Unlock()
		}
	}
	command.WritePerKey(ctx, spec, results)
}

// block waits for a write to one of the keys a blocking command asked for
// and runs it again, until it is served or its timeout passes. The keys
// are registered with c.wake already, under the lock of the run that
// found nothing, and stay registered across the runs after a wake-up, so
// no write between a run and the wait goes unseen.
func (c *conn) block(spec *command.Spec, sh *shard.Shard) {
	req := c.ctx.Block
	defer sh.Unwait(req.Keys, c.wake)
	deadline := waitDeadline(req.TimeoutMs)
	// A write waiting for its keys is not in flight: while writes are
	// paused nothing arrives to wake it, and a pause waiting for it would
	// wait out its timeout. The run that found nothing wrote nothing, so
	// it leaves before the flush below, which may wait (for durable
	// replies, or a client that does not read); a run after a wake-up
	// that finds nothing again leaves at the end of the loop.
	c.leavePause()
	// Pending replies of a pipeline go out before the client waits.
	if !c.flush() {
		return
	}
	closed := c.watchClose()
	defer closed.end(c)
	select {
	case <-c.unblock: // left from a wait that ended on its own
	default:
	}
	c.blocked.Store(true)
	defer c.blocked.Store(false)
	// moved answers the redirect when the keys left this node's slots;
	// a map that arrived before blocked was set is seen here, a later one
	// wakes the wait (Server.wakeBlocked).
	args := c.ctx.Args
	moved := func() bool {
		msg := c.srv.movedReply(c, spec, args)
		if msg != "" {
			c.w.Error(msg)
		}
		return msg != ""
	}
	if moved() {
		return
	}
	for {
		var timer <-chan time.Time
		var t *time.Timer
		if !deadline.IsZero() {
			t = time.NewTimer(time.Until(deadline))
			timer = t.C
		}
		woke, unblocked := false, 0
		waitStart := time.Now()
		select {
		case <-c.wake:
			woke = true
		case unblocked = <-c.unblock:
		case <-timer:
		case <-closed.gone:
		case <-c.srv.tickStop:
		}
		c.waited += time.Since(waitStart)
		if t != nil {
			t.Stop()
		}
		if !woke {
			if c.closed.Load() {
				return
			}
			if unblocked == unblockError {
				c.w.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
				return
			}
			// Every blocking command's wait that runs out answers the
			// null array, as in redis-server 7.0.
			c.w.NullArray()
			return
		}
		if moved() || !c.reenterPause(spec, args, closed.gone) {
			return
		}
		c.ctx.Reset()
		c.ctx.Woken = true
		c.ctx.Now = clock.NowMs()
		c.notePending(sh, sh.RunWoken(spec, &c.ctx, c.wake)) // registered already
		if c.ctx.Block == nil {
			return
		}
		c.leavePause()
	}
}

// reenterPause counts a woken blocking write in flight again before it
// runs. The write that woke it may have been the last one in flight when
// a pause began (a switchover then compares logs); a pop run after that
// would land on the old primary only. So it waits out the pause, and
// looks at the command again afterwards, as the dispatcher does for a
// held command. It reports whether the command runs; a refusal is
// answered.
func (c *conn) reenterPause(spec *command.Spec, args [][]byte, gone <-chan struct{}) bool {
	if !c.mayWrite(spec) {
		return true
	}
	for c.srv.pause.Enter(c.shard.ID) {
		// Waiting for the pause, it is no longer blocked on its keys: as
		// for any command a pause holds, CLIENT UNBLOCK finds nothing to
		// unblock.
		c.blocked.Store(false)
		ok := c.srv.pause.Wait(true, gone, c.srv.tickStop) && c.admit(spec, spec, args)
		c.blocked.Store(true)
		if !ok {
			return false
		}
	}
	c.pauseEntered = true
	return true
}

// closeWatch reports when the client hangs up while it waits, so a
// blocked pop never hands an element to a client that is gone.
type closeWatch struct {
	gone   chan struct{}
	exited chan struct{}
}

// watchClose peeks at the idle read side: EOF or an error means the client
// left. A byte that does arrive (a pipelined command) stays buffered for
// the next read.
func (c *conn) watchClose() closeWatch {
	w := closeWatch{gone: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(w.exited)
		if err := c.r.Peek(); err != nil && !isTimeout(err) {
			close(w.gone)
		}
	}()
	return w
}

// end stops the peek by expiring the read deadline and waits for it, so
// only the connection's goroutine reads afterwards.
func (w closeWatch) end(c *conn) {
	c.nc.SetReadDeadline(time.Unix(1, 0))
	<-w.exited
	c.nc.SetReadDeadline(time.Time{})
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// maxWaitMs is the longest wait a time.Duration holds, in milliseconds.
const maxWaitMs = int64(math.MaxInt64 / time.Millisecond)

// waitDeadline is when a wait of ms milliseconds ends: none (the zero
// time) for 0, and for a wait longer than a time.Duration holds (about
// 292 years), which would otherwise wrap around and end at once.
func waitDeadline(ms int64) time.Time {
	if ms <= 0 || ms > maxWaitMs {
		return time.Time{}
	}
	return time.Now().Add(time.Duration(ms) * time.Millisecond)
}

// admit runs the checks a command (spec, or its subcommand run) passes
// before it runs, and before it waits for CLIENT PAUSE, and answers the
// refusal when one refuses it (false).
func (c *conn) admit(spec, run *command.Spec, args [][]byte) bool {
	s := c.srv
	if msg := s.movedReply(c, run, args); msg != "" {
		c.fail(msg)
		return false
	}
	if msg := c.memoryRefusal(spec, run); msg != "" {
		c.reject(run, msg)
		return false
	}
	if c.changes != nil {
		if msg := c.changesRefusal(run); msg != "" {
			c.reject(run, msg)
			return false
		}
	}
	if c.subscribed() && run.Flags&command.AllowSubscribed == 0 {
		c.reject(run, "ERR Can't execute '"+run.Name+"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
		return false
	}
	// One atomic load unless a script is running.
	if s.scripts.active.Load() > 0 {
		if msg := c.busyRefusal(spec, run, args); msg != "" {
			c.reject(run, msg)
			return false
		}
	}
	if msg := s.refusal(run, args, true); msg != "" {
		if m := s.metrics; m != nil {
			m.refusal(msg)
		}
		c.reject(run, msg)
		return false
	}
	if c.srv.isMonitor(c) {
		// Lines queued before this command go out before its reply.
		c.drainOutbox()
		if run.Flags&(command.Write|command.ReadOnly) != 0 {
			c.fail("ERR Replica can't interact with the keyspace")
			return false
		}
	}
	return true
}
