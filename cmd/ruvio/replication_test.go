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
