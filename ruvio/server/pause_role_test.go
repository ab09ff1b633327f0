package server

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// A write CLIENT PAUSE WRITE holds is looked at again when the pause ends,
// as Redis processes a postponed command again: on a node that became a
// replica meanwhile it does not run (its connection is closed with the
// others when the node becomes a replica), so the node's log stays a
// prefix of its new primary's. A switchover relies on this.
func TestAWriteHeldByAPauseDoesNotRunOnANodeThatBecameAReplica(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	mixedWrites(t, a, "before:", 100)
	caughtUp(t, a, b)
	admin := a.client(0)
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "30000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	writer := redis.NewClient(&redis.Options{Addr: a.srv.Addr(0), MaxRetries: -1, ReadTimeout: time.Minute})
	defer writer.Close()
	id := writer.ClientID(ctx).Val()
	done := make(chan error, 1)
	go func() { done <- writer.Set(ctx, "held", "v", 0).Err() }()
	poll.Until(t, 10*time.Second, "the write held by the pause", func() bool {
		return clientRuns(admin.ClientList(ctx).Val(), id, "set")
	})
	// The switchover's steps: b holds everything a wrote; it is detached
	// and promoted, and a is pointed at it.
	b.do("RUVIO", "DETACH")
	b.do("REPLICAOF", "NO", "ONE")
	host, port, _ := net.SplitHostPort(b.replAddr())
	if err := admin.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the held write was acknowledged by a replica")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the held write is still waiting")
	}
	b.do("SET", "after", "3")
	caughtUp(t, b, a)
	if n := a.client(0).Exists(ctx, "held").Val(); n != 0 {
		t.Fatal("the held write ran on the replica")
	}
	if got := a.info(0)["full_copies"]; got != "0" {
		t.Fatalf("the old primary took %s full copies: its log went past the new primary's fork", got)
	}
}

// While CLIENT PAUSE WRITE holds writes a key whose time ran out reads as
// missing but is not deleted, so nothing reaches the log, as Redis
// expires nothing while paused; once the pause ends, the next read
// deletes it through the log.
func TestAReadDuringAWritePauseExpiresNothing(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	cl := a.client(0)
	if err := cl.Set(ctx, "k", "v", 50*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Do(ctx, "CLIENT", "PAUSE", "60000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	before := a.info(0)["wal_last_sequence"]
	poll.Until(t, 10*time.Second, "the key's time to run out", func() bool { return cl.Exists(ctx, "k").Val() == 0 })
	if after := a.info(0)["wal_last_sequence"]; after != before {
		t.Fatalf("a read during CLIENT PAUSE WRITE moved the log from %s to %s", before, after)
	}
	if err := cl.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	cl.Exists(ctx, "k")
	if after := a.info(0)["wal_last_sequence"]; after == before {
		t.Fatal("the expired key was not deleted through the log once the pause ended")
	}
}
