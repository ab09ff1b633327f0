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

// Blocking writes and CLIENT PAUSE's in-flight accounting. A switchover
// pauses writes, waits until writes_in_flight reads 0 and the replica
// holds the primary's whole log, then promotes it: any write that runs on
// the old primary after that is acknowledged there only. A blocking pop
// is such a write both when it finds its element at once and when a push
// wakes it.

// offLoop is a client of a's first shard served by a goroutine of its
// own (a blocking command moved it off the event loop), so a command it
// runs may wait for the shard's lock without holding up the loop's other
// clients.
func offLoop(t *testing.T, a *node) *redis.Client {
	t.Helper()
	cl := redis.NewClient(&redis.Options{Addr: a.srv.Addr(0), ReadTimeout: time.Minute, MaxRetries: -1, PoolSize: 1})
	t.Cleanup(func() { cl.Close() })
	if err := cl.Do(context.Background(), "BLPOP", "nothing", "0.01").Err(); err != redis.Nil {
		t.Fatalf("BLPOP nothing: %v", err)
	}
	return cl
}

// holdShardLock runs a SORT of a long list on s, a client off the event
// loop, and returns once it runs: until it answers (on the channel
// returned), the shard's lock is taken.
func holdShardLock(t *testing.T, a *node, s *redis.Client) <-chan error {
	t.Helper()
	ctx := context.Background()
	p := a.client(0)
	const n = 300_000
	if p.Exists(ctx, "big").Val() == 0 {
		for i := 0; i < n; i += 10000 {
			vals := make([]any, 0, 10000)
			for j := i; j < i+10000; j++ {
				vals = append(vals, (j*7919)%n)
			}
			if err := p.RPush(ctx, "big", vals...).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	id := s.ClientID(ctx).Val()
	done := make(chan error, 1)
	go func() { done <- s.Do(ctx, "SORT", "big", "LIMIT", "0", "1").Err() }()
	poll.Until(t, 10*time.Second, "the SORT running", func() bool {
		return clientRuns(p.ClientList(ctx).Val(), id, "sort")
	})
	return done
}

// clientRuns reports whether CLIENT LIST's text shows client id running
// (or last having run) cmd.
func clientRuns(list string, id int64, cmd string) bool {
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, fmt.Sprintf("id=%d ", id)) && strings.Contains(line, " cmd="+cmd+" ") {
			return true
		}
	}
	return false
}

// A BLPOP that finds its element at once is in flight from the moment it
// passed CLIENT PAUSE's check until it ran, like any other write. It was
// not counted, so a switchover could compare logs while it waited for the
// shard's lock, and the pop then ran on the old primary only.
func TestABlockingPopThatServesAtOnceIsAWriteInFlight(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	admin := a.client(0)
	if err := admin.RPush(ctx, "q", "x").Err(); err != nil {
		t.Fatal(err)
	}
	sorter, popper := offLoop(t, a), offLoop(t, a)
	sorted := holdShardLock(t, a, sorter)
	popped := make(chan []string, 1)
	go func() { popped <- popper.BLPop(ctx, 0, "q").Val() }()
	poll.Until(t, 10*time.Second, "the SORT and the BLPOP in flight", func() bool {
		return a.info(0)["writes_in_flight"] == "2"
	})
	if err := <-sorted; err != nil {
		t.Fatal(err)
	}
	if got := <-popped; len(got) != 2 || got[1] != "x" {
		t.Fatalf("BLPOP q 0 = %q", got)
	}
	poll.Until(t, 10*time.Second, "nothing in flight", func() bool { return a.info(0)["writes_in_flight"] == "0" })
}

// A BLPOP woken by a push that was in flight when CLIENT PAUSE WRITE began
// waits for the pause to end before it pops: the push was the last write
// a switchover waited for, and a pop run then would land on the old
// primary after the logs were compared. While it waits for its keys it is
// not in flight, or a pause would wait out its timeout.
func TestABlockingPopWokenDuringAPauseWaitsForIt(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	admin := a.client(0)
	popper, sorter, pusher := offLoop(t, a), offLoop(t, a), offLoop(t, a)
	pid := popper.ClientID(ctx).Val()
	popped := make(chan []string, 1)
	go func() { popped <- popper.BLPop(ctx, 0, "q").Val() }()
	poll.Until(t, 10*time.Second, "the BLPOP waiting for q", func() bool {
		return clientRuns(admin.ClientList(ctx).Val(), pid, "blpop")
	})
	if got := a.info(0)["writes_in_flight"]; got != "0" {
		t.Fatalf("a BLPOP waiting for its key counts as a write in flight (%s)", got)
	}

	sorted := holdShardLock(t, a, sorter)
	pushed := make(chan error, 1)
	go func() { pushed <- pusher.LPush(ctx, "q", "x").Err() }()
	poll.Until(t, 10*time.Second, "the SORT and the LPUSH in flight", func() bool {
		return a.info(0)["writes_in_flight"] == "2"
	})
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "60000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-sorted; err != nil {
		t.Fatal(err)
	}
	if err := <-pushed; err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "nothing in flight", func() bool { return a.info(0)["writes_in_flight"] == "0" })
	poll.Stays(t, 300*time.Millisecond, "the woken BLPOP waiting for the pause", func() bool {
		return len(popped) == 0 && admin.LLen(ctx, "q").Val() == 1
	})
	// Held by the pause, it is not blocked on its keys any more: CLIENT
	// UNBLOCK finds nothing to unblock (a paused client is not a blocked
	// one), and the pop runs once the pause ends.
	if n, err := admin.Do(ctx, "CLIENT", "UNBLOCK", pid, "ERROR").Int(); err != nil || n != 0 {
		t.Fatalf("CLIENT UNBLOCK of the BLPOP waiting for the pause = %d, %v; want 0", n, err)
	}
	if err := admin.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	if got := <-popped; len(got) != 2 || got[1] != "x" {
		t.Fatalf("BLPOP q 0 = %q", got)
	}
	if n := admin.LLen(ctx, "q").Val(); n != 0 {
		t.Fatalf("LLEN q = %d after the pop", n)
	}
}
