package server

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// Durable replies (CLIENT DURABILITY, WAIT). A connection remembers, per
// shard, the newest record its commands appended or could have seen
// (conn.seen). With CLIENT DURABILITY REPLICAS k on, every reply is held
// until k replicas acknowledged that record on disk (their
// wal_durable_sequence), reads included, so the connection never shows a
// write a failover could take back. A reply whose wait runs out
// becomes NOREPLICAS; the write stays applied, and every later reply
// waits for the same records again until a replica has them.

// DefaultDurabilityTimeout is the wait before a durable reply becomes
// NOREPLICAS.
const DefaultDurabilityTimeout = 5000 * time.Millisecond

// durability is a connection's CLIENT DURABILITY setting.
type durability struct {
	replicas int // 0: off
	timeout  time.Duration
}

// heldReply is a reply buffered while durability is on: where its bytes
// start in the writer and the records it waits for.
type heldReply struct {
	start int
	need  []uint64
	at    time.Time
}

// noteSeen records that the connection's command appended or could see
// record seq of sh.
func (c *conn) noteSeen(sh *shard.Shard, seq uint64) {
	if seq > c.seen[sh.ID] {
		c.seen[sh.ID] = seq
	}
}

// holdReply notes the reply the command just written (starting at start)
// when durability is on.
func (c *conn) holdReply(start int) {
	if c.dur.replicas == 0 {
		return
	}
	c.held = append(c.held, heldReply{start: start, need: append([]uint64(nil), c.seen...), at: time.Now()})
}

// releaseHeld waits until the held replies' records are on enough
// replicas, or the first one's timeout, and replaces the replies that
// were not covered by NOREPLICAS. Covered replies raise the shards'
// replication_committed_sequence.
func (c *conn) releaseHeld() {
	if len(c.held) == 0 {
		return
	}
	k := c.dur.replicas
	last := c.held[len(c.held)-1].need
	covered := len(c.held)
	if !c.srv.repl.WaitReplicas(last, k, c.heldDeadline(), c.closedCh()) {
		covered = 0
		for covered < len(c.held) && c.srv.repl.Holding(c.held[covered].need) >= k {
			covered++
		}
	}
	if covered > 0 {
		c.srv.repl.Commit(c.held[covered-1].need)
	}
	if covered < len(c.held) {
		c.w.Truncate(c.held[covered].start)
		msg := fmt.Sprintf("NOREPLICAS Not enough replicas hold this connection's writes on disk within %d ms (CLIENT DURABILITY REPLICAS %d); the writes stay applied.",
			c.dur.timeout.Milliseconds(), k)
		for range c.held[covered:] {
			c.w.Error(msg)
		}
		if m := c.srv.metrics; m != nil {
			m.refused[refusedDurability].Add(uint64(len(c.held) - covered))
		}
	}
	c.held = c.held[:0]
}

// heldDeadline is when the first held reply's wait runs out and the
// replies not covered by then become NOREPLICAS; zero when nothing is held
// or the timeout is 0 (no limit).
func (c *conn) heldDeadline() time.Time {
	if len(c.held) == 0 || c.dur.timeout <= 0 {
		return time.Time{}
	}
	return c.held[0].at.Add(c.dur.timeout)
}

// closedCh is closed when the server shuts down, so a held reply does not
// keep a shutdown waiting.
func (c *conn) closedCh() <-chan struct{} { return c.srv.tickStop }

// waitDurable blocks until every write the connection made is as safe as
// its shard's profile promises.
func (c *conn) waitDurable() error {
	for i, seq := range c.pending {
		if seq == 0 {
			continue
		}
		c.pending[i] = 0
		if err := c.srv.shards[i].WaitSafe(context.Background(), seq); err != nil {
			return err
		}
	}
	c.anyPending = false
	return nil
}

