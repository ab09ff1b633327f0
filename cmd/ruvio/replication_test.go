package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// replInfo reads INFO replication from the port of one shard.
func replInfo(t *testing.T, addr string) map[string]string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	txt, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		return nil
	}
	return infotext.Parse(txt)
}

func shardAddr(p *proc, i int) string { return "127.0.0.1:" + strconv.Itoa(p.port+i) }

func do(t *testing.T, p *proc, args ...any) any {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.addr(), MaxRetries: -1})
	defer c.Close()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, p.logs.String())
	}
	return v
}

// inSync waits until every shard of replica holds the primary's last
// sequence with its link up, then compares the nodes' digests.
func inSync(t *testing.T, primary, replica *proc, shards int) {
	t.Helper()
	for i := 0; i < shards; i++ {
		poll.UntilNil(t, 20*time.Second, fmt.Sprintf("shard %d to catch up", i), func() error {
			p, r := replInfo(t, shardAddr(primary, i)), replInfo(t, shardAddr(replica, i))
			if p != nil && r != nil && p["wal_last_sequence"] == r["wal_last_sequence"] && r["master_link_status"] == "up" {
				return nil
			}
			return fmt.Errorf("primary %v replica %v\nreplica logs:\n%s", p, r, replica.logs.String())
		})
	}
	if a, b := do(t, primary, "RUVIO", "DIGEST"), do(t, replica, "RUVIO", "DIGEST"); a != b {
		t.Fatalf("digests differ: %v %v", a, b)
	}
}

// startPrimary runs a one-shard node with the primary role on a fresh
// data directory.
func startPrimary(t *testing.T) *proc {
	t.Helper()
	return startNodeIn(t, t.TempDir(), []string{"RUVIO_REPLICATION_ROLE=primary",
		"RUVIO_REPLICATION_LISTEN=127.0.0.1:" + strconv.Itoa(freePort(t, 1))})
}

