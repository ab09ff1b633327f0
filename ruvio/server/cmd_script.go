package server

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/script"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// EVAL and friends. A script runs with its shard locked, as EXEC runs a
// transaction: no other command on that shard interleaves, and the
// effects of every write it made go to the shard's log as one record, so
// a crash replays all of it or none, and replicas get the effects, never
// the script.
//
// Which keys a script may touch: its declared keys (KEYS) must all live
// on one shard (CROSSSLOT otherwise). A key a command of the script
// names but the script did not declare is allowed when it is on the
// script's shard, as Redis allows undeclared keys outside cluster mode;
// a key of another shard, or of another group in cluster mode, gets
// Redis's "Script attempted to access a non local key in a cluster node",
// since the script holds only its own shard.

// scriptState is the node's script cache, its pool of Lua states and what
// runs on each shard.
type scriptState struct {
	once  sync.Once
	pool  *script.Pool
	cache script.Cache
	// base is cancelled when the server shuts down, stopping any script.
	base context.Context
	// running is the script each shard runs, if any; active counts
	// them, so that other commands pay one atomic load while none runs.
	running []atomic.Pointer[scriptRun]
	active  atomic.Int32
}

func (s *Server) scriptsReady() *scriptState {
	st := &s.scripts
	st.once.Do(func() {
		st.pool = script.NewPool(script.Options{Version: Version, Log: s.log})
		st.running = make([]atomic.Pointer[scriptRun], len(s.shards))
		ctx, cancel := context.WithCancel(context.Background())
		st.base = ctx
		go func() {
			<-s.tickStop
			cancel()
		}()
	})
	return st
}

// scriptRun is one running script, as SCRIPT KILL and the BUSY check
// see it.
type scriptRun struct {
	cancel context.CancelFunc
	wrote  atomic.Bool
	killed atomic.Bool
	// settled is closed once the script has either ended or passed
	// busy-reply-threshold: a command for its shard waits that long to
	// learn whether it runs or gets BUSY, as Redis answers BUSY to
	// commands that arrived while a script was starting too.
	settled chan struct{}
	mu      sync.Mutex
	busy    bool // past busy-reply-threshold; guarded by mu
	done    bool
	// watches are the WATCHes and UNWATCHes of the run's shard's keys
	// sent while it is busy, for it to register (busywatch.go).
	watches busyWatches
	// fn is what a function's run runs (FCALL); nil for EVAL's scripts.
	// Set before the run is published in running.
	fn *functionRun
}

func newScriptRun(cancel context.CancelFunc) *scriptRun {
	return &scriptRun{cancel: cancel, settled: make(chan struct{})}
}

// markBusy runs when the script passes busy-reply-threshold.
func (r *scriptRun) markBusy() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done && !r.busy {
		r.busy = true
		close(r.settled)
	}
}

func (r *scriptRun) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done && !r.busy {
		close(r.settled)
	}
	r.done, r.busy = true, false
}

// settle waits until r has ended or passed busy-reply-threshold, and
// reports false if stop (the server shutting down) came first.
func (r *scriptRun) settle(stop <-chan struct{}) bool {
	select {
	case <-r.settled:
		return true
	case <-stop:
		return false
	}
}

// isBusy reports whether r runs past busy-reply-threshold and was not
// killed: a killed script ends at its next instruction, and a command
// after SCRIPT KILL or FUNCTION KILL waits for the shard rather than get
// BUSY or NOTBUSY's opposite, as in Redis, where the next command comes
// after the script ended.
func (r *scriptRun) isBusy() bool {
	if r.killed.Load() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.busy
}

// scriptKeys locates EVAL's keys: numkeys at position 2, the keys after.
var scriptKeys = command.NumKeysAt(2)

func evalSpec(name string, flags command.Flags, h handler) *command.Spec {
	return &command.Spec{Name: name, Arity: -3, Flags: flags | command.NoScript | command.Stale | command.MovableKeys,
		Categories: []string{"slow", "scripting"}, Keys: scriptKeys, Ext: h}
}

