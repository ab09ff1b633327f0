package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
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

// Pipelines on a keyspace large enough to be warmed, across two shards,
// sent in pieces of every size, so that a read often ends inside a
// command and the look ahead sees part of one: every reply matches a
// model of the keyspace, and no key is stored twice or lost.
func TestWarmedPipelinesInPieces(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ctx := context.Background()
	c := client(t, s, 0)
	p := c.Pipeline()
	for i := range 10000 { // about 5,000 per shard: enough to be warmed
		p.Set(ctx, "pre:"+strconv.Itoa(i), "x", 0)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, 300)
	for i := range keys {
		// Lengths 1 to 40, some with a hash tag, many of the same length.
		k := fmt.Sprintf("%x", rng.Uint64())[:1+rng.IntN(12)] + strings.Repeat("k", rng.IntN(28))
		if i%7 == 0 {
			k = "{" + k[:1] + "}" + k
		}
		keys[i] = k
	}
	strs, counters := map[string]string{}, map[string]int{}
	var req, want []byte
	for i := range 4000 {
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(3) {
		case 0:
			v := strconv.Itoa(i)
			strs[k] = v
			req = append(req, multibulk("SET", "s:"+k, v)...)
			want = append(want, "+OK\r\n"...)
		case 1:
			req = append(req, multibulk("GET", "s:"+k)...)
			if v, ok := strs[k]; ok {
				want = fmt.Appendf(want, "$%d\r\n%s\r\n", len(v), v)
			} else {
				want = append(want, "$-1\r\n"...)
			}
		default:
			counters[k]++
			req = append(req, multibulk("INCR", "n:"+k)...)
			want = fmt.Appendf(want, ":%d\r\n", counters[k])
		}
	}

	d := dialRaw(t, s.Addr(0))
	sent := make(chan error, 1)
	go func() {
		for rest := req; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(3000))
			if _, err := d.nc.Write(rest[:n]); err != nil {
				sent <- err
				return
			}
			rest = rest[n:]
		}
		sent <- nil
	}()
	d.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	got := make([]byte, len(want))
	if n, err := io.ReadFull(d.nc, got); err != nil {
		i := 0
		for i < n && got[i] == want[i] {
			i++
		}
		t.Fatalf("reading the replies: %v after %d of %d bytes, equal up to %d: got %q want %q", err, n, len(want), i, got[i:min(n, i+60)], want[i:min(len(want), i+60)])
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		t.Fatalf("replies differ at byte %d: got %q, want %q", i, got[i:min(len(got), i+40)], want[i:min(len(want), i+40)])
	}
	if n, want := c.DBSize(ctx).Val(), int64(10000+len(strs)+len(counters)); n != want {
		t.Fatalf("DBSIZE %d, want %d: a key was stored twice or lost", n, want)
	}
}
