package server

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// A connection that keeps a shard's lock across its pipelined commands
// lets go of it when its read buffer runs dry: a client that stops in
// the middle of a pipeline does not stall the shard for the others.
func TestHalfSentPipelineHoldsNoLock(t *testing.T) {
	s := startServer(t, nil)
	a := dialRaw(t, s.Addr(0))
	a.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET")
	c := client(t, s, 0)
	// Each GET waits out its read timeout if the shard is still locked.
	poll.UntilNil(t, 10*time.Second, "another client reads k while the pipeline is half sent", func() error {
		v, err := c.Get(context.Background(), "k").Result()
		if err == nil && v != "v" {
			err = fmt.Errorf("k = %q", v)
		}
		return err
	})
	a.send("\r\n$1\r\nk\r\n")
	a.expect("+OK\r\n$1\r\nv\r\n")
}

// The keyspace notifications of a pipeline's writes, made under one
// hold of the lock, are all published, in order.
func TestPipelineNotificationsInOrder(t *testing.T) {
	s := startServer(t, func(c *config.Config) {
		if err := c.SetParams([2]string{"notify-keyspace-events", "E$"}); err != nil {
			t.Fatal(err)
		}
	})
	ctx := context.Background()
	sub := client(t, s, 0).PSubscribe(ctx, "__keyevent@0__:set")
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 50
	p := client(t, s, 0).Pipeline()
	for i := 0; i < n; i++ {
		p.Set(ctx, "k"+strconv.Itoa(i), i, 0)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	ch := sub.Channel()
	for i := 0; i < n; i++ {
		select {
		case m := <-ch:
			if want := "k" + strconv.Itoa(i); m.Payload != want {
				t.Fatalf("notification %d names %q, want %q", i, m.Payload, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of %d notifications arrived", i, n)
		}
	}
}

// Clients whose pipelines switch between two shards' keys, all at once,
// see every increment: the lock a connection keeps moves with its
// commands from shard to shard.
func TestPipelinesAcrossShards(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	var keys [2]string
	for i := 0; keys[0] == "" || keys[1] == ""; i++ {
		k := "key" + strconv.Itoa(i)
		if id := s.shardFor([]byte(k)).ID; keys[id] == "" {
			keys[id] = k
		}
	}
	const clients, rounds, depth = 4, 50, 16
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := client(t, s, w%2)
			for r := 0; r < rounds; r++ {
				p := c.Pipeline()
				for i := 0; i < depth; i++ {
					p.Incr(ctx, keys[(i/3)%2])
				}
				if _, err := p.Exec(ctx); err != nil {
					errs <- fmt.Errorf("client %d: %w", w, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := client(t, s, 0)
	for id, k := range keys {
		per := 0
		for i := 0; i < depth; i++ {
			if (i/3)%2 == id {
				per++
			}
		}
		if got, want := c.Get(ctx, k).Val(), strconv.Itoa(clients*rounds*per); got != want {
			t.Errorf("shard %d's key %s = %s, want %s", id, k, got, want)
		}
	}
}

// A connection reads the next command into the memory of the last one's
// arguments once that command is done with them; commands queued by
// MULTI keep theirs until EXEC, however many commands follow in the same
// pipeline.
func TestQueuedCommandsKeepTheirArgumentsInAPipeline(t *testing.T) {
	s := startServer(t, nil)
	a := dialRaw(t, s.Addr(0))
	a.send("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n" +
		"*1\r\n$5\r\nMULTI\r\n" +
		"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$4\r\nbbbb\r\n" +
		"*3\r\n$5\r\nLPUSH\r\n$1\r\nl\r\n$3\r\nxyz\r\n" +
		"*1\r\n$4\r\nEXEC\r\n" +
		"*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$4\r\ncccc\r\n" +
		"*2\r\n$3\r\nGET\r\n$1\r\nb\r\n" +
		"*2\r\n$3\r\nGET\r\n$1\r\nc\r\n")
	a.expect("+OK\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n:1\r\n+OK\r\n$4\r\nbbbb\r\n$4\r\ncccc\r\n")
	got, err := client(t, s, 0).LRange(context.Background(), "l", 0, -1).Result()
	if err != nil || len(got) != 1 || got[0] != "xyz" {
		t.Fatalf("LRANGE l = %q, %v; want [xyz]", got, err)
	}
}
