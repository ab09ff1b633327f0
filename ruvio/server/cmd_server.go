package server

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/scan"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/glob"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// maxMemory is maxmemory in force (0: no limit).
func (s *Server) maxMemory() int64 {
	if set := s.evict.settings.Load(); set != nil {
		return set.limit
	}
	return 0
}

func cmdConfigGet(c *conn, args [][]byte) {
	s := c.srv
	s.cfgMu.RLock()
	seen := map[string]bool{}
	var pairs [][2]string
	for _, pat := range args[2:] {
		for _, kv := range s.cfg.GetParams(string(pat)) {
			if !seen[kv[0]] {
				seen[kv[0]] = true
				pairs = append(pairs, kv)
			}
		}
	}
	s.cfgMu.RUnlock()
	c.w.Map(len(pairs))
	for _, kv := range pairs {
		c.w.BulkString(kv[0])
		c.w.BulkString(kv[1])
	}
}

// cmdConfigSet applies name/value pairs all or nothing, as Redis 7 does.
func cmdConfigSet(c *conn, args [][]byte) {
	if len(args)%2 != 0 {
		c.w.Error("ERR syntax error")
		return
	}
	s := c.srv
	pairs := make([][2]string, 0, len(args)/2-1)
	for i := 2; i < len(args); i += 2 {
		pairs = append(pairs, [2]string{strings.ToLower(string(args[i])), string(args[i+1])})
	}
	s.cfgMu.Lock()
	trial := s.cfg.Clone()
	if err := trial.SetParams(pairs...); err != nil {
		s.cfgMu.Unlock()
		c.w.Error(err.Error())
		return
	}
	old := *s.cfg
	*s.cfg = *trial
	s.applyTunables(trial.Tunables)
	s.applyReadLimits(trial)
	s.cfgMu.Unlock()
	if trial.Replication.BacklogBytes != old.Replication.BacklogBytes {
		s.repl.ResizeBacklogs()
	}
	if trial.MinReplicasToWrite != old.MinReplicasToWrite || trial.MinReplicasMaxLag != old.MinReplicasMaxLag {
		// The next write already sees the new rule, as in Redis, rather
		// than the gates' next tick.
		s.checkGates()
	}
	if trial.Auth != old.Auth {
		// requirepass sets the default user's only password, as in Redis.
		rules := []string{"resetpass", "nopass"}
		if trial.Auth != "" {
			rules = []string{"resetpass", ">" + trial.Auth}
		}
		if err := s.acl.SetUser("default", rules...); err != nil {
			c.w.Error("ERR " + err.Error())
			return
		}
	}
	s.log.Info("configuration changed", "by", c.id, "args", len(args)/2-1)
	if (trial.MaxMemory != old.MaxMemory || trial.MaxMemoryPolicy != old.MaxMemoryPolicy) && len(c.locked) == 0 {
		// A limit set below what the node uses, or an evicting policy
		// set while over it, evicts at once, as Redis evicts before its
		// next command, whatever it is; the writes that follow evict
		// the rest (checkMemory). Inside EXEC or a script the shards
		// are held: the next write evicts.
		c.unlockBatch()
		if max := s.maxMemory(); max > 0 && s.memoryEstimate() > max {
			s.freeMemory(max)
		}
	}
	c.w.OK()
}

func cmdConfigResetStat(c *conn, args [][]byte) {
	s := c.srv
	s.stats.commands.Store(0)
	s.stats.connections.Store(0)
	s.stats.rejected.Store(0)
	s.stats.netInput.Store(0)
	s.stats.netOutput.Store(0)
	s.stats.errorReplies.Store(0)
	s.errStats.reset()
	if !c.withEveryShard(func(sh *shard.Shard) { sh.DB().Stats = keyspace.Stats{} }) {
		return
	}
	s.latTrack.reset()
	c.w.OK()
}

// cmdConfigRewrite writes the values CONFIG SET changed into the --config
// file, as Redis does with redis.conf (config.Rewrite).
func cmdConfigRewrite(c *conn, args [][]byte) {
	s := c.srv
	s.cfgMu.RLock()
	cur := s.cfg.Clone()
	s.cfgMu.RUnlock()
	changed, err := config.Rewrite(cur.File, cur)
	if err != nil {
		s.log.Warn("CONFIG REWRITE failed", "file", cur.File, "err", err)
		c.w.Error(err.Error())
		return
	}
	s.log.Info("configuration file rewritten", "file", cur.File, "keys", changed)
	c.w.OK()
}

func cmdConfigHelp(c *conn, args [][]byte) {
	writeHelp(c, "CONFIG",
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"REWRITE", "    Rewrite the configuration file.")
}

