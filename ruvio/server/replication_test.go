package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// A replica copies every type,
// TTLs included, answers reads, refuses writes, and both sides answer ROLE
// and INFO replication in Redis's shapes on every shard port.
func TestReplicaMatchesPrimaryAfterMixedWorkload(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 2, asPrimary).start()
	mixedWrites(t, p, "before:", 700) // before the replica exists: a copy from the log
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	mixedWrites(t, p, "during:", 700)
	caughtUp(t, p, r)

	rc := r.client(1)
	if v, err := rc.Get(ctx, "before:0").Result(); err != nil || v != "0" {
		t.Fatalf("read on the replica: %q %v", v, err)
	}
	if ttl := rc.TTL(ctx, "during:1").Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("TTL on the replica: %v", ttl)
	}
	if err := rc.Set(ctx, "x", 1, 0).Err(); err == nil || err.Error() != repl.ErrReadOnly {
		t.Fatalf("write on a replica: %v", err)
	}
	for i := 0; i < 2; i++ {
		role := r.client(i).Do(ctx, "ROLE").Val().([]any)
		if role[0] != "slave" || role[3] != "connected" || fmt.Sprint(role[2]) != strings.Split(p.replAddr(), ":")[1] {
			t.Fatalf("replica shard %d ROLE = %v", i, role)
		}
		prole := p.client(i).Do(ctx, "ROLE").Val().([]any)
		reps := prole[2].([]any)
		if prole[0] != "master" || len(reps) != 1 {
			t.Fatalf("primary shard %d ROLE = %v", i, prole)
		}
		// The replica is listed under the client address it announces:
		// its own shard 0 port.
		want := fmt.Sprintf("ip=127.0.0.1,port=%d,state=online", r.cfg.Port)
		if got := p.info(i)["slave0"]; !strings.HasPrefix(got, want) {
			t.Fatalf("primary shard %d slave0 = %q, want prefix %q", i, got, want)
		}
		info := r.info(i)
		if info["role"] != "slave" || info["master_sync_in_progress"] != "0" || info["full_copies"] != "0" {
			t.Fatalf("replica shard %d INFO: %v", i, info)
		}
	}
}

// A replica that was down continues from
// its own log on every shard, without a full copy, and reads as the
// primary does afterwards.
func TestRestartedReplicaContinuesFromItsLog(t *testing.T) {
	p := newNode(t, "primary", 3, asPrimary).start()
	r := newNode(t, "replica", 3, asReplicaOf(p)).start()
	mixedWrites(t, p, "a:", 300)
	caughtUp(t, p, r)
	r.stop()
	mixedWrites(t, p, "b:", 300)
	r.start()
	caughtUp(t, p, r)
	for i := 0; i < 3; i++ {
		if got := r.info(i)["full_copies"]; got != "0" {
			t.Fatalf("shard %d took %s full copies", i, got)
		}
	}
}

// An old primary that took writes after a replica was
// promoted takes a full copy when made a replica, and ends identical: its
// divergent writes are gone.
func TestOldPrimaryThatWroteAfterTheForkTakesAFullCopy(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 2, asPrimary).start()
	b := newNode(t, "b", 2, asReplicaOf(a)).start()
	mixedWrites(t, a, "shared:", 200)
	caughtUp(t, a, b)
	epochBefore := b.info(0)["epoch"]
	b.do("REPLICAOF", "NO", "ONE")
	if b.info(0)["epoch"] == epochBefore || b.info(1)["epoch"] != b.info(0)["epoch"] {
		t.Fatalf("REPLICAOF NO ONE did not start a new epoch on every shard: %v -> %v / %v", epochBefore, b.info(0)["epoch"], b.info(1)["epoch"])
	}
	a.do("SET", "divergent", "lost") // the old primary still takes writes
	b.do("SET", "after-promotion", "kept")
	host, port, _ := net.SplitHostPort(b.replAddr())
	a.do("REPLICAOF", host, port)
	caughtUp(t, b, a)
	ac := a.client(0)
	if n := ac.Exists(ctx, "divergent").Val(); n != 0 {
		t.Fatal("the divergent write survived")
	}
	if v := ac.Get(ctx, "after-promotion").Val(); v != "kept" {
		t.Fatalf("after-promotion = %q", v)
	}
	full := 0
	for i := 0; i < 2; i++ {
		if a.info(i)["full_copies"] != "0" {
			full++
		}
	}
	// Only the shard that took the divergent write had to be copied.
	if full != 1 {
		t.Fatalf("%d shards took a full copy, want 1", full)
	}
}

// An old primary that wrote nothing after the fork continues
// from its own log.
func TestOldPrimaryThatWroteNothingContinues(t *testing.T) {
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	mixedWrites(t, a, "k:", 100)
	caughtUp(t, a, b)
	b.do("REPLICAOF", "NO", "ONE")
	mixedWrites(t, b, "new:", 50)
	host, port, _ := net.SplitHostPort(b.replAddr())
	a.do("REPLICAOF", host, port)
	caughtUp(t, b, a)
	if got := a.info(0)["full_copies"]; got != "0" {
		t.Fatalf("full copies = %s, want 0", got)
	}
}