// cmdClientDurability: CLIENT DURABILITY REPLICAS k [TIMEOUT ms] | OFF |
// GET (or no argument): the setting, as replicas and timeout.
func cmdClientDurability(c *conn, args [][]byte) {
	rest := args[2:]
	switch {
	case len(rest) == 0 || (len(rest) == 1 && command.Eq(rest[0], "get")):
		c.w.Map(2)
		c.w.BulkString("replicas")
		c.w.Int(int64(c.dur.replicas))
		c.w.BulkString("timeout")
		c.w.Int(c.dur.timeout.Milliseconds())
		return
	case len(rest) == 1 && command.Eq(rest[0], "off"):
		c.releaseHeld()
		c.dur = durability{timeout: DefaultDurabilityTimeout}
		c.w.OK()
		return
	case len(rest) != 2 && len(rest) != 4, !command.Eq(rest[0], "replicas"):
		c.w.Error(command.ErrSyntax)
		return
	}
	k, ok := command.ParseInt(rest[1])
	if !ok || k < 0 || k > 1000 {
		c.w.Error("ERR REPLICAS must be an integer between 0 and 1000")
		return
	}
	timeout := DefaultDurabilityTimeout
	if len(rest) == 4 {
		ms, ok := command.ParseInt(rest[3])
		if !command.Eq(rest[2], "timeout") {
			c.w.Error(command.ErrSyntax)
			return
		}
		if !ok || ms < 0 {
			c.w.Error("ERR timeout is not an integer or out of range")
			return
		}
		timeout = time.Duration(min(ms, maxWaitMs)) * time.Millisecond
	}
	if c.srv.repl.Role() == replication.Replica && k > 0 && c.srv.cluster.view.Load() == nil {
		// With a cluster map a replica takes the setting: it sends every
		// command on its slots to the primary with MOVED (replicaMoved),
		// so a cluster client that connects to a node a switchover made
		// a replica finds the primary as it would for any write.
		c.w.Error("ERR CLIENT DURABILITY cannot be used with replica instances: connect to the primary")
		return
	}
	c.releaseHeld()
	c.dur = durability{replicas: int(k), timeout: timeout}
	c.w.OK()
}

// cmdWait: WAIT numreplicas timeout, Redis's command: block until
// numreplicas replicas hold this connection's writes on disk, or timeout
// ms (0: no limit); answer how many do.
func cmdWait(c *conn, args [][]byte) {
	if c.srv.repl.Role() == replication.Replica {
		c.w.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	k, ok := command.ParseInt(args[1])
	ms, ok2 := command.ParseInt(args[2])
	if !ok || !ok2 {
		c.w.Error(command.ErrNotInteger)
		return
	}
	if ms < 0 {
		c.w.Error(command.ErrTimeoutNegative)
		return
	}
	need := append([]uint64(nil), c.seen...)
	count := func() int {
		if n := c.srv.repl.Holding(need); n >= 0 {
			return n
		}
		return c.srv.repl.Shard(c.shard.ID).HoldingOn(0) // nothing written: every streaming replica
	}
	// Inside EXEC WAIT does not block, as in Redis: it answers how many
	// replicas hold the writes already.
	if k > 0 && count() < int(k) && c.locked == nil {
		deadline := waitDeadline(ms)
		// Replies before WAIT go out first, as Redis sends them before
		// blocking the client.
		if !c.flush() {
			return
		}
		c.srv.repl.WaitReplicasCount(need, int(k), deadline, c.closedCh(), count)
	}
	n := count()
	if n >= int(k) && n > 0 {
		c.srv.repl.Commit(need)
	}
	c.w.Int(int64(n))
}

// String renders the setting for CLIENT LIST and CLIENT INFO.
func (d durability) String() string {
	if d.replicas == 0 {
		return "off"
	}
	return "replicas:" + strconv.Itoa(d.replicas) + ":" + strconv.FormatInt(d.timeout.Milliseconds(), 10) + "ms"
}