// scriptSpecs are the scripting commands for the command table.
func scriptSpecs() []*command.Spec {
	return []*command.Spec{
		evalSpec("eval", 0, func(c *conn, args [][]byte) { c.eval(args, false, false) }),
		evalSpec("evalsha", 0, func(c *conn, args [][]byte) { c.eval(args, true, false) }),
		evalSpec("eval_ro", command.ReadOnly, func(c *conn, args [][]byte) { c.eval(args, false, true) }),
		evalSpec("evalsha_ro", command.ReadOnly, func(c *conn, args [][]byte) { c.eval(args, true, true) }),
		container("script", "slow",
			ext("load", 3, command.NoScript|stale, "slow scripting", cmdScriptLoad),
			ext("exists", -3, command.NoScript, "slow scripting", cmdScriptExists),
			ext("flush", -2, command.NoScript, "slow scripting", cmdScriptFlush),
			ext("kill", 2, command.NoScript, "slow scripting", cmdScriptKill),
			ext("debug", 3, command.NoScript, "slow scripting", cmdScriptDebug),
			ext("help", 2, load|stale, "slow scripting", cmdScriptHelp),
		),
	}
}

// feedsMonitorItself names the commands that show themselves to MONITOR
// (Redis's skip_monitor flag): a script's line goes out before the lines
// of the commands it calls.
var feedsMonitorItself = map[string]bool{"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true,
	"fcall": true, "fcall_ro": true}

// eval runs EVAL, EVALSHA and their _RO forms.
func (c *conn) eval(args [][]byte, bySHA, ro bool) {
	if c.srv.watchedByMonitors() {
		c.srv.feedMonitors(monitorLine(time.Now(), c.raddr.String(), args))
	}
	st := c.srv.scriptsReady()
	if bySHA && len(args[1]) != 40 {
		// No script has such a digest: Redis answers before it reads
		// the number of keys.
		c.w.Error("NOSCRIPT No matching script. Please use EVAL.")
		return
	}
	keys, argv, ok := c.scriptArgs(args, command.ErrNotInteger)
	if !ok {
		return
	}
	var sc *script.Script
	if bySHA {
		sc = st.cache.Get(strings.ToLower(string(args[1])))
		if sc == nil {
			c.w.Error("NOSCRIPT No matching script. Please use EVAL.")
			return
		}
	} else {
		var msg string
		if sc, msg = st.cache.Load(string(args[1])); msg != "" {
			c.w.Error(msg)
			return
		}
	}
	sh, ok := c.scriptShard(sc.Flags, ro, keys)
	if !ok {
		return
	}
	c.runOnShard(sh, newScriptRun, sc.Flags, ro || sc.Flags&script.NoWrites != 0, func(ctx context.Context, b *scriptBridge) {
		vm := st.pool.Get()
		if vm.Exec(ctx, sc, keys, argv, b, b.run.killed.Load, c.w) {
			st.pool.Put(vm)
		} else {
			vm.Close()
		}
	})
}

// scriptArgs splits EVAL's and FCALL's numkeys, keys and arguments
// (args[2] on), answering Redis's errors; notCount is the reply to a
// numkeys that is no integer, which the two word differently.
func (c *conn) scriptArgs(args [][]byte, notCount string) (keys, argv [][]byte, ok bool) {
	numkeys, isInt := command.ParseInt(args[2])
	switch {
	case !isInt:
		c.w.Error(notCount)
		return nil, nil, false
	case numkeys > int64(len(args)-3):
		c.w.Error("ERR Number of keys can't be greater than number of args")
		return nil, nil, false
	case numkeys < 0:
		c.w.Error("ERR Number of keys can't be negative")
		return nil, nil, false
	}
	return args[3 : 3+numkeys], args[3+numkeys:], true
}

// scriptShard readies a script or function with flags f to run: CLIENT
// PAUSE WRITE holds one that may write, as Redis holds its may-replicate
// EVAL (not an _RO call, not a no-writes script, and not inside EXEC,
// which already holds its shards); its flags may refuse it
// (scriptRefusal); and its keys must share a shard (CROSSSLOT), which is
// the one it runs on (the connection's without keys).
func (c *conn) scriptShard(f script.Flags, ro bool, keys [][]byte) (*shard.Shard, bool) {
	if !ro && f&script.NoWrites == 0 && len(c.locked) == 0 && !c.passPause(&command.Spec{Flags: command.Write}, false, nil) {
		return nil, false
	}
	if msg := c.scriptRefusal(f, ro); msg != "" {
		c.w.Error(msg)
		return nil, false
	}
	sh := c.shard
	if len(keys) > 0 {
		sh = c.srv.shardFor(keys[0])
		for _, k := range keys[1:] {
			if c.srv.shardFor(k) != sh {
				c.w.Error(command.ErrCrossSlot)
				return nil, false
			}
		}
	}
	// A script that may write is refused up front on a shard that lacks
	// good replicas (min-replicas-to-write), as Redis refuses it, rather
	// than at its first write.
	if f&(script.Compat|script.NoWrites) == 0 && c.srv.gates[sh.ID].Load()&gateTooFewReplicas != 0 {
		c.w.Error(repl.ErrNoReplicas)
		return nil, false
	}
	return sh, true
}