// A replica of a newer epoch fences an old
// primary it connects to (and refuses to follow it); YIELD follows anyway
// without fencing; REPLICAOF NO ONE gives the fenced node a new epoch.
func TestEpochFencingAndYield(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	c := newNode(t, "c", 1, asReplicaOf(a)).start()
	a.do("SET", "k", "1")
	caughtUp(t, a, b)
	caughtUp(t, a, c)
	b.do("REPLICAOF", "NO", "ONE") // b: epoch 2
	host, port, _ := net.SplitHostPort(a.replAddr())

	// YIELD: b follows the older a and a keeps taking writes.
	b.do("REPLICAOF", host, port, "YIELD")
	caughtUp(t, a, b)
	if err := a.client(0).Set(ctx, "still", "writable", 0).Err(); err != nil {
		t.Fatalf("YIELD fenced the primary: %v", err)
	}
	if b.info(0)["full_copies"] == "0" {
		t.Fatal("a replica that forked its own epoch continued instead of taking a full copy")
	}

	// Without YIELD: c forks epoch 2 of its own, then is pointed back.
	c.do("REPLICAOF", "NO", "ONE")
	c.do("REPLICAOF", host, port)
	poll.Until(t, 10*time.Second, "the old primary to be fenced", func() bool {
		return a.info(0)["replication_fenced_by_epoch"] != "0"
	})
	err := a.client(0).Set(ctx, "k", "2", 0).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY This primary was replaced") {
		t.Fatalf("write on a fenced primary: %v", err)
	}
	if v := a.client(0).Get(ctx, "k").Val(); v != "1" {
		t.Fatalf("reads on a fenced primary: %q", v)
	}
	poll.Until(t, 10*time.Second, "the replica to report the refusal", func() bool {
		return strings.Contains(c.info(0)["master_link_error"], "FENCED")
	})
	if c.info(0)["master_link_status"] != "down" {
		t.Fatal("the newer replica follows the older primary")
	}
	a.do("REPLICAOF", "NO", "ONE")
	if err := a.client(0).Set(ctx, "k", "3", 0).Err(); err != nil {
		t.Fatalf("after REPLICAOF NO ONE: %v", err)
	}
}

// A replica of a replica is refused at once, with a clear error.
func TestChainsAreRefused(t *testing.T) {
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	c := newNode(t, "c", 1, nil).start()
	waitPort(t, b.replAddr())
	host, port, _ := net.SplitHostPort(b.replAddr())
	_, err := c.client(0).Do(context.Background(), "REPLICAOF", host, port).Result()
	if err == nil || !strings.Contains(err.Error(), "chain") {
		t.Fatalf("REPLICAOF a replica: %v", err)
	}
	if c.info(0)["role"] != "master" {
		t.Fatal("the refused REPLICAOF changed the role")
	}
}

// A replica speaking another handshake version is
// refused with a clear error; the primary keeps working.
func TestHandshakeVersionMismatchIsRefused(t *testing.T) {
	a := newNode(t, "a", 1, asPrimary).start()
	nc, err := net.Dial("tcp", a.replAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	w := resp.NewWriter(nc)
	args := repl.RSyncArgs(repl.Handshake{Proto: 99, Shard: 0, Shards: 1, RunID: "id", Announce: "127.0.0.1:1",
		Replica: repl.Replica{History: []repl.EpochStart{{Epoch: 1, FirstSeq: 1}}}})
	w.Array(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
	w.Flush()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "-ERR replication handshake version mismatch") {
		t.Fatalf("reply %q %v", line, err)
	}
	a.do("SET", "k", "v")
}

// min-replicas-to-write set on one shard's
// port refuses writes on every shard while too few replicas acknowledge;
// reads go on; writes resume when a replica is back.
func TestMinReplicasToWrite(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 2, asPrimary).start()
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	p.do("SET", "k", "v")
	caughtUp(t, p, r)
	pc := p.client(1)
	if err := pc.ConfigSet(ctx, "min-replicas-to-write", "2").Err(); err != nil {
		t.Fatal(err)
	}
	pc.ConfigSet(ctx, "min-replicas-max-lag", "1")
	refused := func() bool {
		err := p.client(0).Set(ctx, "k2", "v", 0).Err()
		return err != nil && err.Error() == repl.ErrNoReplicas
	}
	poll.Until(t, 5*time.Second, "NOREPLICAS with fewer replicas than required", refused)
	if v := p.client(0).Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("reads under NOREPLICAS: %q", v)
	}
	pc.ConfigSet(ctx, "min-replicas-to-write", "1")
	poll.Until(t, 5*time.Second, "writes with enough replicas", func() bool { return !refused() })
	r.stop()
	poll.Until(t, 5*time.Second, "NOREPLICAS once the replica stopped acknowledging", refused)
	r.start()
	poll.Until(t, 10*time.Second, "writes once the replica is back", func() bool { return !refused() })
}

