package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// COORDINATOR REBALANCE as real processes: the plan the coordinators run
// is the planner's for the map the groups start with, and CANCEL stops
// it between what committed and what did not.

// planOf is the planner's plan for the map the groups start with.
func planOf(t *testing.T, gs ...*clusterGroup) []rules.PlannedMove {
	t.Helper()
	m, err := topology.Parse(topologyText(gs...))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := rules.Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func planStrings(plan []rules.PlannedMove) []string {
	out := make([]string, len(plan))
	for i, p := range plan {
		out[i] = p.String()
	}
	return out
}

// Two uneven groups of a primary and a replica: the dry run is the
// planner's plan (two moves of 256 slots, from each of a's shards), and
// REBALANCE runs both moves back to back while a cluster client writes
// keys of both ranges. Every write it saw acknowledged is then on b's
// replica, each range on the shard of b that received it, and every
// member serves the map the two moves made.
func TestRebalanceOfUnevenGroupsWhileAClientWrites(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-8703", "8704-16383", 2)
	all := []string{a.addr(0), a.addr(1), b.addr(0), b.addr(1)}
	onVersion := func(v int64) func() bool {
		return func() bool {
			for _, m := range all {
				if mapVersion(m) != v {
					return false
				}
			}
			return true
		}
	}
	plan := planOf(t, a, b)
	if len(plan) != 2 || plan[0].FromShard == plan[1].FromShard {
		t.Fatalf("the planner's plan %v: want two moves, one from each of a's shards", plan)
	}
	ctx := context.Background()
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	dry, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice()
	if err != nil || !slices.Equal(dry, planStrings(plan)) {
		t.Fatalf("DRYRUN = %q %v, want the planner's %q", dry, err, planStrings(plan))
	}

	cc := client.RetryClusterTryAgain(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: time.Second}))
	defer cc.Close()
	// The writer: new keys of the two ranges in turn, one every few
	// milliseconds; acked holds those whose SET was answered OK.
	var (
		mu      sync.Mutex
		acked   []string
		failed  atomic.Int64
		stop    = make(chan struct{})
		stopped = make(chan struct{})
	)
	var during []string
	k0, k1 := keysOf(3000, plan[0].First, plan[0].Last, "rb0-"), keysOf(3000, plan[1].First, plan[1].Last, "rb1-")
	for i := range k0 {
		during = append(during, k0[i], k1[i])
	}
	go func() {
		defer close(stopped)
		for _, k := range during {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			if err := cc.Set(ctx, k, "v-"+k, 0).Err(); err != nil {
				failed.Add(1)
				continue
			}
			mu.Lock()
			acked = append(acked, k)
			mu.Unlock()
		}
	}()
	ackedNow := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	poll.Until(t, 10*time.Second, "the writer under way", func() bool { return ackedNow() >= 20 })

	if n, err := lc.Do(ctx, "COORDINATOR", "REBALANCE").Int(); err != nil || n != 2 {
		t.Fatalf("REBALANCE = %d %v, want 2", n, err)
	}
	poll.Until(t, 40*time.Second, "the rebalance done", func() bool { return statusOf(leader)["rebalance"] == "done" })
	n := ackedNow()
	poll.Until(t, 10*time.Second, "more writes after the rebalance", func() bool { return ackedNow() >= n+50 })
	close(stop)
	<-stopped
	if st := statusOf(leader); st["rebalance_moves"] != "2" || st["rebalance_left"] != "0" || st["moved_ranges"] != "2" {
		t.Fatalf("STATUS after the rebalance: %v", st)
	}
	if failed.Load() > 0 {
		t.Errorf("%d writes failed during the rebalance", failed.Load())
	}
	poll.Until(t, 10*time.Second, "every member on map version 5", onVersion(5))

	mu.Lock()
	want := slices.Clone(acked)
	mu.Unlock()
	// Each acknowledged key on the shard of b's replica its range moved
	// to, answered there without a redirect.
	replica := make([]*redis.Client, 2)
	for i := range replica {
		replica[i] = redis.NewClient(&redis.Options{Addr: shardPort(b.addr(1), i), MaxRetries: -1,
			OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
		defer replica[i].Close()
	}
	shardOf := func(k string) int {
		s := slots.OfString(k)
		for _, p := range plan {
			if p.First <= s && s <= p.Last {
				return p.Shard
			}
		}
		t.Fatalf("key %s in slot %d is in no planned move", k, s)
		return 0
	}
	poll.UntilNil(t, 10*time.Second, "b's replica holding both ranges' acknowledged writes", func() error {
		for i, k := range want {
			sh := shardOf(k)
			if v, err := replica[sh].Get(ctx, k).Result(); v != "v-"+k {
				return fmt.Errorf("write %d of %d: GET %s on the replica's shard %d = %q %v", i, len(want), k, sh, v, err)
			}
		}
		return nil
	})
	ranges := map[rules.PlannedMove]bool{}
	for _, k := range want {
		s := slots.OfString(k)
		for _, p := range plan {
			if p.First <= s && s <= p.Last {
				ranges[p] = true
			}
		}
	}
	if len(ranges) != 2 {
		t.Fatalf("acknowledged writes in %v only, want keys of both moves", ranges)
	}
}

// COORDINATOR CANCEL during a rebalance: the moves committed before it
// stay, the move in flight ends cancelled with its range still on the
// source, and no further move begins. Here the plan's first move (no
// keys) commits and the second (keys copied slowly) is cancelled while
// it copies: the map stays at the version one move made, a still serves
// the second range with every key, and the dry run afterwards is the rest
// of the plan.
func TestACancelledRebalanceMovesNothingMore(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-9215", "9216-16383", 1)
	onVersion := func(v int64) func() bool {
		return func() bool { return mapVersion(a.addr(0)) == v && mapVersion(b.addr(0)) == v }
	}
	plan := planOf(t, a, b)
	if len(plan) < 3 {
		t.Fatalf("the planner's plan %v: want at least three moves", plan)
	}
	keys := slowKeys(t, a, 40, plan[1].First, plan[1].Last, "30000")
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	ctx := context.Background()
	if n, err := lc.Do(ctx, "COORDINATOR", "REBALANCE").Int(); err != nil || n != len(plan) {
		t.Fatalf("REBALANCE = %d %v, want %d", n, err, len(plan))
	}
	poll.Until(t, 20*time.Second, "the first move committed and the second copying", func() bool {
		st := statusOf(leader)
		return st["moved_ranges"] == "1" && st["move_source_state"] == "copying"
	})
	if err := lc.Do(ctx, "COORDINATOR", "CANCEL").Err(); err != nil {
		t.Fatalf("COORDINATOR CANCEL: %v", err)
	}
	st := statusOf(leader)
	if st["rebalance"] != "cancelled" || st["rebalance_moves"] != "1" || st["move"] != "cancelled" ||
		st["move_range"] != plan[1].String() || st["moved_ranges"] != "1" {
		t.Fatalf("STATUS after the cancel: %v", st)
	}
	poll.Until(t, 10*time.Second, "both members on map version 4", onVersion(4))
	poll.Stays(t, 2*time.Second, "no move after the cancel", func() bool {
		st := statusOf(leader)
		return st["moved_ranges"] == "1" && st["move"] == "cancelled" && onVersion(4)()
	})
	// The cancelled range stays a's, every key on the shard it was on;
	// the committed one is b's.
	everyKeyOn(t, shardPort(a.addr(0), plan[1].FromShard), keys)
	ap := redis.NewClient(&redis.Options{Addr: shardPort(a.addr(0), plan[0].FromShard), MaxRetries: -1})
	defer ap.Close()
	moved := keysOf(1, plan[0].First, plan[0].Last, "gone-")[0]
	if err := ap.Get(ctx, moved).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Fatalf("a on a key of the committed move: %v", err)
	}
	rest, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice()
	if err != nil || !slices.Equal(rest, planStrings(plan[1:])) {
		t.Fatalf("DRYRUN after the cancel = %q %v, want the plan's rest %q", rest, err, planStrings(plan[1:]))
	}
}

