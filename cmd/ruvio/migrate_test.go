package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// The node side of a slot move driven by hand, as real processes: two
// groups of a primary and a replica (two shards each, durability
// always), and the commands the coordinators' leader would send, sent
// by the test.

func moveGroups(t *testing.T) (a, b *clusterGroup, m *topology.Map) {
	t.Helper()
	a = planGroup(t, "a", "0-8191", 2)
	b = planGroup(t, "b", "8192-16383", 2)
	startClusterGroups(t, a, b)
	m, err := topology.Parse(topologyText(a, b))
	if err != nil {
		t.Fatal(err)
	}
	return a, b, m
}

func nodeClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

func sendMap(t *testing.T, addr string, m *topology.Map) {
	t.Helper()
	args := []any{"RUVIO", "TOPOLOGY", "SET"}
	for _, l := range strings.Split(strings.TrimSpace(m.String()), "\n") {
		args = append(args, l)
	}
	if err := nodeClient(t, addr).Do(context.Background(), args...).Err(); err != nil {
		t.Fatalf("TOPOLOGY SET to %s: %v", addr, err)
	}
}

func moveStatus(t *testing.T, addr, id string) map[string]string {
	t.Helper()
	v, err := nodeClient(t, addr).Do(context.Background(), "RUVIO", "MIGRATE", "STATUS", id).Result()
	if err != nil {
		t.Fatalf("STATUS %s on %s: %v", id, addr, err)
	}
	out := map[string]string{}
	switch r := v.(type) {
	case map[any]any: // RESP3
		for k, x := range r {
			out[fmt.Sprint(k)] = fmt.Sprint(x)
		}
	case []any:
		for i := 0; i+1 < len(r); i += 2 {
			out[fmt.Sprint(r[i])] = fmt.Sprint(r[i+1])
		}
	}
	return out
}

// prepareMove runs IMPORT on the target and EXPORT on the source and
// waits until the source says prepared.
func prepareMove(t *testing.T, src, dst, id string, first, last int) {
	t.Helper()
	ctx := context.Background()
	if err := nodeClient(t, dst).Do(ctx, "RUVIO", "MIGRATE", "IMPORT", id, first, last, src).Err(); err != nil {
		t.Fatal(err)
	}
	if err := nodeClient(t, src).Do(ctx, "RUVIO", "MIGRATE", "EXPORT", id, first, last, dst).Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "the source to say prepared", func() bool {
		st := moveStatus(t, src, id)
		if st["state"] == "failed" {
			t.Fatalf("the move failed: %v", st)
		}
		return st["state"] == "prepared"
	})
}

