package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

func isNoReplicas(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOREPLICAS Not enough replicas hold this connection's writes")
}

// durableConn is a single connection with CLIENT DURABILITY on.
func durableConn(t *testing.T, n *node, shard int, args ...any) *redis.Conn {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: n.srv.Addr(shard), MaxRetries: -1, PoolSize: 1, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { c.Close() })
	conn := c.Conn()
	t.Cleanup(func() { conn.Close() })
	if err := conn.Do(context.Background(), append([]any{"CLIENT", "DURABILITY"}, args...)...).Err(); err != nil {
		t.Fatal(err)
	}
	return conn
}

// With its replica stopped, a durable write answers
// NOREPLICAS after the timeout while the key holds the value; the next
// read on that connection waits and answers NOREPLICAS too; other
// connections go on; once the replica is back and caught up, replies flow.
func TestDurableRepliesWaitForReplicas(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 1, asPrimary).start()
	r := newNode(t, "replica", 1, asReplicaOf(p)).start()
	caughtUp(t, p, r)
	dc := durableConn(t, p, 0, "REPLICAS", 1, "TIMEOUT", 300)
	if err := dc.Set(ctx, "a", "1", 0).Err(); err != nil {
		t.Fatalf("durable write with the replica up: %v", err)
	}
	setting := dc.Do(ctx, "CLIENT", "DURABILITY").Val()
	if fmt.Sprint(setting) != "map[replicas:1 timeout:300]" {
		t.Fatalf("CLIENT DURABILITY = %v", setting)
	}

	r.stop()
	if err := dc.Set(ctx, "b", "2", 0).Err(); !isNoReplicas(err) {
		t.Fatalf("durable write without replicas: %v", err)
	}
	plain := p.client(0)
	if v := plain.Get(ctx, "b").Val(); v != "2" {
		t.Fatalf("the refused durable write is not applied: %q", v)
	}
	if err := plain.Set(ctx, "c", "3", 0).Err(); err != nil {
		t.Fatalf("a connection without durability: %v", err)
	}
	if err := dc.Get(ctx, "a").Err(); !isNoReplicas(err) {
		t.Fatalf("a read after an unheld write: %v", err)
	}

	r.start()
	caughtUp(t, p, r)
	if v, err := dc.Get(ctx, "b").Result(); err != nil || v != "2" {
		t.Fatalf("after the replica caught up: %q %v", v, err)
	}
}

// Pipelines, MULTI/EXEC and writes to several shards: every reply of a
// durable connection waits for every shard it wrote to.
func TestDurablePipelinesAndTransactions(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 2, asPrimary).start()
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	caughtUp(t, p, r)
	dc := durableConn(t, p, 0, "REPLICAS", 1, "TIMEOUT", 300)
	pipe := dc.Pipeline()
	for i := 0; i < 32; i++ {
		pipe.Set(ctx, fmt.Sprintf("k%d", i), i, 0) // keys spread over both shards
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("durable pipeline: %v", err)
	}
	if _, err := dc.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		tx.Set(ctx, "{t}a", 1, 0)
		tx.Incr(ctx, "{t}b")
		return nil
	}); err != nil {
		t.Fatalf("durable MULTI/EXEC: %v", err)
	}
	for i := 0; i < 2; i++ {
		if got, want := p.info(i)["replication_committed_sequence"], p.info(i)["wal_last_sequence"]; got != want {
			t.Fatalf("shard %d: committed %s, last %s", i, got, want)
		}
	}
	r.stop()
	cmds, _ := dc.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i := 0; i < 4; i++ {
			pipe.Set(ctx, fmt.Sprintf("late%d", i), i, 0)
		}
		return nil
	})
	for i, c := range cmds {
		if !isNoReplicas(c.Err()) {
			t.Fatalf("pipelined write %d without replicas: %v", i, c.Err())
		}
	}
}

// WAIT counts the replicas holding the connection's writes.
func TestWaitCountsReplicasHoldingTheWrites(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 1, asPrimary).start()
	r1 := newNode(t, "r1", 1, asReplicaOf(p)).start()
	r2 := newNode(t, "r2", 1, asReplicaOf(p)).start()
	caughtUp(t, p, r1)
	caughtUp(t, p, r2)
	c := p.client(0).Conn()
	defer c.Close()
	c.Set(ctx, "k", "v", 0)
	if n, err := c.Do(ctx, "WAIT", 2, 5000).Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 = %d %v", n, err)
	}
	r2.stop()
	c.Set(ctx, "k", "w", 0)
	if n, err := c.Do(ctx, "WAIT", 2, 200).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 2 with one replica down = %d %v", n, err)
	}
	if err := r1.client(0).Do(ctx, "WAIT", 1, 0).Err(); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("WAIT on a replica: %v", err)
	}
}

// replication_committed_sequence is 0 everywhere while no
// client asks for durability; a satisfied durable reply raises it on the
// primary, and the replicas report the primary's value after its next
// heartbeat.
func TestCommittedSequenceReachesReplicas(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 1, asPrimary).start()
	r := newNode(t, "replica", 1, asReplicaOf(p)).start()
	mixedWrites(t, p, "plain:", 50)
	caughtUp(t, p, r)
	if p.info(0)["replication_committed_sequence"] != "0" || r.info(0)["replication_committed_sequence"] != "0" {
		t.Fatal("committed sequence without durable clients")
	}
	dc := durableConn(t, p, 0, "REPLICAS", 1)
	if err := dc.Set(ctx, "d", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	want := p.info(0)["wal_last_sequence"]
	if got := p.info(0)["replication_committed_sequence"]; got != want {
		t.Fatalf("primary committed %s, want %s", got, want)
	}
	poll.Until(t, 5*time.Second, "the replica to report the committed sequence", func() bool {
		return r.info(0)["replication_committed_sequence"] == want
	})
}

func TestClientDurabilitySyntax(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "n", 1, nil).start()
	c := n.client(0)
	for _, args := range [][]any{
		{"CLIENT", "DURABILITY", "REPLICAS"},
		{"CLIENT", "DURABILITY", "REPLICAS", "x"},
		{"CLIENT", "DURABILITY", "REPLICAS", -1},
		{"CLIENT", "DURABILITY", "REPLICAS", 1, "TIMEOUT", -5},
		{"CLIENT", "DURABILITY", "REPLICAS", 1, "WAIT", 5},
		{"CLIENT", "DURABILITY", "SOMETIMES"},
	} {
		if err := c.Do(ctx, args...).Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if err := c.Do(ctx, "CLIENT", "DURABILITY", "OFF").Err(); err != nil {
		t.Fatal(err)
	}
}
