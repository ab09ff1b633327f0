package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// Every write acknowledged under CLIENT DURABILITY
// REPLICAS k is on at least k replicas' disks. Writers with k = 1 and
// k = 2 pipeline batches of 32; the primary is SIGKILLed in the middle of
// them, the replicas at the same instant (one of them frozen by SIGSTOP
// for the last part); each replica is started alone, without
// replication, and the acknowledged keys are counted on each.
func TestDurableWritesSurviveOnKReplicas(t *testing.T) {
	la := "127.0.0.1:" + strconv.Itoa(freePort(t, 2))
	args := []string{"--shards", "2", "--durability", "always"}
	a := startNodeIn(t, t.TempDir(), []string{"RUVIO_REPLICATION_ROLE=primary", "RUVIO_REPLICATION_LISTEN=" + la}, args...)
	dirs := []string{t.TempDir(), t.TempDir()}
	var replicas []*proc
	for _, d := range dirs {
		env := []string{"RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + la,
			"RUVIO_REPLICATION_LISTEN=127.0.0.1:" + strconv.Itoa(freePort(t, 2))}
		r := startNodeIn(t, d, env, args...)
		inSync(t, a, r, 2)
		replicas = append(replicas, r)
	}

	acked := map[int]map[string]bool{1: {}, 2: {}}
	var mu sync.Mutex
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, k := range []int{1, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: a.addr(), PoolSize: 1, MaxRetries: -1})
			defer c.Close()
			cn := c.Conn()
			defer cn.Close()
			if err := cn.Do(ctx, "CLIENT", "DURABILITY", "REPLICAS", k, "TIMEOUT", 2000).Err(); err != nil {
				t.Error(err)
				return
			}
			for batch := 0; ctx.Err() == nil; batch++ {
				cmds, _ := cn.Pipelined(ctx, func(p redis.Pipeliner) error {
					for i := 0; i < 32; i++ {
						p.Set(ctx, fmt.Sprintf("k%d:%d:%d", k, batch, i), "v", 0)
					}
					return nil
				})
				mu.Lock()
				for _, c := range cmds {
					if c.Err() == nil {
						acked[k][c.Args()[1].(string)] = true
					}
				}
				mu.Unlock()
			}
		}()
	}
	count := func(k int) int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked[k])
	}
	// The writers' progress is waited for, not required: a slow machine
	// acknowledges fewer writes, and the check below holds for any count.
	waitFor := func(k, n int) {
		deadline := time.Now().Add(10 * time.Second)
		for count(k) < n && time.Now().Before(deadline) {
			time.Sleep(poll.Interval)
		}
	}
	waitFor(1, 500)
	waitFor(2, 500)
	// One replica freezes: REPLICAS 2 writes can no longer be held by
	// two replicas, REPLICAS 1 writes still can.
	replicas[1].cmd.Process.Signal(syscall.SIGSTOP)
	waitFor(1, count(1)+1000)
	// Everything dies at once, so a replica keeps only what it had on
	// disk at that instant.
	a.cmd.Process.Signal(syscall.SIGKILL)
	for _, r := range replicas {
		r.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-a.done
	for _, r := range replicas {
		<-r.done
	}
	stop()
	wg.Wait()
	if len(acked[1]) == 0 || len(acked[2]) == 0 {
		t.Fatalf("nothing acknowledged: %d / %d", len(acked[1]), len(acked[2]))
	}
	holders := map[string]int{}
	for _, d := range dirs {
		r := startNodeIn(t, d, nil, args...)
		c := redis.NewClient(&redis.Options{Addr: r.addr(), MaxRetries: -1})
		for _, set := range acked {
			for key := range set {
				if c.Exists(context.Background(), key).Val() == 1 {
					holders[key]++
				}
			}
		}
		c.Close()
		r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.done
	}
	for k, set := range acked {
		short := 0
		for key := range set {
			if holders[key] < k {
				short++
			}
		}
		if short > 0 {
			t.Errorf("REPLICAS %d: %d of %d acknowledged writes are on fewer than %d replicas", k, short, len(set), k)
		}
	}
	t.Logf("acknowledged and found: %d writes with REPLICAS 1, %d with REPLICAS 2", len(acked[1]), len(acked[2]))
}