func TestMoveDrivenByHand(t *testing.T) {
	a, b, m := moveGroups(t)
	ctx := context.Background()
	src, dst := a.addr(0), b.addr(0) // shard 0 of each primary
	keys := keysOf(200, 100, 199, "mv")
	ca := nodeClient(t, src)
	for i, k := range keys {
		if err := ca.Set(ctx, k, fmt.Sprint("v", i), 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A cluster client writes one key of the range throughout.
	cc := client.RetryClusterTryAgain(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{src}}))
	defer cc.Close()
	wk := keysOf(1, 100, 199, "writer")[0]
	var mu sync.Mutex
	var acked, slowest = 0, time.Duration(0)
	var errs []string
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			err := cc.Set(ctx, wk, i, 0).Err()
			mu.Lock()
			if err != nil {
				errs = append(errs, err.Error())
			} else {
				acked = i
				slowest = max(slowest, time.Since(start))
			}
			mu.Unlock()
		}
	}()
	poll.Until(t, 10*time.Second, "the writer to write", func() bool { mu.Lock(); defer mu.Unlock(); return acked > 0 })

	prepareMove(t, src, dst, "21", 100, 199)
	if err := nodeClient(t, dst).Do(ctx, "RUVIO", "MIGRATE", "REPLICAS", "21", 5000).Err(); err != nil {
		t.Fatalf("REPLICAS: %v", err)
	}
	next, err := m.Move(100, 199, "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	sendMap(t, b.addr(0), next)
	sendMap(t, a.addr(0), next)
	sendMap(t, a.addr(1), next)
	poll.Until(t, 10*time.Second, "the writer to write on the target", func() bool {
		v, _ := nodeClient(t, dst).Get(ctx, wk).Int()
		mu.Lock()
		defer mu.Unlock()
		return v > 0 && v == acked
	})
	close(stop)
	<-done
	t.Logf("writer: %d writes, slowest acknowledged %v, errors %d", acked, slowest, len(errs))
	if len(errs) > 0 {
		t.Errorf("the writer got errors: %v", errs[:min(len(errs), 5)])
	}
	if v, _ := nodeClient(t, dst).Get(ctx, wk).Int(); v != acked {
		t.Errorf("the target holds %d for the writer's key, the last acknowledged write was %d", v, acked)
	}
	cb := nodeClient(t, dst)
	for i, k := range keys {
		if v, err := cb.Get(ctx, k).Result(); err != nil || v != fmt.Sprint("v", i) {
			t.Fatalf("%s on the target: %q %v", k, v, err)
		}
	}
	if err := ca.Get(ctx, keys[0]).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED") || !strings.HasSuffix(err.Error(), dst) {
		t.Errorf("the source after the map: %v, want MOVED to %s", err, dst)
	}
	// The source and its replica drop the copy; the target's replica
	// serves it from the SlotsArrived record, without the new map.
	// (a held nothing but the range: all its keys go.)
	for _, n := range []string{src, a.addr(1)} {
		c := nodeClient(t, n)
		poll.Until(t, 10*time.Second, "the copy dropped on "+n, func() bool {
			k, err := c.DBSize(ctx).Result()
			return err == nil && k == 0
		})
	}
	rep := redis.NewClient(&redis.Options{Addr: b.addr(1), MaxRetries: -1,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
	defer rep.Close()
	poll.Until(t, 10*time.Second, "the target's replica to serve the range", func() bool {
		v, err := rep.Get(ctx, keys[0]).Result()
		return err == nil && v == "v0"
	})
	if v := mapVersion(b.addr(1)); v != 1 {
		t.Errorf("the target's replica has map version %d; it was not sent one", v)
	}
	if st := moveStatus(t, src, "21"); st["state"] != "done" {
		t.Errorf("source status %v", st)
	}
}

func TestPreparedMoveKeptAcrossRestartsOfBothNodes(t *testing.T) {
	a, b, _ := moveGroups(t)
	ctx := context.Background()
	src, dst := a.addr(0), b.addr(0)
	keys := keysOf(50, 300, 399, "pm")
	for _, k := range keys {
		if err := nodeClient(t, src).Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	prepareMove(t, src, dst, "31", 300, 399)
	for _, mb := range []*member{a.members[0], b.members[0]} {
		mb.p.cmd.Process.Kill()
		<-mb.p.done
		mb.restart(t)
	}
	if err := nodeClient(t, src).Get(ctx, keys[0]).Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Fatalf("the source after its restart: %v, want TRYAGAIN", err)
	}
	if st := moveStatus(t, dst, "31"); st["state"] != "prepared" {
		t.Fatalf("the target after its restart: %v", st)
	}
	for _, n := range []string{src, dst} {
		if err := nodeClient(t, n).Do(ctx, "RUVIO", "MIGRATE", "CANCEL", "31").Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if v, err := nodeClient(t, src).Get(ctx, k).Result(); err != nil || v != k {
			t.Fatalf("%s on the source after the cancel: %q %v", k, v, err)
		}
	}
	poll.Until(t, 10*time.Second, "the target to drop what it received", func() bool {
		k, err := nodeClient(t, dst).DBSize(ctx).Result()
		return err == nil && k == 0
	})
}
