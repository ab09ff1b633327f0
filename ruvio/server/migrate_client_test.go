package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// A transaction queued while its keys were the source's and executed
// after the move is answered as Redis Cluster answers EXEC: TRYAGAIN while
// the range is frozen, MOVED to the target once the map gives it away. The
// transaction is discarded either way: nothing of it lands on the source,
// where no one would read it again.
func TestExecOfATransactionQueuedBeforeAMove(t *testing.T) {
	mn := startMoveNodes(t, false)
	ctx := context.Background()
	ca, cb := mn.a.client(0), mn.b.client(0)
	key := keyIn(moveFirst, moveLast, "txn")
	mustDo(t, ca, "SET", key, "before")

	// queue opens a transaction on its own connection with WATCH, as a
	// compare-and-set does, and queues a SET of the key.
	queue := func(val string) *redis.Conn {
		c := ca.Conn()
		t.Cleanup(func() { c.Close() })
		for _, cmd := range [][]any{{"WATCH", key}, {"MULTI"}, {"SET", key, val}} {
			if err := c.Do(ctx, cmd...).Err(); err != nil {
				t.Fatalf("%v: %v", cmd, err)
			}
		}
		return c
	}
	execErr := func(c *redis.Conn) error {
		_, err := c.Do(ctx, "EXEC").Result()
		return err
	}
	whileFrozen, afterMap := queue("frozen"), queue("after")

	prepare(t, mn, "9")
	if err := execErr(whileFrozen); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Fatalf("EXEC while the range is frozen: %v, want TRYAGAIN", err)
	}
	// Discarded: the connection is out of MULTI.
	if err := whileFrozen.Do(ctx, "EXEC").Err(); err == nil || err.Error() != "ERR EXEC without MULTI" {
		t.Fatalf("a second EXEC: %v, want ERR EXEC without MULTI", err)
	}
	mustDo(t, cb, "RUVIO", "MIGRATE", "REPLICAS", "9", 1000)
	next := mn.committed(t)
	for _, n := range []*node{mn.b, mn.a} {
		if err := setMap(n, next); err != nil {
			t.Fatal(err)
		}
	}
	// The source thaws the range only once it has dropped its copy, in
	// the background. The map decides first: hold the range frozen, as
	// it is while the drop runs, and EXEC must still answer MOVED.
	moves := &mn.a.srv.moves
	poll.Until(t, 10*time.Second, "the source to drop the range", func() bool { return moves.frozen.Load() == nil })
	moves.frozen.Store(&frozenRange{first: moveFirst, last: moveLast})
	err := execErr(afterMap)
	moves.frozen.Store(nil)
	if !isMoved(err, addr(mn.b.cfg.Port)) {
		t.Fatalf("EXEC after the map: %v, want MOVED to the target", err)
	}
	if got := mustDo(t, cb, "GET", key); got != "before" {
		t.Fatalf("the key on the target: %v, want the value from before the move", got)
	}
	sh := mn.a.srv.shards[0]
	sh.Lock()
	e := sh.DB().Get(key)
	sh.Unlock()
	if e != nil {
		if b, _ := e.Val.([]byte); string(b) != "before" {
			t.Fatalf("the source's copy of the key: %q; a discarded transaction wrote it", b)
		}
	}
	// Still in no transaction, and the connection serves on.
	if err := afterMap.Do(ctx, "DISCARD").Err(); err == nil || err.Error() != "ERR DISCARD without MULTI" {
		t.Fatalf("DISCARD after the MOVED EXEC: %v", err)
	}
}

// A client blocked on a key of the moving range is answered MOVED to the
// target once the map gives the range away, as Redis Cluster redirects
// its blocked clients; one blocked on a key that stays keeps waiting and
// is served by the next push.
func TestBlockedClientOnAMovedKeyIsRedirected(t *testing.T) {
	mn := startMoveNodes(t, false)
	ctx := context.Background()
	ca, cb := mn.a.client(0), mn.b.client(0)
	moving := keyIn(moveFirst, moveLast, "bl")
	staying := keyIn(moveLast+1, moveLast+400, "bl")
	if mn.a.srv.shardFor([]byte(staying)) != mn.a.srv.shards[0] {
		t.Fatalf("key %s is not on shard 0", staying)
	}
	mustDo(t, ca, "SET", keyIn(moveFirst, moveLast, "filler"), "x") // a range with a key
	pop := func(key string) chan error {
		done := make(chan error, 1)
		go func() {
			c := redis.NewClient(&redis.Options{Addr: mn.a.srv.Addr(0), MaxRetries: -1, ReadTimeout: -1})
			defer c.Close()
			done <- c.Do(ctx, "BLPOP", key, 20).Err()
		}()
		return done
	}
	blockedCount := func() int {
		n := 0
		for _, cl := range mn.a.srv.clientsSorted() {
			if cl.blocked.Load() {
				n++
			}
		}
		return n
	}
	movingDone, stayingDone := pop(moving), pop(staying)
	poll.Until(t, 5*time.Second, "both pops to block", func() bool { return blockedCount() == 2 })

	prepare(t, mn, "11")
	mustDo(t, cb, "RUVIO", "MIGRATE", "REPLICAS", "11", 1000)
	next := mn.committed(t)
	for _, n := range []*node{mn.b, mn.a} {
		if err := setMap(n, next); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-movingDone; !isMoved(err, addr(mn.b.cfg.Port)) {
		t.Fatalf("BLPOP on a moved key: %v, want MOVED to the target", err)
	}
	mustDo(t, ca, "LPUSH", staying, "v")
	if err := <-stayingDone; err != nil {
		t.Fatalf("BLPOP on a key that stayed: %v", err)
	}
}
