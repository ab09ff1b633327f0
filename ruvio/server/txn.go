package server

import (
	"math"
	"time"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// MULTI/EXEC: commands are queued and run together under their shard's
// lock, so no other client's command interleaves (Redis's atomicity). A
// transaction's keys must all live on one shard.

func cmdMulti(c *conn, args [][]byte) {
	if c.multi {
		c.w.Error("ERR MULTI calls can not be nested")
		return
	}
	c.multi = true
	c.multiDirty = false
	c.queued = c.queued[:0]
	c.multiCount.Store(1)
	c.w.OK()
}

func (c *conn) queue(spec *command.Spec, args [][]byte) {
	if spec.Flags&command.NoMulti != 0 {
		c.fail("ERR Command not allowed inside a transaction")
		return
	}
	if sh, ok := c.srv.route(spec, args); !ok || !c.sameTxnShard(sh, spec) {
		c.fail(command.ErrCrossSlot)
		return
	}
	cp := make([][]byte, len(args))
	copy(cp, args)
	c.queued = append(c.queued, cp)
	c.multiCount.Store(int32(min(len(c.queued), math.MaxInt32-1)) + 1)
	c.w.Simple("QUEUED")
}

// sameTxnShard reports whether a command's shard agrees with the shards of
// the commands queued before it.
func (c *conn) sameTxnShard(sh *shard.Shard, spec *command.Spec) bool {
	if sh == nil || len(c.srv.shards) == 1 || spec.Ext != nil {
		return true
	}
	for _, q := range c.queued {
		qs := c.srv.table.Lookup(q[0])
		if qs.Ext != nil {
			continue
		}
		if other, _ := c.srv.route(qs, q); other != nil && other != sh {
			return false
		}
	}
	return true
}

func cmdDiscard(c *conn, args [][]byte) {
	if !c.multi {
		c.w.Error("ERR DISCARD without MULTI")
		return
	}
	c.resetMulti()
	c.w.OK()
}

func (c *conn) resetMulti() {
	c.multi = false
	c.multiCount.Store(0)
	c.multiDirty = false
	c.queued = c.queued[:0]
	c.unwatchAll()
}

func cmdExec(c *conn, args [][]byte) {
	if !c.multi {
		c.w.Error("ERR EXEC without MULTI")
		return
	}
	if msg := c.execRedirect(); msg != "" {
		c.resetMulti()
		c.fail(msg)
		return
	}
	// What would refuse one of the queued commands now (memory, the write
	// gates) refuses EXEC as a whole, as Redis does.
	if msg := c.execRefusal(); msg != "" {
		c.abortExec(msg)
		return
	}
	queued := c.queued
	dirty := c.multiDirty
	c.multi = false
	c.multiCount.Store(0)
	if dirty {
		c.resetMulti()
		c.w.Error("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	// Lock the transaction's shard, or every shard when a server command
	// in it may read several, before checking WATCH so nothing slips in
	// between the check and the run.
	locks := c.txnShards(queued)
	if msg := c.lockShards(locks); msg != "" {
		// A script took a shard after the BUSY check: EXEC is refused
		// as that check refuses it.
		c.abortExec(msg)
		return
	}
	c.locked = locks
	for _, sh := range locks {
		sh.SetRunningLocked(&c.ctx)
	}
	defer func() {
		c.locked = nil
		for _, sh := range locks {
			sh.SetRunningLocked(nil)
			sh.PublishNotesLocked()
		}
		for i := len(locks) - 1; i >= 0; i-- {
			locks[i].Unlock()
		}
		c.queued = c.queued[:0]
	}()
	// Checked again under the locks: a slot move freezes its range under
	// the shard's lock and lifts the freeze only after the map gives the
	// range away, so from here to the end nothing can move a key of the
	// transaction to another group.
	if msg := c.execRedirect(); msg != "" {
		c.unwatchAllLocked()
		c.fail(msg) // out of MULTI already: only counted and answered
		return
	}
	for _, w := range c.watches {
		if w.shard.DB().Changed(w.token) {
			c.unwatchAllLocked()
			c.w.NullArray()
			return
		}
	}
	c.unwatchAllLocked()
	c.w.Array(len(queued))
	// The effects of the whole transaction go to each shard's log as one
	// record, so a crash can never replay half of it.
	txnOps := map[*shard.Shard][][][]byte{}
	appendOps := func() {
		for sh, ops := range txnOps {
			sh.AppendLocked(ops)
			delete(txnOps, sh)
		}
		// Replies wait for what every locked shard held, reads included.
		for _, sh := range locks {
			c.notePending(sh, sh.Observed())
		}
	}
	defer appendOps()
	c.execOps = txnOps
	defer func() { c.execOps = nil }()
	for _, q := range queued {
		c.execOne(q, appendOps, txnOps)
	}
}

// joinsExecRecord are the server commands whose effects, queued in a
// transaction, go to the transaction's record (runOnShard): IDEM, which
// runs data commands only. A script may call a server command that
// writes its effects so far at once (callServer), so it keeps records
// of its own after what the transaction logged before it.
var joinsExecRecord = map[string]bool{"idem": true}

// execOne runs one queued command of EXEC, timed for the slow log. It
// counts in INFO commandstats and the latency histograms on its own, as
// Redis counts a transaction's commands, and an error it answers marks
// it failed, not EXEC.
func (c *conn) execOne(q [][]byte, appendOps func(), txnOps map[*shard.Shard][][][]byte) {
	start := time.Now()
	spec := c.srv.table.Lookup(q[0])
	run := spec.Resolve(q)
	execFailed, ran := c.cmdFailed, false
	c.cmdFailed = false
	defer func() {
		took := time.Since(start)
		if ran {
			var hist histCache
			c.srv.observeLatency(run, took, c.cmdFailed, &hist)
		} else {
			c.srv.latTrack.recordRejected(run)
		}
		c.cmdFailed = execFailed
		c.logSlow(spec, q, took)
	}()
	// Checks that depend on state at run time still apply: the user's
	// rules, which ACL SETUSER may have changed since the command was
	// queued (as Redis checks them again), memory, and the write gates,
	// which may have closed since MULTI. The shards are locked, so memory
	// is checked without evicting.
	v := c.aclCheck(spec, run, q, acl.ContextMulti)
	if v.Denied != acl.Allowed {
		c.w.Error("NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. " +
			"This command is no longer allowed for the following reason: " + execACLReason(v.Denied))
		return
	}
	if msg := c.srv.checkMemoryLocked(run); msg != "" {
		c.w.Error(msg)
		return
	}
	if msg := c.srv.refusal(run, q, false); msg != "" {
		c.w.Error(msg)
		return
	}
	ran = true
	if line := c.monitorCommand(run, q); line != nil {
		defer c.srv.feedMonitors(line)
	}
	if h, ok := run.Ext.(handler); ok {
		// A server command may append records of its own (FLUSHALL):
		// what ran before it goes to the log first, in order. Scripts
		// and IDEM add theirs to the transaction's (c.execOps).
		if !joinsExecRecord[run.Name] {
			appendOps()
		}
		h(c, q)
		return
	}
	c.ctx.Reset()
	c.ctx.Args, c.ctx.W, c.ctx.InMulti = q, c.w, true
	c.ctx.Values = c.ctx.Values[:0]
	sh, _ := c.srv.route(run, q)
	if sh == nil {
		sh = c.shard
	}
	c.ctx.DB, c.ctx.Now, c.ctx.Notes = sh.DB(), c.now, sh.Notes()
	// Every lookup of the transaction reads EXEC's time, so no key
	// expires between two of its commands, as in Redis.
	prev := sh.DB().CmdNow
	sh.DB().CmdNow = c.now
	defer func() { sh.DB().CmdNow = prev }()
	if run.Flags&command.Write != 0 && sh.DB().Snapshotting() {
		for _, i := range run.KeyIndexes(q) {
			sh.DB().WillModify(string(q[i]))
		}
	}
	if run.PerKey != nil {
		results := make([]int64, 0, len(q))
		for _, i := range run.KeyIndexes(q) {
			results = append(results, run.PerKey(&c.ctx, q[i]))
		}
		command.WritePerKey(&c.ctx, run, results)
	} else {
		run.Run(&c.ctx)
	}
	// Effects are either the queued arguments (kept until EXEC ends)
	// or copies the command made, so holding them here is safe.
	c.ctx.EachEffect(func(argv [][]byte) { txnOps[sh] = append(txnOps[sh], argv) })
}

// execRedirect is the redirect Redis Cluster answers EXEC with when a
// queued command's keys are no longer served here: MOVED once the map
// gives them to another group, or TRYAGAIN while their range is frozen
// by a slot move and still ours; "" when every key is still
// this node's to write. The check at queue time is not enough: a range
// can move away between MULTI and EXEC. The transaction is then
// discarded.
func (c *conn) execRedirect() string {
	for _, q := range c.queued {
		run := c.srv.queuedRun(q)
		// The map first, as for a single command: once it has given
		// the range away the answer is MOVED, even while the source
		// has not yet thawed the range it dropped.
		if msg := c.srv.movedReply(c, run, q); msg != "" {
			return msg
		}
		if msg := c.srv.moveFence(run, q); msg != "" {
			return msg
		}
	}
	return ""
}

// queuedRun is the command (or subcommand) a queued command runs.
func (s *Server) queuedRun(q [][]byte) *command.Spec {
	return s.table.Lookup(q[0]).Resolve(q)
}

// execRefusal is the first refusal a queued command would get now. The
// memory check runs once for the whole transaction, when one of its
// commands may grow memory, as Redis's does: it may evict, and evicting
// for each queued command would make a long transaction pay the
// eviction time limit hundreds of times over.
func (c *conn) execRefusal() string {
	for _, q := range c.queued {
		if run := c.srv.queuedRun(q); run.Flags&command.DenyOOM != 0 {
			if msg := c.srv.checkMemory(run, nil); msg != "" {
				return msg
			}
			break
		}
	}
	for _, q := range c.queued {
		if msg := c.srv.refusal(c.srv.queuedRun(q), q, false); msg != "" {
			return msg
		}
	}
	return ""
}

// txnShards returns the shards EXEC must lock, in ID order: the
// transaction's shard and those of watched keys, or every shard when a
// server command in it may read several.
func (c *conn) txnShards(queued [][][]byte) []*shard.Shard {
	need := make([]bool, len(c.srv.shards))
	any := false
	for _, q := range queued {
		spec := c.srv.table.Lookup(q[0])
		if spec.Ext != nil {
			return c.srv.shards
		}
		if sh, _ := c.srv.route(spec, q); sh != nil {
			need[sh.ID], any = true, true
		}
	}
	if !any {
		need[c.shard.ID] = true
	}
	for _, w := range c.watches {
		need[w.shard.ID] = true
	}
	return c.srv.shardsOf(need)
}

// shardsOf lists the shards need marks by ID, in the shards' order: the
// order every command holding several shards' locks takes them in.
func (s *Server) shardsOf(need []bool) []*shard.Shard {
	var out []*shard.Shard
	for i, n := range need {
		if n {
			out = append(out, s.shards[i])
		}
	}
	return out
}

func cmdWatch(c *conn, args [][]byte) {
	if c.multi {
		c.w.Error("ERR WATCH inside MULTI is not allowed")
		return
	}
	for _, k := range args[1:] {
		w := &watchEntry{shard: c.srv.shardFor(k), key: string(k)}
		c.watches = append(c.watches, w)
		if c.srv.queueWatch(watchOp{w: w}) {
			continue
		}
		w.shard.Lock()
		w.token = w.shard.DB().Watch(w.key)
		w.shard.Unlock()
	}
	c.w.OK()
}

func cmdUnwatch(c *conn, args [][]byte) {
	c.unwatchAll()
	c.w.OK()
}

// unwatchAllLocked drops watches while EXEC holds their shards' locks.
func (c *conn) unwatchAllLocked() {
	for _, w := range c.watches {
		w.shard.DB().Unwatch(w.token)
	}
	c.watches = nil
}

// execACLReason is why EXEC refuses a queued command its user may no
// longer run, in Redis 7.0's words.
func execACLReason(d acl.Denial) string {
	switch d {
	case acl.DeniedKey:
		return "no permission to touch the specified keys"
	case acl.DeniedChannel:
		return "no permission to access one of the channels used as arguments"
	}
	return "no permission to execute the command or subcommand"
}
