package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// A node with durability always runs a stream of writing scripts and is
// killed with SIGKILL while they run, several times: after each restart
// every script whose reply came back has all of its effects, and no
// script has only some of them (its writes are one log record).
func TestScriptCrashLoopKeepsEveryAcknowledgedEffect(t *testing.T) {
	const (
		rounds  = 4
		writers = 4
		body    = "redis.call('set', KEYS[1], ARGV[1]) redis.call('rpush', KEYS[2], ARGV[1]) return redis.call('incr', KEYS[3])"
	)
	dir := t.TempDir()
	type pair struct{ a, b, ctr string }
	var mu sync.Mutex
	acked := map[pair]string{}
	sent := map[pair]string{}
	check := func(p *proc, round int) {
		t.Helper()
		c := redis.NewClient(&redis.Options{Addr: p.addr()})
		defer c.Close()
		ctx := context.Background()
		for k, v := range sent {
			a, aerr := c.Get(ctx, k.a).Result()
			b, berr := c.LRange(ctx, k.b, 0, -1).Result()
			if aerr != nil && aerr != redis.Nil || berr != nil {
				t.Fatal(aerr, berr)
			}
			has := aerr == nil
			if has != (len(b) > 0) {
				t.Fatalf("round %d: script %v left only part of its writes: %q %v", round, k, a, b)
			}
			if _, ok := acked[k]; ok && (!has || a != v || len(b) != 1 || b[0] != v) {
				t.Fatalf("round %d: acknowledged script %v lost: %q %v\nlogs:\n%s", round, k, a, b, p.logs.String())
			}
		}
	}
	for round := 0; round < rounds; round++ {
		p := startNodeIn(t, dir, nil, "--durability", "always", "--shards", "2")
		check(p, round)
		ctx, stop := context.WithCancel(context.Background())
		var count int
		wg := writeUntilStopped(ctx, p.addr(), writers, func(c *redis.Client, w, n int) error {
			tag := fmt.Sprintf("{r%dw%dn%d}", round, w, n)
			k := pair{tag + "a", tag + "b", tag + "ctr"}
			v := strconv.Itoa(n)
			mu.Lock()
			sent[k] = v
			mu.Unlock()
			if err := c.Eval(context.Background(), body, []string{k.a, k.b, k.ctr}, v).Err(); err != nil {
				return err // the node died: this script is indeterminate
			}
			mu.Lock()
			acked[k] = v
			count++
			mu.Unlock()
			return nil
		})
		// Kill at a different point of the stream each round.
		target := 20 + rand.IntN(200)
		poll.Until(t, 30*time.Second, "scripts to be acknowledged", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return count >= target
		})
		p.cmd.Process.Kill()
		<-p.done
		stop()
		wg.Wait()
	}
	p := startNodeIn(t, dir, nil, "--durability", "always", "--shards", "2")
	check(p, rounds)
	t.Logf("%d acknowledged scripts over %d SIGKILLs, all present and whole", len(acked), rounds)
	p.cmd.Process.Kill()
}