// scriptRefusal is what refuses a script before it starts, in Redis's
// order and words: its shebang flags against the node's state.
func (c *conn) scriptRefusal(f script.Flags, ro bool) string {
	s := c.srv
	if f&script.Compat != 0 {
		return ""
	}
	if f&script.NoCluster != 0 && s.cluster.view.Load() != nil {
		return "ERR Can not run script on cluster, 'no-cluster' flag is set."
	}
	// A script with flags may grow memory unless they say no-writes or
	// allow-oom: Redis refuses it up front over maxmemory, in the words
	// it refuses any such command with.
	if f&(script.AllowOOM|script.NoWrites) == 0 && s.maxMemory() > 0 && c.checkMemoryHere(&command.Spec{Flags: command.DenyOOM}) != "" {
		return errOOM
	}
	if f&script.NoWrites == 0 {
		if msg := s.refusal(&command.Spec{Flags: command.Write}, nil, false); strings.HasPrefix(msg, "READONLY") {
			return msg
		}
		if ro {
			return "ERR Can not execute a script with write flag using *_ro command."
		}
	}
	return ""
}

// runOnShard runs a script or a function, exec, with sh locked (unless
// EXEC holds it already): the run is registered for BUSY, SCRIPT KILL and
// FUNCTION KILL (newRun makes it), its writes are c's own for client
// tracking, and what it changed is logged as one record.
func (c *conn) runOnShard(sh *shard.Shard, newRun func(context.CancelFunc) *scriptRun, flags script.Flags, ro bool,
	exec func(ctx context.Context, b *scriptBridge)) {
	st := c.srv.scriptsReady()
	// A long holder: commands that would wait for the lock wait for
	// the script's end or BUSY instead (shardlock.go).
	held := heldBy(c.locked, sh)
	if held {
		sh.MarkLong()
	} else {
		sh.LockLong()
	}
	// The script's writes are c's own: NOLOOP and the order of c's
	// invalidations see them as a command of c's would be.
	prev := sh.RunningLocked()
	sh.SetRunningLocked(&c.ctx)
	ctx, cancel := context.WithCancel(st.base)
	run := newRun(cancel)
	st.running[sh.ID].Store(run)
	st.active.Add(1)
	timer := time.AfterFunc(c.srv.busyThreshold(), run.markBusy)
	b := &scriptBridge{c: c, sh: sh, ro: ro, flags: flags, run: run}
	b.init()
	exec(ctx, b)
	timer.Stop()
	run.finish() // not busy: no watch is queued on it from here
	run.registerWatches(sh.DB())
	st.running[sh.ID].Store(nil)
	st.active.Add(-1)
	cancel()
	if held && c.execOps != nil && b.idem {
		// IDEM queued in a transaction: its effects join EXEC's record.
		c.execOps[sh] = append(c.execOps[sh], b.ops...)
		b.ops = nil
	} else {
		b.appendOps()
	}
	sh.SetRunningLocked(prev)
	c.notePending(sh, sh.Observed())
	if held {
		sh.UnmarkLong()
	} else {
		sh.PublishNotesLocked()
		sh.UnlockLong()
	}
}

// busyThreshold is busy-reply-threshold as a duration.
func (s *Server) busyThreshold() time.Duration {
	s.cfgMu.RLock()
	ms := s.cfg.BusyReplyThreshold
	s.cfgMu.RUnlock()
	return time.Duration(ms) * time.Millisecond
}

