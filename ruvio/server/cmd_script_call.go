package server

import (
	"bytes"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/script"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// scriptBridge runs the commands of one script on its locked shard, the
// way EXEC runs queued commands (execOne), and collects their effects
// for one log record.
type scriptBridge struct {
	c     *conn
	sh    *shard.Shard
	ro    bool
	flags script.Flags
	run   *scriptRun
	dirty bool // a write command ran: later writes are not refused
	// idem marks IDEM's bridge: cmdIdem checked the rights to the
	// command it runs, and the store of its reply is IDEM's own, so no
	// ACL check here; MONITOR shows the IDEM command as sent, not its
	// calls as a script's.
	idem bool
	ops  [][][]byte
	ctx  command.Ctx
	buf  bytes.Buffer
	w    *resp.Writer
	// cmd is the command of the running call, once known, for INFO
	// commandstats; ran says it got past every refusal, failed that it
	// answered an error. lastHist caches its histogram.
	cmd         *command.Spec
	ran, failed bool
	lastHist    histCache
}

func (b *scriptBridge) init() {
	b.w = resp.NewWriter(&b.buf)
	b.w.OnError = b.noteError
}

// noteError counts an error a command of the script answered, as Redis
// counts it where it arises; the script's reply passing it on is not
// counted again (resp.Writer.ErrorCounted).
func (b *scriptBridge) noteError(msg string, counted bool) {
	if !counted {
		b.c.srv.countError(msg)
	}
	b.failed = true
}

// notFromScripts are the commands Redis 7.0 flags noscript that ruvio's
// table does not mark so: scripts get "This Redis command is not allowed
// from script" for them.
var notFromScripts = map[string]bool{
	"acl": true, "auth": true, "bgrewriteaof": true, "bgsave": true, "blmove": true, "blpop": true, "brpop": true,
	"brpoplpush": true, "bzpopmax": true, "bzpopmin": true, "client": true, "cluster|reset": true, "config": true,
	"debug": true, "discard": true, "eval": true, "eval_ro": true, "evalsha": true, "evalsha_ro": true, "exec": true,
	"failover": true, "fcall": true, "fcall_ro": true, "function": true, "hello": true, "latency": true, "module": true,
	"monitor": true, "multi": true, "psubscribe": true, "psync": true, "punsubscribe": true, "quit": true,
	"replconf": true, "replicaof": true, "reset": true, "role": true, "save": true, "shutdown": true, "slaveof": true,
	"ssubscribe": true, "subscribe": true, "sunsubscribe": true, "sync": true, "unsubscribe": true, "unwatch": true,
	"wait": true, "watch": true, "ruvio": true,
}

// scriptServerCommands are the commands the server implements itself
// that a script may call: those Redis 7 does not flag noscript. The
// keyspace-wide ones, and those that count every shard's keys (INFO,
// MEMORY STATS), need every shard's lock, so they run from a script only
// on a node of one shard.
var scriptServerCommands = map[string]bool{"ping": true, "echo": true, "time": true, "select": true,
	"publish": true, "spublish": true, "script|help": true, "script|exists": true, "script|load": true,
	"pubsub|channels": true, "pubsub|numsub": true, "pubsub|numpat": true, "pubsub|shardchannels": true,
	"pubsub|shardnumsub": true, "pubsub|help": true, "cluster|keyslot": true, "cluster|myid": true,
	"cluster|help": true, "cluster|info": true, "cluster|nodes": true, "cluster|shards": true, "cluster|slots": true,
	"command": true, "command|count": true, "command|docs": true, "command|getkeys": true,
	"command|getkeysandflags": true, "command|help": true, "command|info": true, "command|list": true,
	"slowlog|get": true, "slowlog|len": true, "slowlog|reset": true, "slowlog|help": true,
	"memory|doctor": true, "memory|malloc-stats": true, "memory|purge": true, "memory|help": true,
	"asking": true, "readonly": true, "readwrite": true,
	"lastsave": true, "info": false, "memory|stats": false,
	"dbsize": false, "keys": false, "scan": false, "randomkey": false, "flushdb": false, "flushall": false}

// scriptDebugCommands are the noscript commands DEBUG
// SET-DISABLE-DENY-SCRIPTS lets a script call, as Redis's test suite
// does; like the keyspace-wide commands above, only on a node of one
// shard.
var scriptDebugCommands = map[string]bool{"debug": true, "client|list": true, "client|info": true,
	"client|id": true, "client|getname": true}

// scriptOwnState are the commands that set a connection's own state: a
// script runs them on a client of its own in Redis, so its caller's
// connection is left as it was.
var scriptOwnState = map[string]bool{"readonly": true, "readwrite": true}

// Call runs one command of the script and returns its reply.
func (b *scriptBridge) Call(argv [][]byte, proto int) []byte {
	b.buf.Reset()
	b.w.Proto = proto
	b.cmd, b.ran, b.failed = nil, false, false
	start := clock.Stopwatch()
	b.exec(argv)
	b.record(clock.Stopwatch() - start)
	b.w.Flush()
	return b.buf.Bytes()
}

// record counts the call in INFO commandstats as Redis counts a
// script's commands: a call and how long it took, failed when it
// answered an error, or rejected when refused before it ran.
func (b *scriptBridge) record(took time.Duration) {
	if b.cmd == nil {
		return
	}
	lt := b.c.srv.latTrack
	if b.ran {
		lt.recordCommand(b.cmd, took, b.failed, &b.lastHist)
	} else {
		lt.recordRejected(b.cmd)
	}
}

func (b *scriptBridge) exec(argv [][]byte) {
	c, s := b.c, b.c.srv
	// Watches sent since the last command start before this one.
	b.run.registerWatches(b.sh.DB())
	spec := s.table.Lookup(argv[0])
	if spec == nil {
		if notFromScripts[strings.ToLower(string(argv[0]))] {
			// Redis's commands this node does not serve to clients
			// (SYNC, PSYNC, REPLCONF) are refused as Redis refuses them.
			b.w.Error("ERR This Redis command is not allowed from script")
		} else {
			b.w.Error("ERR Unknown Redis command called from script")
		}
		return
	}
	run := spec.Resolve(argv)
	if run == nil {
		if notFromScripts[spec.Name+"|"+strings.ToLower(string(argv[1]))] {
			b.w.Error("ERR This Redis command is not allowed from script")
		} else {
			b.w.Error("ERR Unknown Redis command called from script")
		}
		return
	}
	b.cmd = run
	if !run.ArityOK(len(argv)) {
		b.w.Error("ERR Wrong number of args calling Redis command from script")
		return
	}
	if !b.idem {
		// IDEM checked the rights to its command itself.
		v := c.aclCheck(spec, run, argv, acl.ContextLua)
		if msg := scriptACLError(v.Denied); msg != "" {
			b.w.Error(msg)
			return
		}
	}
	if (run.Flags&command.NoScript != 0 || notFromScripts[spec.Name] || notFromScripts[run.Name]) &&
		!(s.scriptDenyOff.Load() && scriptDebugCommands[run.Name]) {
		b.w.Error("ERR This Redis command is not allowed from script")
		return
	}
	write := run.Flags&command.Write != 0
	if b.ro && (write || run.Flags&command.MayReplicate != 0) {
		b.w.Error("ERR Write commands are not allowed from read-only scripts.")
		return
	}
	if write && !b.dirty {
		// Until the script has written, a write may still be refused as
		// the node stands; after, stopping halfway would be worse.
		if msg := s.refusal(run, argv, false); msg != "" {
			b.w.Error(msg)
			return
		}
		if b.flags&script.AllowOOM == 0 {
			// The script's shard is locked: no eviction here.
			if msg := s.checkMemoryLocked(run); msg != "" {
				b.w.Error(msg)
				return
			}
		}
	} else if msg := s.moveFence(run, argv); msg != "" {
		b.w.Error(msg)
		return
	}
	if msg := b.nonLocal(run, argv); msg != "" {
		b.w.Error(msg)
		return
	}
	if (run.Name == "xread" || run.Name == "xreadgroup") && hasArg(argv, "block") {
		// The name as the script wrote it, as Redis echoes it.
		b.w.Error("ERR " + string(argv[0]) + " command is not allowed with BLOCK option from scripts")
		return
	}
	b.ran = true
	if write {
		b.dirty = true
		b.run.wrote.Store(true)
	}
	if s.watchedByMonitors() && run.Flags&command.Admin == 0 && !b.idem {
		s.feedMonitors(monitorLine(time.Now(), "lua", argv))
	}
	if h, ok := run.Ext.(handler); ok {
		b.callServer(run, h, argv)
		return
	}
	ctx := &b.ctx
	ctx.Reset()
	ctx.Args, ctx.W, ctx.InMulti = argv, b.w, true
	ctx.Values = ctx.Values[:0]
	ctx.DB, ctx.Now, ctx.Notes, ctx.Tokens = b.sh.DB(), c.now, b.sh.Notes(), c
	// Every lookup of the script reads the script's time, so no key
	// expires halfway through it, as in Redis 7.
	prev := b.sh.DB().CmdNow
	b.sh.DB().CmdNow = c.now
	defer func() { b.sh.DB().CmdNow = prev }()
	if write && b.sh.DB().Snapshotting() {
		for _, i := range run.KeyIndexes(argv) {
			b.sh.DB().WillModify(string(argv[i]))
		}
	}
	if run.PerKey != nil {
		results := make([]int64, 0, len(argv))
		for _, i := range run.KeyIndexes(argv) {
			results = append(results, run.PerKey(ctx, argv[i]))
		}
		command.WritePerKey(ctx, run, results)
	} else {
		run.Run(ctx)
	}
	// argv is the script's own copy and effects are copies the command
	// made, so holding them until the record is written is safe.
	ctx.EachEffect(func(e [][]byte) { b.ops = append(b.ops, e) })
	c.trackScriptRead(run, argv)
}

// nonLocal refuses keys the script's shard does not hold.
func (b *scriptBridge) nonLocal(run *command.Spec, argv [][]byte) string {
	s := b.c.srv
	const msg = "ERR Script attempted to access a non local key in a cluster node"
	if s.cluster.view.Load() != nil && s.movedReply(b.c, run, argv) != "" {
		return msg
	}
	for _, i := range run.KeyIndexes(argv) {
		if s.shardFor(argv[i]) != b.sh {
			return msg
		}
	}
	return ""
}

// callServer runs a command the server implements itself, writing its
// reply to the script, with the script's shard marked as held.
func (b *scriptBridge) callServer(run *command.Spec, h handler, argv [][]byte) {
	c := b.c
	// Redis would run these; ruvio says why it does not rather than
	// claim Redis's noscript refusal.
	allowed, known := scriptServerCommands[run.Name]
	if !known && scriptDebugCommands[run.Name] {
		known = true // reached only with the deny turned off
	}
	switch {
	case !known:
		b.w.Error("ERR ruvio does not run '" + run.Name + "' from scripts")
		return
	case !allowed && len(c.srv.shards) > 1:
		b.w.Error("ERR ruvio runs '" + run.Name + "' from scripts only on a node of one shard: it reads every shard")
		return
	}
	if scriptOwnState[run.Name] {
		b.w.OK()
		return
	}
	// A server command may append records of its own (FLUSHALL): what
	// the script did before goes to the log first, in order.
	b.appendOps()
	saved, savedLocked := c.w, c.locked
	c.w = b.w
	if !heldBy(savedLocked, b.sh) {
		c.locked = append(append([]*shard.Shard(nil), savedLocked...), b.sh)
	}
	defer func() { c.w, c.locked = saved, savedLocked }()
	h(c, argv)
}

func heldBy(locked []*shard.Shard, sh *shard.Shard) bool {
	for _, l := range locked {
		if l == sh {
			return true
		}
	}
	return false
}

// appendOps writes the effects collected so far as one record.
func (b *scriptBridge) appendOps() {
	if len(b.ops) > 0 {
		b.sh.AppendLocked(b.ops)
		b.ops = nil
	}
}

func hasArg(argv [][]byte, word string) bool {
	for _, a := range argv[1:] {
		if command.Eq(a, word) {
			return true
		}
	}
	return false
}

// CheckACL answers redis.acl_check_cmd for the script's user.
func (b *scriptBridge) CheckACL(argv [][]byte) (allowed, known bool) {
	spec := b.c.srv.table.Lookup(argv[0])
	if spec == nil {
		return false, false
	}
	run := spec.Resolve(argv)
	if run == nil {
		return false, false
	}
	// redis.acl_check_cmd asks; it is no denial for ACL LOG.
	u := b.c.aclUser()
	return u == nil || aclVerdict(u, spec, run, argv).Denied == acl.Allowed, true
}

// scriptACLError is what a script's command refused by ACL answers, in
// Redis 7.0's words, or "" when it is allowed.
func scriptACLError(d acl.Denial) string {
	switch d {
	case acl.Allowed:
		return ""
	case acl.DeniedKey:
		return "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"
	case acl.DeniedChannel:
		return "ERR The user executing the script can't publish to the channel mentioned in the command"
	}
	return "ERR The user executing the script can't run this command or subcommand"
}
