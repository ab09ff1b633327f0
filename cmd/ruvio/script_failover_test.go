package main

import (
	"context"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// A replica the coordinators promote after the primary is SIGKILLed holds
// every script effect the primary acknowledged under CLIENT DURABILITY
// REPLICAS 1, and every function library loaded before: FCALL answers on
// it, and each acknowledged script's two writes are both there.
func TestAPromotedReplicaHasEveryAcknowledgedScriptEffectAndLibrary(t *testing.T) {
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	defer func() {
		if t.Failed() {
			dumpLogs(t, cs)
		}
	}()
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	ctx := context.Background()
	primary := redis.NewClient(&redis.Options{Addr: g[0].p.addr(), MaxRetries: -1})
	defer primary.Close()
	const lib = "#!lua name=counters\n" +
		"redis.register_function('bump', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)\n"
	if err := primary.Do(ctx, "FUNCTION", "LOAD", lib).Err(); err != nil {
		t.Fatalf("FUNCTION LOAD: %v", err)
	}
	if n, err := primary.Do(ctx, "WAIT", 2, 5000).Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 after FUNCTION LOAD: %d %v", n, err)
	}

	// Each acknowledged script pushes its number onto a list and bumps a
	// counter: both or neither must survive.
	const push = "redis.call('RPUSH', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])"
	var mu sync.Mutex
	var acked []int
	writeCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		c := redis.NewClient(&redis.Options{Addr: g[0].p.addr(), PoolSize: 1, MaxRetries: -1, ReadTimeout: 3 * time.Second})
		defer c.Close()
		cn := c.Conn()
		defer cn.Close()
		if err := cn.Do(writeCtx, "CLIENT", "DURABILITY", "REPLICAS", 1, "TIMEOUT", 2000).Err(); err != nil {
			t.Error(err)
			return
		}
		for i := 0; writeCtx.Err() == nil; i++ {
			if err := cn.Eval(writeCtx, push, []string{"{s}log", "{s}count"}, i).Err(); err != nil {
				return // the primary is gone
			}
			mu.Lock()
			acked = append(acked, i)
			mu.Unlock()
		}
	})
	poll.Until(t, 10*time.Second, "acknowledged scripts", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 50
	})
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	stop()
	wg.Wait()

	var promoted string
	poll.Until(t, 20*time.Second, "the coordinators to promote a replica", func() bool {
		promoted = primaryOf(cs[0], "")
		return promoted != "" && promoted != g[0].p.addr()
	})
	np := redis.NewClient(&redis.Options{Addr: promoted, MaxRetries: -1})
	defer np.Close()
	poll.Until(t, 10*time.Second, "the promoted replica to take writes", func() bool {
		return np.Do(ctx, "FCALL", "bump", 1, "{s}probe", 1).Err() == nil
	})
	log, err := np.LRange(ctx, "{s}log", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, v := range log {
		have[v] = true
	}
	for _, i := range acked {
		if !have[strconv.Itoa(i)] {
			t.Fatalf("acknowledged script %d is not on the promoted replica (it has %d entries, %d acknowledged)", i, len(log), len(acked))
		}
	}
	count, err := np.Get(ctx, "{s}count").Int()
	if err != nil || count != len(log) {
		t.Fatalf("the counter is %d (%v) for %d list entries: a script survived half-applied", count, err, len(log))
	}
	libs, err := np.Do(ctx, "FUNCTION", "LIST").Slice()
	if err != nil || len(libs) != 1 {
		t.Fatalf("FUNCTION LIST on the promoted replica: %v %v", libs, err)
	}
	t.Logf("%d scripts acknowledged, %d on the promoted replica", len(acked), len(log))
}
