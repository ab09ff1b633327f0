package server

import (
	"runtime"
	"time"

	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// Taking a shard's lock for a client's command.
//
// A command checks for a busy script before it runs (busyRefusal), but a
// script may take the shard's lock between that check and the command's
// own lock. A command that then waited inside the lock would wait for the
// whole script, and on an event loop so would every connection of the
// loop, the one sending SCRIPT KILL included. So commands take shard
// locks with shard.LockShort, which does not wait for a script (the
// script announces itself first, shard.LockLong), and wait here instead,
// as busyRefusal waits: until the script ends, and then they run, or until
// it passes busy-reply-threshold, and then they get BUSY.

// lockShard takes sh's lock for c's command, or returns the BUSY error of
// the script that holds it, without the lock.
func (c *conn) lockShard(sh *shard.Shard) string {
	for try := 0; !sh.LockShort(); try++ {
		if msg := c.srv.waitForScript(sh, try); msg != "" {
			return msg
		}
	}
	return ""
}

// lockShards takes the locks of shs, in the order given (the shards'
// order, as EXEC takes them), or none of them and returns the BUSY error
// of a script holding one. It holds none while it waits for a script.
func (c *conn) lockShards(shs []*shard.Shard) string {
	try := 0
	for i := 0; i < len(shs); i++ {
		if shs[i].LockShort() {
			continue
		}
		for _, h := range shs[:i] {
			h.Unlock()
		}
		if msg := c.srv.waitForScript(shs[i], try); msg != "" {
			return msg
		}
		try++
		i = -1
	}
	return ""
}

// waitForScript waits for the script that holds sh's lock, or announced
// it will, to end or to pass busy-reply-threshold, and returns its BUSY
// error in the second case; "" means the caller tries the lock again. try
// counts the earlier calls for the same lock.
func (s *Server) waitForScript(sh *shard.Shard, try int) string {
	r := s.scriptsReady().running[sh.ID].Load()
	if r == nil {
		// The script is taking the lock (the commands already waiting
		// for it go first), or has just let it go.
		if try < 64 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
		return ""
	}
	if !r.settle(s.tickStop) {
		// Shutting down stops the script; it lets go soon.
		time.Sleep(time.Millisecond)
		return ""
	}
	if r.isBusy() {
		return r.busyError()
	}
	return ""
}

// withShard runs fn with sh locked, unless EXEC already holds its lock.
// When a script busy on sh refuses the command, it answers BUSY instead
// and returns false: the caller writes nothing more.
func (c *conn) withShard(sh *shard.Shard, fn func()) bool {
	if heldBy(c.locked, sh) {
		fn()
		return true
	}
	if msg := c.lockShard(sh); msg != "" {
		c.fail(msg)
		return false
	}
	defer func() {
		// What fn left to notify (a key SCAN or RANDOMKEY found expired)
		// is sent before the reply, as Redis sends it.
		sh.PublishNotesLocked()
		sh.Unlock()
	}()
	fn()
	return true
}

// withEveryShard runs fn on every shard of the node with all their locks
// held at once (EXEC's, or taken here), so a command that changes every
// shard changes all of them or, answering BUSY and returning false, none.
func (c *conn) withEveryShard(fn func(sh *shard.Shard)) bool {
	return c.withAllShards(func() {
		for _, sh := range c.srv.shards {
			fn(sh)
		}
	})
}

// withAllShards runs fn once with every shard's lock held, as
// withEveryShard does.
func (c *conn) withAllShards(fn func()) bool {
	var take []*shard.Shard
	for _, sh := range c.srv.shards {
		if !heldBy(c.locked, sh) {
			take = append(take, sh)
		}
	}
	if msg := c.lockShards(take); msg != "" {
		c.fail(msg)
		return false
	}
	fn()
	for _, sh := range take {
		sh.PublishNotesLocked()
		sh.Unlock()
	}
	return true
}

// shardCounts are the keyspace's counters summed over the node's shards:
// its keys, those with a time to live, and INFO stats' counters.
type shardCounts struct {
	keys, expires int
	stats         keyspace.Stats
}

// shardCounts sums the counters in one pass under the shards' locks
// (EXEC's, or taken here); false after answering BUSY.
func (c *conn) shardCounts() (n shardCounts, ok bool) {
	ok = c.withEveryShard(func(sh *shard.Shard) {
		k, e := sh.KeyCountLocked()
		n.keys += k
		n.expires += e
		st := &sh.DB().Stats
		n.stats.ExpiredKeys += st.ExpiredKeys
		n.stats.EvictedKeys += st.EvictedKeys
		n.stats.KeyspaceHits += st.KeyspaceHits
		n.stats.KeyspaceMisses += st.KeyspaceMisses
	})
	return n, ok
}