// startJoining starts the members of g, a group that joins running
// groups, from a cluster_topology file of every group in gs (g among
// them) at version 1: the coordinators' newer map replaces it.
func startJoining(t *testing.T, g *clusterGroup, gs ...*clusterGroup) {
	file := filepath.Join(t.TempDir(), "topology")
	if err := os.WriteFile(file, []byte(topologyText(gs...)), 0o644); err != nil {
		t.Fatal(err)
	}
	startGroupMembers(t, g, file)
}

// A group added to running groups: its nodes start with slots = [] in
// their cluster_topology, the coordinators are stopped and started again
// with the new group in their [[groups]] (slots = []), and every member
// then serves a map with the new group, owning nothing; REBALANCE gives
// it its share, the keys written before it still read, the new group's
// primary serving some of them itself.
func TestAGroupJoinsRunningGroupsAndIsRebalancedInto(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-8191", "8192-16383", 1)
	old := groupsTOML(nil, a, b)
	ctx := context.Background()
	cc := client.RetryClusterTryAgain(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8}))
	defer cc.Close()
	keys := keysOf(300, 0, 16383, "join-")
	for _, k := range keys {
		if err := cc.Set(ctx, k, "v-"+k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}

	c := planGroup(t, "c", "", 1)
	startJoining(t, c, a, b, c)
	noSlots := func(g *clusterGroup) string {
		if g.slots == "" {
			return ""
		}
		return strconv.Quote(g.slots)
	}
	grown := groupsTOML(noSlots, a, b, c)
	for _, co := range cs {
		co.kill()
	}
	for _, co := range cs {
		body, err := os.ReadFile(co.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), old) {
			t.Fatalf("%s does not hold the groups it started with", co.file)
		}
		if err := os.WriteFile(co.file, []byte(strings.Replace(string(body), old, grown, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		co.start(t)
	}
	// Three group epochs of 1: version 4, on the old groups' members and
	// the new one's.
	poll.Until(t, 30*time.Second, "every member on map version 4", func() bool {
		return mapVersion(a.addr(0)) == 4 && mapVersion(b.addr(0)) == 4 && mapVersion(c.addr(0)) == 4
	})
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	dry, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice()
	if err != nil || len(dry) == 0 {
		t.Fatalf("DRYRUN = %q %v", dry, err)
	}
	for _, l := range dry {
		if !strings.HasSuffix(l[:strings.LastIndex(l, "/")], "-> c") {
			t.Fatalf("plan line %q: want every move to c", l)
		}
	}
	n, err := lc.Do(ctx, "COORDINATOR", "REBALANCE").Int()
	if err != nil || n != len(dry) {
		t.Fatalf("REBALANCE = %d %v, want %d", n, err, len(dry))
	}
	poll.Until(t, 60*time.Second, "the rebalance done", func() bool { return statusOf(leader)["rebalance"] == "done" })
	if again, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice(); err != nil || len(again) != 0 {
		t.Fatalf("DRYRUN after the rebalance = %q %v", again, err)
	}
	for _, k := range keys {
		if v, err := cc.Get(ctx, k).Result(); err != nil || v != "v-"+k {
			t.Fatalf("GET %s after the rebalance = %q %v", k, v, err)
		}
	}
	onC := 0
	for i := range 2 {
		cl := redis.NewClient(&redis.Options{Addr: shardPort(c.addr(0), i), MaxRetries: -1})
		for _, k := range keys {
			if v, err := cl.Get(ctx, k).Result(); err == nil && v == "v-"+k {
				onC++
			}
		}
		cl.Close()
	}
	// About a third of the keys; at least some.
	if onC == 0 || onC == len(keys) {
		t.Fatalf("c's primary serves %d of the %d keys", onC, len(keys))
	}
}