// writeValues sets key:0 .. key:n-1 to values of size bytes, 500 SETs to
// a round trip.
func writeValues(t *testing.T, p *proc, n, size int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.addr(), MaxRetries: -1})
	defer c.Close()
	ctx := context.Background()
	value := strings.Repeat("v", size)
	for i := 0; i < n; i += 500 {
		pipe := c.Pipeline()
		for j := i; j < min(i+500, n); j++ {
			pipe.Set(ctx, "key:"+strconv.Itoa(j), value, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func writeKeys(t *testing.T, p *proc, prefix string, n int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.addr(), MaxRetries: -1})
	defer c.Close()
	for i := 0; i < n; i++ {
		if err := c.Set(context.Background(), prefix+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// Replication with SIGKILL and restarts of real processes: a restarted
// replica continues from its own log on every shard; a manual promotion;
// an old primary restarted with role primary takes writes that are then
// lost; and it takes a full copy when made a replica and ends identical.
func TestReplicationAcrossProcessRestarts(t *testing.T) {
	const shards = 2
	la := "127.0.0.1:" + strconv.Itoa(freePort(t, shards))
	lb := "127.0.0.1:" + strconv.Itoa(freePort(t, shards))
	dirA, dirB := t.TempDir(), t.TempDir()
	envA := []string{"RUVIO_REPLICATION_ROLE=primary", "RUVIO_REPLICATION_LISTEN=" + la}
	envB := []string{"RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + la, "RUVIO_REPLICATION_LISTEN=" + lb}
	args := []string{"--shards", strconv.Itoa(shards), "--durability", "always"}

	a := startNodeIn(t, dirA, envA, args...)
	b := startNodeIn(t, dirB, envB, args...)
	writeKeys(t, a, "one:", 300)
	inSync(t, a, b, shards)

	b.cmd.Process.Signal(syscall.SIGKILL)
	<-b.done
	writeKeys(t, a, "two:", 300)
	b = startNodeIn(t, dirB, envB, args...)
	inSync(t, a, b, shards)
	for i := 0; i < shards; i++ {
		if got := replInfo(t, shardAddr(b, i))["full_copies"]; got != "0" {
			t.Fatalf("shard %d of the restarted replica took %s full copies", i, got)
		}
	}

	a.cmd.Process.Signal(syscall.SIGKILL)
	<-a.done
	do(t, b, "REPLICAOF", "NO", "ONE")
	do(t, b, "SET", "after-failover", "kept")

	// The old primary comes back with its configuration: a primary again,
	// taking writes nobody will keep.
	a = startNodeIn(t, dirA, envA, args...)
	do(t, a, "SET", "split-brain", "lost")
	host, port, _ := net.SplitHostPort(lb)
	do(t, a, "REPLICAOF", host, port)
	inSync(t, b, a, shards)
	if n := do(t, a, "EXISTS", "split-brain"); n != int64(0) {
		t.Fatal("the old primary's divergent write survived")
	}
	if v := do(t, a, "GET", "after-failover"); v != "kept" {
		t.Fatalf("after-failover = %v", v)
	}
	if !strings.Contains(a.logs.String(), "full copy loaded") {
		t.Fatalf("the old primary did not take a full copy:\n%s", a.logs.String())
	}
}

// Nodes that listen for replicas on a non-loopback address must share a
// password; a replica with the wrong one is refused and says why.
func TestReplicationPassword(t *testing.T) {
	la := "0.0.0.0:" + strconv.Itoa(freePort(t, 1))
	lb := "0.0.0.0:" + strconv.Itoa(freePort(t, 1))
	a := startNodeIn(t, t.TempDir(), []string{"RUVIO_REPLICATION_ROLE=primary", "RUVIO_REPLICATION_LISTEN=" + la, "RUVIO_REPLICATION_PASSWORD=s3cret"})
	primary := strings.Replace(la, "0.0.0.0", "127.0.0.1", 1)
	bad := startNodeIn(t, t.TempDir(), []string{"RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + primary,
		"RUVIO_REPLICATION_LISTEN=" + lb, "RUVIO_REPLICATION_PASSWORD=wrong"})
	poll.Until(t, 10*time.Second, "WRONGPASS in master_link_error", func() bool {
		return strings.Contains(replInfo(t, bad.addr())["master_link_error"], "WRONGPASS")
	})
	bad.cmd.Process.Signal(syscall.SIGKILL)
	<-bad.done
	good := startNodeIn(t, t.TempDir(), []string{"RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + primary,
		"RUVIO_REPLICATION_LISTEN=" + lb, "RUVIO_REPLICATION_PASSWORD=s3cret"})
	writeKeys(t, a, "k:", 10)
	inSync(t, a, good, 1)
}

// A primary's backlog reserves its chunks when it is created, but INFO's
// used_memory counts only the part frames were written to, as Redis
// counts only the backlog it holds: after the same writes, a primary uses
// about its backlog's bytes more than a standalone node, not its whole
// reserve.
func TestUsedMemoryCountsTheBacklogHeldNotReserved(t *testing.T) {
	standalone, primary := startNode(t), startPrimary(t)
	used := func(p *proc) int64 {
		t.Helper()
		writeValues(t, p, 10000, 2048)
		// A purge collects and samples again: the live heap alone.
		do(t, p, "MEMORY", "PURGE")
		info, _ := do(t, p, "INFO", "memory").(string)
		n, err := strconv.ParseInt(infotext.Parse(info)["used_memory"], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base, withBacklog := used(standalone), used(primary)
	held, err := strconv.ParseInt(replInfo(t, primary.addr())["repl_backlog_bytes"], 10, 64)
	if err != nil || held < 16<<20 {
		t.Fatalf("the primary's backlog holds %d bytes (%v), want the 20 MB written", held, err)
	}
	if extra := withBacklog - base; extra < held/2 || extra > held*3/2 {
		t.Errorf("used_memory %d on the primary, %d standalone: %d more for a backlog holding %d bytes", withBacklog, base, extra, held)
	}
}

// CONFIG SET repl-backlog-size bounds the backlog at once: a smaller size
// drops its oldest records, as Redis trims its backlog.
func TestConfigSetBacklogSizeTrimsTheBacklog(t *testing.T) {
	primary := startPrimary(t)
	writeValues(t, primary, 2000, 2048)
	backlog := func() (held, first int64) {
		t.Helper()
		info := replInfo(t, primary.addr())
		held, err1 := strconv.ParseInt(info["repl_backlog_bytes"], 10, 64)
		first, err2 := strconv.ParseInt(info["repl_backlog_first_sequence"], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("INFO replication: %v", info)
		}
		return held, first
	}
	before, firstBefore := backlog()
	if before < 4e6 {
		t.Fatalf("the backlog holds %d bytes, want the 4 MB written", before)
	}
	if v := do(t, primary, "CONFIG", "SET", "repl-backlog-size", "1mb"); v != "OK" {
		t.Fatalf("CONFIG SET repl-backlog-size 1mb = %v", v)
	}
	after, firstAfter := backlog()
	if after > 1<<20 || after < 1<<19 || firstAfter <= firstBefore {
		t.Fatalf("after CONFIG SET repl-backlog-size 1mb the backlog holds %d bytes from record %d (before: %d from %d)",
			after, firstAfter, before, firstBefore)
	}
}

// pair is a primary and a replica to start as processes that outlive a
// restart: their data directories, environments (roles and replication
// addresses) and the replica's replication address lr.
type pair struct {
	lr, dirP, dirR string
	envP, envR     []string
}

// refusesAfterLosing waits until primary p reports that it lost n records
// a replica holds, and checks that it then refuses a write and a read.
func refusesAfterLosing(t *testing.T, p *proc, n int) {
	t.Helper()
	count := strconv.Itoa(n)
	poll.Until(t, 20*time.Second, "the primary to see what it lost", func() bool {
		return replInfo(t, shardAddr(p, 0))["replication_lost_records"] == count
	})
	pc := redis.NewClient(&redis.Options{Addr: p.addr(), MaxRetries: -1})
	defer pc.Close()
	if err := pc.Set(context.Background(), "k", "v", 0).Err(); err == nil ||
		!strings.HasPrefix(err.Error(), "READONLY This primary restarted without "+count+" records") {
		t.Fatalf("a write on the primary that lost records: %v", err)
	}
	// Nor does it answer reads from a dataset that lacks what it lost.
	if err := pc.Get(context.Background(), "k").Err(); err == nil ||
		!strings.HasPrefix(err.Error(), "MASTERDOWN This primary restarted without "+count+" records") {
		t.Fatalf("a read on the primary that lost records: %v", err)
	}
	if err := pc.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("PING on the primary that lost records: %v", err)
	}
}

func newPair(t *testing.T) pair {
	lp, lr := "127.0.0.1:"+strconv.Itoa(freePort(t, 1)), "127.0.0.1:"+strconv.Itoa(freePort(t, 1))
	return pair{lr: lr, dirP: t.TempDir(), dirR: t.TempDir(),
		envP: []string{"RUVIO_REPLICATION_ROLE=primary", "RUVIO_REPLICATION_LISTEN=" + lp},
		envR: []string{"RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + lp, "RUVIO_REPLICATION_LISTEN=" + lr}}
}

// A snapshot-profile primary killed after streaming records past its last
// snapshot restarts without them. Its replica, away meanwhile, holds them:
// when it comes back the primary sees it lost records the replica holds
// (the replica's log runs past its own in a stretch of its own history),
// refuses it the full copy that would drop them, and stops taking writes,
// whether or not it wrote since. The replica keeps every record; promoted,
// it gives them back to the old primary with a full copy.
func TestAPrimaryThatLostRecordsStopsRatherThanWipeItsReplica(t *testing.T) {
	pair := newPair(t)
	lr, dirP, dirR, envP, envR := pair.lr, pair.dirP, pair.dirR, pair.envP, pair.envR
	p := startNodeIn(t, dirP, envP, "--durability", "snapshot")
	r := startNodeIn(t, dirR, envR, "--durability", "always")
	writeKeys(t, p, "saved:", 100)
	do(t, p, "SAVE")
	writeKeys(t, p, "lost:", 100)
	inSync(t, p, r, 1)

	r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.done
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p = startNodeIn(t, dirP, envP, "--durability", "snapshot")
	if n := do(t, p, "EXISTS", "lost:0"); n != int64(0) {
		t.Fatal("the records after the snapshot survived the kill: the test shows nothing")
	}
	writeKeys(t, p, "new:", 150) // no replica yet: taken, and lost below
	r = startNodeIn(t, dirR, envR, "--durability", "always")
	refusesAfterLosing(t, p, 100)
	if n := do(t, r, "EXISTS", "lost:99"); n != int64(1) {
		t.Fatal("the replica lost the records its primary lost")
	}
	if f := replInfo(t, shardAddr(r, 0)); !strings.Contains(f["master_link_error"], "LOSTRECORDS") || f["full_copies"] != "0" {
		t.Fatalf("the replica's link: %v", f)
	}

	do(t, r, "REPLICAOF", "NO", "ONE")
	host, port, _ := net.SplitHostPort(lr)
	do(t, p, "REPLICAOF", host, port)
	inSync(t, r, p, 1)
	if n := do(t, p, "EXISTS", "lost:99"); n != int64(1) {
		t.Fatal("the old primary did not get the lost records back")
	}
}

// A memory primary keeps no record across a restart, but it notes the IDs
// of its history's stretches (HISTORY): restarted by SIGKILL and started
// again, it refuses its replica as LOST RECORDS rather than wiping it with
// a full copy of nothing, and stops writing. Told to go on without them
// (REPLICAOF NO ONE), it forks, and its replica then takes the full copy.
// Without the note the replica was emptied at once.
func TestAMemoryPrimaryRestartedEmptyDoesNotWipeItsReplica(t *testing.T) {
	pair := newPair(t)
	dirP, dirR, envP, envR := pair.dirP, pair.dirR, pair.envP, pair.envR
	p := startNodeIn(t, dirP, envP, "--durability", "memory")
	r := startNodeIn(t, dirR, envR, "--durability", "memory")
	writeKeys(t, p, "kept:", 100)
	inSync(t, p, r, 1)

	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p = startNodeIn(t, dirP, envP, "--durability", "memory")
	refusesAfterLosing(t, p, 100)
	if n := do(t, r, "DBSIZE"); n != int64(100) {
		t.Fatalf("the replica holds %v keys, want the 100 its primary lost", n)
	}
	if f := replInfo(t, shardAddr(r, 0)); !strings.Contains(f["master_link_error"], "LOSTRECORDS") || f["full_copies"] != "0" {
		t.Fatalf("the replica's link: %v", f)
	}

	do(t, p, "REPLICAOF", "NO", "ONE")
	do(t, p, "SET", "after", "1")
	inSync(t, p, r, 1)
	if n := do(t, r, "DBSIZE"); n != int64(1) {
		t.Fatalf("the replica holds %v keys after its primary went on without the lost ones, want 1", n)
	}
}