// busyRefusal is Redis's BUSY reply for a command that would wait for a
// shard whose script runs past busy-reply-threshold, or "". A command for
// a shard whose script is younger waits until the script ends or passes
// the threshold. Only the commands Redis lets through a busy server pass;
// a command whose keys are on other shards runs, since ruvio's shards
// run independently.
func (c *conn) busyRefusal(spec, run *command.Spec, args [][]byte) string {
	switch run.Name {
	case "auth", "hello", "quit", "reset", "multi", "discard", "watch", "unwatch", "shutdown", "script|kill",
		"function|kill", "function|stats":
		return ""
	}
	st := &c.srv.scripts
	// refusal is "" or the BUSY error naming the command that stops the
	// run on sh: SCRIPT KILL for a script, FUNCTION KILL for a function.
	refusal := func(sh *shard.Shard) string {
		r := st.running[sh.ID].Load()
		if r == nil {
			return ""
		}
		r.settle(c.srv.tickStop)
		if !r.isBusy() {
			return ""
		}
		return r.busyError()
	}
	idx := run.KeyIndexes(args)
	for _, i := range idx {
		if msg := refusal(c.srv.shardFor(args[i])); msg != "" {
			return msg
		}
	}
	if len(idx) > 0 {
		return ""
	}
	if msg := refusal(c.shard); msg != "" {
		return msg
	}
	// A keyless server command over the keyspace (DBSIZE, KEYS,
	// FLUSHALL) or that reads every shard (INFO) needs every shard.
	if run.Ext != nil && (run.Flags&(command.Write|command.ReadOnly) != 0 || readsEveryShard[spec.Name]) {
		for _, sh := range c.srv.shards {
			if msg := refusal(sh); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// readsEveryShard are server commands without keys that take every
// shard's lock.
var readsEveryShard = map[string]bool{"info": true, "save": true, "bgsave": true, "debug": true, "ruvio": true,
	"cluster": true, "memory": true}

const (
	errBusy         = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// busyError is the BUSY error commands get while r runs past
// busy-reply-threshold, naming the command that can stop it.
func (r *scriptRun) busyError() string {
	if r.fn != nil {
		return errBusyFunction
	}
	return errBusy
}

func cmdScriptLoad(c *conn, args [][]byte) {
	sc, msg := c.srv.scriptsReady().cache.Load(string(args[2]))
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.BulkString(sc.SHA)
}

func cmdScriptExists(c *conn, args [][]byte) {
	st := c.srv.scriptsReady()
	c.w.Array(len(args) - 2)
	for _, a := range args[2:] {
		if st.cache.Get(strings.ToLower(string(a))) != nil {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

func cmdScriptFlush(c *conn, args [][]byte) {
	if len(args) > 3 || (len(args) == 3 && !command.Eq(args[2], "async") && !command.Eq(args[2], "sync")) {
		c.w.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	c.srv.scriptsReady().cache.Flush()
	c.w.OK()
}

// cmdScriptKill stops the scripts running past busy-reply-threshold on
// any shard of the node, unless one of them has written.
func cmdScriptKill(c *conn, args [][]byte) {
	busy := c.srv.busyRuns()
	if len(busy) == 0 {
		c.w.Error("NOTBUSY No scripts in execution right now.")
		return
	}
	for _, r := range busy {
		if r.wrote.Load() {
			c.w.Error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
			return
		}
		if r.fn != nil {
			// A function is FUNCTION KILL's, as Redis answers.
			c.w.Error(errBusyFunction)
			return
		}
	}
	for _, r := range busy {
		r.killed.Store(true)
		r.cancel()
	}
	c.w.OK()
}

// cmdScriptDebug accepts NO, the mode every script runs in: ruvio has no
// Lua debugger, so YES and SYNC are refused rather than acknowledged.
func cmdScriptDebug(c *conn, args [][]byte) {
	switch {
	case c.w.Buffered() > 0:
		// As Redis: replies waiting to go out (a pipeline, EXEC's).
		c.w.Error("ERR SCRIPT DEBUG must be called outside a pipeline")
	case command.Eq(args[2], "no"):
		c.w.OK()
	case command.Eq(args[2], "yes"), command.Eq(args[2], "sync"):
		c.w.Error("ERR ruvio has no Lua debugger: only SCRIPT DEBUG NO is supported")
	default:
		c.w.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	}
}

func cmdScriptHelp(c *conn, args [][]byte) {
	writeHelp(c, "SCRIPT",
		"DEBUG (YES|SYNC|NO)",
		"    Set the debug mode for subsequent scripts executed.",
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it.")
}