// While a shard loads a full copy, data commands answer
// LOADING and INFO, ROLE and PING-like admin commands still work.
func TestLoadingAnswersLoading(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "n", 2, nil).start()
	n.srv.repl.Shard(1).SetLoading(true)
	c := n.client(0)
	if err := c.Get(ctx, "k").Err(); err == nil || err.Error() != repl.ErrLoading {
		t.Fatalf("GET while loading: %v", err)
	}
	if err := c.Do(ctx, "ROLE").Err(); err != nil {
		t.Fatalf("ROLE while loading: %v", err)
	}
	if !strings.Contains(c.Info(ctx, "persistence").Val(), "loading:1") {
		t.Fatal("INFO persistence does not say loading")
	}
	n.srv.repl.Shard(1).SetLoading(false)
	if err := c.Get(ctx, "k").Err(); err == nil || err.Error() != "redis: nil" {
		t.Fatalf("GET after loading: %v", err)
	}
}

// A memory-profile replica that restarts empty is brought back from the
// primary's backlog or a full copy, and matches it.
func TestMemoryProfileReplicaRestart(t *testing.T) {
	mem := func(c *config.Config) { c.Durability = config.DurabilityMemory }
	p := newNode(t, "primary", 1, func(c *config.Config) { mem(c); asPrimary(c) }).start()
	r := newNode(t, "replica", 1, func(c *config.Config) { mem(c); asReplicaOf(p)(c) }).start()
	mixedWrites(t, p, "m:", 200)
	caughtUp(t, p, r)
	r.stop()
	mixedWrites(t, p, "n:", 200)
	r.start()
	caughtUp(t, p, r)
}

// A full copy is streamed while writes go on: a
// replica that joins after the primary dropped the start of its log (a
// snapshot replaced it) and outgrew its backlog takes a full copy while a
// writer keeps writing, then continues from the log and matches.
func TestFullCopyWhileWritesGoOn(t *testing.T) {
	ctx := context.Background()
	small := func(c *config.Config) {
		asPrimary(c)
		c.WALSegmentBytes = 4 * config.KB
		c.WALSnapshotBytes = 16 * config.KB
		c.Replication.BacklogBytes = 16 * config.KB
	}
	p := newNode(t, "primary", 2, small).start()
	mixedWrites(t, p, "old:", 3000)
	poll.Until(t, 10*time.Second, "the primary to drop the start of its log", func() bool {
		return p.info(0)["wal_first_sequence"] != "1" && p.info(1)["wal_first_sequence"] != "1"
	})
	stop := make(chan struct{})
	done := make(chan int)
	var written atomic.Int64
	go func() {
		c := p.client(0)
		n := 0
		for {
			select {
			case <-stop:
				done <- n
				return
			default:
			}
			if err := c.Set(ctx, fmt.Sprintf("live:%d", n), n, 0).Err(); err != nil {
				t.Errorf("write during the copy: %v", err)
			}
			n++
			written.Store(int64(n))
		}
	}()
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	poll.Until(t, 20*time.Second, "the replica to be up on both shards", func() bool {
		return r.info(0)["master_link_status"] == "up" && r.info(1)["master_link_status"] == "up"
	})
	// Writes keep flowing after the copy, through the live stream.
	after := written.Load()
	poll.Until(t, 10*time.Second, "more writes after the copy", func() bool { return written.Load() >= after+200 })
	close(stop)
	n := <-done
	caughtUp(t, p, r)
	if r.info(0)["full_copies"] == "0" || r.info(1)["full_copies"] == "0" {
		t.Fatalf("expected a full copy on each shard: %s / %s", r.info(0)["full_copies"], r.info(1)["full_copies"])
	}
	if v := r.client(0).Get(ctx, fmt.Sprintf("live:%d", n-1)).Val(); v != fmt.Sprint(n-1) {
		t.Fatalf("last live write on the replica: %q", v)
	}
}

// A role change that comes once the node is shutting down (a REPLICAOF
// whose probe of the primary outlasted the start of SHUTDOWN) is
// refused: links started then would outlive the shutdown.
func TestRoleChangesAfterShutdownAreRefused(t *testing.T) {
	p := newNode(t, "p", 1, nil).start()
	r := newNode(t, "r", 1, nil).start()
	s := r.srv
	r.stop()
	if _, err := s.repl.BecomeReplica(p.replAddr(), false); !errors.Is(err, replication.ErrClosing) {
		t.Errorf("BecomeReplica after shutdown: %v, want %v", err, replication.ErrClosing)
	}
	if err := s.repl.BecomePrimary(); !errors.Is(err, replication.ErrClosing) {
		t.Errorf("BecomePrimary after shutdown: %v, want %v", err, replication.ErrClosing)
	}
}