func cmdTime(c *conn, args [][]byte) {
	now := clock.Default.Now()
	c.w.Array(2)
	c.w.BulkString(strconv.FormatInt(now.Unix(), 10))
	c.w.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

// cmdShutdown stops the node: the log is synced and closed; the snapshot
// profile writes a final snapshot unless NOSAVE. ABORT has nothing to
// abort.
func cmdShutdown(c *conn, args [][]byte) {
	var nosave, save, force, now, abort bool
	for _, a := range args[1:] {
		switch {
		case command.Eq(a, "nosave"):
			nosave = true
		case command.Eq(a, "save"):
			save = true
		case command.Eq(a, "now"):
			now = true
		case command.Eq(a, "force"):
			force = true
		case command.Eq(a, "abort"):
			abort = true
		default:
			c.w.Error(command.ErrSyntax)
			return
		}
	}
	// As Redis: ABORT takes no other flag, SAVE and NOSAVE exclude each
	// other, and a SHUTDOWN refused changes nothing.
	if (abort && (nosave || save || force || now)) || (nosave && save) {
		c.w.Error(command.ErrSyntax)
		return
	}
	if abort {
		c.w.Error("ERR No shutdown in progress.")
		return
	}
	if !nosave {
		// A script past busy-reply-threshold lets only SHUTDOWN NOSAVE
		// through, as in Redis.
		if busy := c.srv.busyRuns(); len(busy) > 0 {
			c.w.Error(busy[0].busyError())
			return
		}
	}
	if save && !force && c.srv.Config().Durability == config.DurabilityMemory {
		// Redis refuses to stop when it cannot save as asked; FORCE
		// stops anyway.
		c.srv.log.Warn("SHUTDOWN SAVE refused: durability memory keeps no files", "client", c.id)
		c.w.Error("ERR Errors trying to SHUTDOWN. Check logs.")
		return
	}
	if nosave {
		c.srv.noSave.Store(true)
	}
	c.srv.log.Info("SHUTDOWN requested", "client", c.id, "addr", c.raddr.String())
	c.closeAfter = true
	go c.srv.Shutdown(context.Background())
}

func cmdRuvioVersion(c *conn, args [][]byte) {
	c.w.Map(2)
	c.w.BulkString("redis_version")
	c.w.BulkString(Version)
	c.w.BulkString("shards")
	c.w.Int(int64(len(c.srv.shards)))
}

func cmdRuvioHelp(c *conn, args [][]byte) {
	writeHelp(c, "RUVIO", "VERSION", "    Return the Redis version claimed and the number of shards.",
		"DETACH", "    Stop following the primary on every shard, staying a read-only replica without a new epoch.",
		"DIGEST", "    Return a hex digest of every key, type, value and expiry on the node, like DEBUG DIGEST.",
		"TOPOLOGY SET <line> [<line> ...]", "    Install a newer cluster map (the coordinators send it); return the version served.",
		"TOPOLOGY GET", "    Return the cluster map served, or nil without one.",
		"TOPOLOGY VERSION", "    Return the cluster map's version (0 without one).",
		"MIGRATE IMPORT <id> <first> <last> <source>", "    Expect the slots on this port's shard from the source (a slot move's target).",
		"MIGRATE EXPORT <id> <first> <last> <target>", "    Send the slots of this port's shard to the target (a slot move's source).",
		"MIGRATE REPLICAS <id> [<timeout-ms>]", "    Wait until this shard's replicas hold what the move brought.",
		"MIGRATE CANCEL <id>", "    End the move on this node before its hand-over.",
		"MIGRATE STATUS <id>", "    Return the move's state, keys, bytes and error.")
}

// cmdRuvioDigest answers a digest of the node's data that is equal on two
// nodes exactly when they hold the same keys, values and expiry times,
// so a replica can be compared with its primary.
func cmdRuvioDigest(c *conn, args [][]byte) {
	var out [20]byte
	if !c.withEveryShard(func(sh *shard.Shard) {
		d := sh.DB().Digest()
		for i := range out {
			out[i] ^= d[i]
		}
	}) {
		return
	}
	c.w.BulkString(hex.EncodeToString(out[:]))
}

func cmdDBSize(c *conn, args [][]byte) {
	total := 0
	for _, sh := range c.srv.shards {
		if !c.withShard(sh, func() { total += sh.DB().Len() }) {
			return
		}
	}
	c.w.Int(int64(total))
}

func cmdFlush(c *conn, args [][]byte) {
	if len(args) > 2 || (len(args) == 2 && !command.Eq(args[1], "async") && !command.Eq(args[1], "sync")) {
		c.w.Error(command.ErrSyntax)
		return
	}
	if !c.withEveryShard(func(sh *shard.Shard) {
		sh.DB().Flush()
		c.notePending(sh, sh.AppendLocked([][][]byte{{[]byte("FLUSHALL")}}))
	}) {
		return
	}
	// Every blocked client looks at its keys again: a blocked XREADGROUP
	// learns its stream is gone, as in Redis; the others wait on.
	c.srv.wakeBlocked()
	// Inside EXEC or a script the shards are still held: collect in the
	// background rather than with them held.
	c.srv.collectAfterFlush(len(args) == 2 && command.Eq(args[1], "async") || len(c.locked) > 0)
	if command.Eq(args[0], "flushall") && c.srv.savesOnFlush() {
		if len(c.locked) == 0 {
			c.srv.saveAfterFlush()
		} else {
			// Inside EXEC or a script the shards are held: the
			// snapshot is taken once they are released, and the
			// reply does not wait for it.
			go c.srv.saveAfterFlush()
		}
	}
	c.w.OK()
}

// savesOnFlush reports whether FLUSHALL snapshots the shards, as Redis
// saves its RDB on FLUSHALL (not FLUSHDB) when it has save points: in the
// snapshot profile with save rules. Without it a crash before the next snapshot
// would bring the flushed keys back. The WAL profiles log the flush.
func (s *Server) savesOnFlush() bool {
	cfg := s.Config()
	if cfg.Durability != config.DurabilitySnapshot {
		return false
	}
	rules, _ := config.ParseSaveRules(cfg.Save)
	return len(rules) > 0
}

// saveAfterFlush snapshots every shard, after a snapshot in progress
// (which holds the keys from before the flush), and waits for them.
func (s *Server) saveAfterFlush() {
	done := make(chan error, len(s.shards))
	for _, sh := range s.shards {
		if err := sh.SnapshotNow(done); err != nil {
			done <- err
		}
	}
	for range s.shards {
		if err := <-done; err != nil {
			s.log.Error("snapshot after FLUSHALL failed", "err", err)
		}
	}
}

func cmdKeys(c *conn, args [][]byte) {
	var keys []string
	pat := args[1]
	all := len(pat) == 1 && pat[0] == '*'
	for _, sh := range c.srv.shards {
		if !c.withShard(sh, func() {
			sh.DB().Each(func(k string, _ *keyspace.Entry) bool {
				if all || glob.Match(pat, []byte(k)) {
					keys = append(keys, k)
				}
				return true
			})
		}) {
			return
		}
	}
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

// cmdScan walks the node's slots in order: the cursor is the next slot to
// visit, so a key present for the whole iteration is returned exactly once
// per slot visit (at least once, as Redis promises), across every shard.
func cmdScan(c *conn, args [][]byte) {
	// Read as Redis reads it (strtoul): "-1" is the largest cursor,
	// past every slot.
	cur, ok := scan.ParseCursor(args[1])
	if !ok {
		c.w.Error(scan.ErrInvalidCursor)
		return
	}
	count := int64(10)
	var match []byte
	typ := ""
	for i := 2; i < len(args); i++ {
		switch {
		case command.Eq(args[i], "count") && i+1 < len(args):
			n, ok := command.ParseInt(args[i+1])
			if !ok {
				c.w.Error(command.ErrNotInteger)
				return
			}
			if n < 1 {
				c.w.Error(command.ErrSyntax)
				return
			}
			count = n
			i++
		case command.Eq(args[i], "match") && i+1 < len(args):
			match = args[i+1]
			if len(match) == 1 && match[0] == '*' {
				// Matches everything, the empty key included (a glob "*"
				// does not match "").
				match = nil
			}
			i++
		case command.Eq(args[i], "type") && i+1 < len(args):
			typ = strings.ToLower(string(args[i+1]))
			i++
		default:
			c.w.Error(command.ErrSyntax)
			return
		}
	}
	var keys []string
	slot := int(min(cur, slots.Count))
	for slot < slots.Count && int64(len(keys)) < count {
		sh, own := c.srv.slotShard(slot)
		if !own {
			slot++ // another group's slot: its keys are not here
			continue
		}
		if !c.withShard(sh, func() {
			// Visit the following slots of this shard while the count
			// is not met, without releasing the lock per slot.
			for ; slot < slots.Count && int64(len(keys)) < count; slot++ {
				if next, own := c.srv.slotShard(slot); !own || next != sh {
					break
				}
				sh.DB().ScanSlotRemovingExpired(slot, func(k string, e *keyspace.Entry) {
					if match != nil && !glob.Match(match, []byte(k)) {
						return
					}
					if typ != "" && keycmd.TypeName(e.Val) != typ {
						return
					}
					keys = append(keys, k)
				})
			}
		}) {
			return
		}
	}
	next := uint64(slot)
	if slot >= slots.Count {
		next = 0
	}
	c.w.Array(2)
	c.w.BulkString(strconv.FormatUint(next, 10))
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

func cmdRandomKey(c *conn, args [][]byte) {
	n := len(c.srv.shards)
	start := int(clock.NowMs() % int64(n))
	for i := 0; i < n; i++ {
		sh := c.srv.shards[(start+i)%n]
		var key string
		var found bool
		if !c.withShard(sh, func() { key, found = sh.DB().RandomKey() }) {
			return
		}
		if found {
			c.w.BulkString(key)
			return
		}
	}
	c.w.Null()
}

// atoi is C's atoi: optional blanks and sign, then as many digits as
// there are; 0 when there are none.
func atoi(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}
