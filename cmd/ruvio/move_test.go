package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/internal/poll"
)

// Slot moves between two groups of a primary and a replica, driven by
// three coordinators, as real processes.

// leaderCoord is the coordinator that leads now.
func leaderCoord(t *testing.T, cs []*coord) *coord {
	var out *coord
	poll.Until(t, 15*time.Second, "a leader", func() bool {
		for _, c := range cs {
			if leaderStatusField(c, "state") == "leader" {
				out = c
				return true
			}
		}
		return false
	})
	return out
}

// statusOf is a coordinator's COORDINATOR STATUS, field by field.
func statusOf(c *coord) map[string]string {
	cl := c.client("")
	defer cl.Close()
	txt, err := cl.Do(context.Background(), "COORDINATOR", "STATUS").Text()
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, l := range strings.Split(txt, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// A range moves from group a to group b while a client keeps writing
// keys of it: every write the client saw acknowledged is on b's primary
// (and reaches b's replica), a's nodes answer MOVED naming b, the map
// version rises by one, and a second MOVE sent while the first runs is
// refused. A move cancelled before its commit then moves nothing: a
// keeps serving that range, with its keys, and the version stays.
func TestMoveARangeWhileAClientWrites(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-8191", "8192-16383", 2)
	ctx := context.Background()
	all := []string{a.addr(0), a.addr(1), b.addr(0), b.addr(1)}

	cc := client.RetryClusterTryAgain(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: time.Second}))
	defer cc.Close()
	before := keysOf(100, 0, 99, "pre-")
	for _, k := range before {
		if err := cc.Set(ctx, k, "v-"+k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	// The writer: one new key of the range every few milliseconds; acked
	// holds the keys whose SET was answered OK.
	var (
		mu      sync.Mutex
		acked   []string
		failed  atomic.Int64
		slowest atomic.Int64 // the longest SET, in ns
		stop    = make(chan struct{})
		stopped = make(chan struct{})
	)
	during := keysOf(5000, 0, 99, "during-")
	go func() {
		defer close(stopped)
		for _, k := range during {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			t0 := time.Now()
			err := cc.Set(ctx, k, "v-"+k, 0).Err()
			if d := int64(time.Since(t0)); d > slowest.Load() {
				slowest.Store(d)
			}
			if err != nil {
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

	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	// Two MOVEs in one pipeline: the second arrives while the first runs.
	pipe := lc.Pipeline()
	first := pipe.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "b", "0")
	second := pipe.Do(ctx, "COORDINATOR", "MOVE", "100", "199", "b", "0")
	pipe.Exec(ctx)
	id, err := first.Int64()
	if err != nil || id < 1 {
		t.Fatalf("COORDINATOR MOVE 0 99 b 0 = %v %v", id, err)
	}
	if err := second.Err(); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Fatalf("a second MOVE while one runs: %v", err)
	}
	began := time.Now()
	poll.Until(t, 40*time.Second, "the move committed", func() bool { return statusOf(leader)["move"] == "committed" })
	committed := time.Since(began)
	poll.Until(t, 10*time.Second, "the writer on after the commit", func() bool { return ackedNow() >= 20+50 })
	n := ackedNow()
	poll.Until(t, 10*time.Second, "more writes after the commit", func() bool { return ackedNow() >= n+50 })
	close(stop)
	<-stopped
	st := statusOf(leader)
	if st["move_id"] != fmt.Sprint(id) || st["move_range"] != "0-99 a/0 -> b/0" || st["moved_ranges"] != "1" || st["cluster_moved_ranges"] != "1" {
		t.Fatalf("STATUS after the commit: %v", st)
	}
	poll.Until(t, 10*time.Second, "every member on map version 4", func() bool {
		for _, m := range all {
			if mapVersion(m) != 4 {
				return false
			}
		}
		return true
	})

	// b's primary holds every acknowledged write itself (shard 0's port,
	// no redirect followed), and its replica gets them too.
	bp := redis.NewClient(&redis.Options{Addr: shardPort(b.addr(0), 0), MaxRetries: -1})
	defer bp.Close()
	br := redis.NewClient(&redis.Options{Addr: shardPort(b.addr(1), 0), MaxRetries: -1,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
	defer br.Close()
	mu.Lock()
	want := append(append([]string{}, before...), acked...)
	mu.Unlock()
	for _, k := range want {
		if v, err := bp.Get(ctx, k).Result(); err != nil || v != "v-"+k {
			t.Fatalf("b's primary: GET %s = %q %v (%d acknowledged writes)", k, v, err, len(want))
		}
	}
	poll.UntilNil(t, 10*time.Second, "b's replica holding every acknowledged write", func() error {
		for i, k := range want {
			if v, err := br.Get(ctx, k).Result(); v != "v-"+k {
				return fmt.Errorf("write %d of %d: GET %s = %q %v (replica map version %d)", i, len(want), k, v, err, mapVersion(b.addr(1)))
			}
		}
		return nil
	})
	ap := redis.NewClient(&redis.Options{Addr: shardPort(a.addr(0), 0), MaxRetries: -1})
	defer ap.Close()
	if err := ap.Get(ctx, before[0]).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") || !strings.HasSuffix(err.Error(), shardPort(b.addr(0), 0)) {
		t.Fatalf("a's primary on a moved key: %v", err)
	}
	t.Logf("move %d seen committed %v after MOVE; %d writes acknowledged, %d failed, the slowest took %v", id, committed.Round(time.Millisecond),
		len(want)-len(before), failed.Load(), time.Duration(slowest.Load()).Round(time.Millisecond))
	if failed.Load() > 0 {
		t.Errorf("%d writes failed during the move", failed.Load())
	}

	// A move cancelled before its commit moves nothing. The copy is
	// slowed down so that the cancel comes long before a commit could.
	keep := keysOf(100, 200, 299, "keep-")
	big := strings.Repeat("x", 2000)
	for _, k := range keep {
		if err := cc.Set(ctx, k, big, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	if err := ap.ConfigSet(ctx, "migration-max-bytes-per-sec", "10000").Err(); err != nil {
		t.Fatalf("CONFIG SET migration-max-bytes-per-sec: %v", err)
	}
	pipe = lc.Pipeline()
	mv := pipe.Do(ctx, "COORDINATOR", "MOVE", "200", "299", "b", "1")
	cancel := pipe.Do(ctx, "COORDINATOR", "CANCEL")
	pipe.Exec(ctx)
	if err := mv.Err(); err != nil {
		t.Fatalf("COORDINATOR MOVE 200 299 b 1: %v", err)
	}
	if err := cancel.Err(); err != nil {
		t.Fatalf("COORDINATOR CANCEL: %v", err)
	}
	st = statusOf(leader)
	if st["move"] != "cancelled" || st["move_range"] != "200-299 a/0 -> b/1" || st["moved_ranges"] != "1" {
		t.Fatalf("STATUS after the cancel: %v", st)
	}
	if err := lc.Do(ctx, "COORDINATOR", "CANCEL").Err(); err == nil || !strings.Contains(err.Error(), "no move is running") {
		t.Fatalf("a second CANCEL: %v", err)
	}
	// a serves the range again (the source unfreezes on the cancel), with
	// every key; the version stays 4 and b still redirects it to a.
	poll.UntilNil(t, 10*time.Second, "a serving the cancelled range", func() error {
		for _, k := range keep {
			if v, err := ap.Get(ctx, k).Result(); err != nil || v != big {
				return fmt.Errorf("GET %s on a: %d bytes, %v", k, len(v), err)
			}
		}
		return nil
	})
	if err := cc.Set(ctx, keep[0], "after", 0).Err(); err != nil {
		t.Fatalf("a write to the cancelled range: %v", err)
	}
	if v := ap.Get(ctx, keep[0]).Val(); v != "after" {
		t.Fatalf("the write after the cancel is not on a: %q", v)
	}
	bp1 := redis.NewClient(&redis.Options{Addr: shardPort(b.addr(0), 1), MaxRetries: -1})
	defer bp1.Close()
	if err := bp1.Get(ctx, keep[1]).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Fatalf("b's shard 1 on a key of the cancelled range: %v", err)
	}
	poll.Stays(t, time.Second, "the version staying 4", func() bool { return mapVersion(a.addr(0)) == 4 && mapVersion(b.addr(0)) == 4 })
}

// slowKeys writes n keys of 2000 bytes in first..last through a's
// primary and caps a's copy rate, so a move of the range takes a while.
func slowKeys(t *testing.T, a *clusterGroup, n, first, last int, perSec string) []string {
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8})
	defer cc.Close()
	keys := keysOf(n, first, last, "slow-")
	for _, k := range keys {
		if err := cc.Set(ctx, k, strings.Repeat(k, 2000/len(k)+1)[:2000], 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	ap := redis.NewClient(&redis.Options{Addr: a.addr(0), MaxRetries: -1})
	defer ap.Close()
	if err := ap.ConfigSet(ctx, "migration-max-bytes-per-sec", perSec).Err(); err != nil {
		t.Fatalf("CONFIG SET migration-max-bytes-per-sec: %v", err)
	}
	return keys
}

// everyKeyOn checks that the shard at addr serves every key itself.
func everyKeyOn(t *testing.T, addr string, keys []string) {
	t.Helper()
	cl := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer cl.Close()
	for _, k := range keys {
		if v, err := cl.Get(context.Background(), k).Result(); err != nil || v != strings.Repeat(k, 2000/len(k)+1)[:2000] {
			t.Fatalf("%s: GET %s = %d bytes, %v", addr, k, len(v), err)
		}
	}
}

// A failover of the target group while the range is being copied ends
// that start: the leader starts the move again with the new primary, and
// the second start commits, every key on the new primary.
func TestMoveStartsAgainAfterAFailoverOfTheTarget(t *testing.T) {
	moveThroughAFailover(t, "b")
}

// The same with a failover of the source group: the second start copies
// the range from the promoted replica.
func TestMoveStartsAgainAfterAFailoverOfTheSource(t *testing.T) {
	moveThroughAFailover(t, "a")
}

func moveThroughAFailover(t *testing.T, failing string) {
	a, b, cs := startTwoGroups(t, "0-8191", "8192-16383", 2)
	keys := slowKeys(t, a, 60, 0, 99, "60000")
	ctx := context.Background()
	// Every key on a's replica too, before its primary may die.
	ap := redis.NewClient(&redis.Options{Addr: a.addr(0), MaxRetries: -1})
	if n, err := ap.Wait(ctx, 1, 5000).Result(); err != nil || n < 1 {
		t.Fatalf("WAIT on a's primary: %d %v", n, err)
	}
	ap.Close()
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	if err := lc.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "b", "0").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the copy under way", func() bool { return statusOf(leader)["move_source_state"] == "copying" })
	g := map[string]*clusterGroup{"a": a, "b": b}[failing]
	g.members[0].p.cmd.Process.Kill()
	<-g.members[0].p.done
	poll.Until(t, 20*time.Second, failing+" failed over", func() bool { return primaryOfGroup(leader, failing) == g.addr(1) })
	poll.Until(t, 40*time.Second, "the move committed", func() bool { return statusOf(leader)["move"] == "committed" })
	st := statusOf(leader)
	if st["move_starts"] != "2" || !strings.Contains(st["move_error"], "failed over") {
		t.Fatalf("STATUS: %v", st)
	}
	// 1 + one group at epoch 1, the other at 2 + one moved range, on
	// every live member.
	var live []string
	for _, x := range []*clusterGroup{a, b} {
		for i := range x.members {
			if x != g || i != 0 {
				live = append(live, x.addr(i))
			}
		}
	}
	poll.Until(t, 10*time.Second, "the live members on map version 5", func() bool {
		for _, m := range live {
			if mapVersion(m) != 5 {
				return false
			}
		}
		return true
	})
	target := b.addr(0)
	if failing == "b" {
		target = b.addr(1)
	}
	everyKeyOn(t, shardPort(target, 0), keys)
}

// The leader dies in the middle of a move: the coordinator the others
// elect takes the move over from the record and commits it, in its
// first start.
func TestANewLeaderTakesOverAMove(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-8191", "8192-16383", 2)
	keys := slowKeys(t, a, 60, 0, 99, "60000")
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	ctx := context.Background()
	id, err := lc.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "b", "0").Int64()
	lc.Close()
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the copy under way", func() bool { return statusOf(leader)["move_source_state"] == "copying" })
	leader.kill()
	var rest []*coord
	for _, c := range cs {
		if c != leader {
			rest = append(rest, c)
		}
	}
	next := leaderCoord(t, rest)
	poll.Until(t, 40*time.Second, "the move committed by the new leader", func() bool { return statusOf(next)["move"] == "committed" })
	if st := statusOf(next); st["move_id"] != fmt.Sprint(id) || st["move_starts"] != "1" {
		t.Fatalf("the new leader's STATUS: %v", st)
	}
	poll.Until(t, 10*time.Second, "every member on map version 4", func() bool {
		for _, m := range []string{a.addr(0), a.addr(1), b.addr(0), b.addr(1)} {
			if mapVersion(m) != 4 {
				return false
			}
		}
		return true
	})
	everyKeyOn(t, shardPort(b.addr(0), 0), keys)
}

// COORDINATOR REBALANCE evens the slots out: the dry run's plan, then the
// moves one after another until the plan is empty, every key of a moved
// range on its new owner; STATUS counts them.
func TestRebalanceEvensTheSlotsOut(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-8703", "8704-16383", 1)
	ctx := context.Background()
	cc := client.RetryClusterTryAgain(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8}))
	defer cc.Close()
	keys := keysOf(200, 0, 8703, "rb-")
	for _, k := range keys {
		if err := cc.Set(ctx, k, "v-"+k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	for _, c := range cs {
		if c == leader {
			continue
		}
		fc := c.client("")
		for _, args := range [][]any{{"COORDINATOR", "REBALANCE"}, {"COORDINATOR", "MOVE", "0", "9", "b", "0"}, {"COORDINATOR", "CANCEL"}} {
			if err := fc.Do(ctx, args...).Err(); err == nil || !strings.Contains(err.Error(), "not the leader; send it to coordinator "+fmt.Sprint(leader.id)) {
				t.Errorf("%v on follower %d: %v", args, c.id, err)
			}
		}
		fc.Close()
	}
	plan, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice()
	if err != nil || len(plan) == 0 {
		t.Fatalf("DRYRUN = %q %v", plan, err)
	}
	// a holds 8704 slots of its 8192 on two shards, b 7680: 512 slots move.
	moved := 0
	for _, l := range plan {
		var first, last, fs, ts int
		if _, err := fmt.Sscanf(l, "%d-%d a/%d -> b/%d", &first, &last, &fs, &ts); err != nil || last-first+1 > 256 {
			t.Fatalf("plan line %q: %v", l, err)
		}
		moved += last - first + 1
	}
	if moved != 512 {
		t.Fatalf("the plan %q moves %d slots, want 512", plan, moved)
	}
	if v := mapVersion(a.addr(0)); v != 3 {
		t.Fatalf("the dry run moved something: version %d", v)
	}
	n, err := lc.Do(ctx, "COORDINATOR", "REBALANCE").Int()
	if err != nil || n != len(plan) {
		t.Fatalf("REBALANCE = %d %v, want %d", n, err, len(plan))
	}
	if err := lc.Do(ctx, "COORDINATOR", "MOVE", "0", "9", "b", "0").Err(); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("MOVE during a rebalance: %v", err)
	}
	if err := lc.Do(ctx, "COORDINATOR", "REBALANCE").Err(); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("a second REBALANCE: %v", err)
	}
	poll.Until(t, 60*time.Second, "the rebalance done", func() bool { return statusOf(leader)["rebalance"] == "done" })
	st := statusOf(leader)
	if st["rebalance_moves"] != fmt.Sprint(len(plan)) || st["rebalance_left"] != "0" || st["moved_ranges"] != fmt.Sprint(len(plan)) {
		t.Fatalf("STATUS after the rebalance: %v", st)
	}
	if again, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice(); err != nil || len(again) != 0 {
		t.Fatalf("DRYRUN after the rebalance = %q %v", again, err)
	}
	want := int64(3 + len(plan))
	poll.Until(t, 10*time.Second, "both members on the last map", func() bool { return mapVersion(a.addr(0)) == want && mapVersion(b.addr(0)) == want })
	for _, k := range keys {
		if v, err := cc.Get(ctx, k).Result(); err != nil || v != "v-"+k {
			t.Fatalf("GET %s after the rebalance = %q %v", k, v, err)
		}
	}
}

// A target that refuses every start (its durability is snapshot, which
// slot moves do not support) ends the move as failed after its third
// start: recorded, reported by STATUS with the node's words, nothing
// moved.
func TestAMoveEndsFailedAfterThreeStarts(t *testing.T) {
	a := planGroup(t, "a", "0-8191", 1)
	b := planGroup(t, "b", "8192-16383", 1)
	startClusterGroups(t, a, b)
	// b's only member again with durability snapshot (no replica, so no
	// failover while it restarts).
	bm := b.members[0]
	bm.p.cmd.Process.Kill()
	<-bm.p.done
	bm.args[1] = "snapshot"
	bm.restart(t)
	cs := startCoordinators3(t, groupsTOML(nil, a, b))
	poll.Until(t, 20*time.Second, "every member on map version 3", func() bool { return mapVersion(a.addr(0)) == 3 && mapVersion(b.addr(0)) == 3 })
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	ctx := context.Background()
	if err := lc.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "b", "0").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "the move failed", func() bool { return statusOf(leader)["move"] == "failed" })
	st := statusOf(leader)
	if st["move_starts"] != "3" || !strings.Contains(st["move_error"], "durability") || st["moved_ranges"] != "0" {
		t.Fatalf("STATUS: %v", st)
	}
	// The record has the end too: the followers, once they applied it,
	// report no running move.
	poll.Until(t, 5*time.Second, "the followers applying the end", func() bool {
		for _, c := range cs {
			if c != leader && statusOf(c)["move"] != "none" {
				return false
			}
		}
		return true
	})
	poll.Stays(t, time.Second, "nothing moved", func() bool { return mapVersion(a.addr(0)) == 3 && mapVersion(b.addr(0)) == 3 })
	cc := redis.NewClient(&redis.Options{Addr: a.addr(0), MaxRetries: -1})
	defer cc.Close()
	k := keysOf(1, 0, 99, "still-")[0]
	if err := cc.Set(ctx, k, "on a", 0).Err(); err != nil {
		t.Fatalf("a write to the range on a after the failed move: %v", err)
	}
}

// The leader dies during a rebalance: the new leader finishes the move in
// flight and runs no rebalance of its own (the plan is not in the
// record); COORDINATOR REBALANCE on it goes on from where the slots are.
func TestANewLeaderFinishesTheRebalancesMoveAndStopsThere(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-9215", "9216-16383", 1)
	// The plan's first move takes 4352-4607 (the top of a's shard 0);
	// keys there, copied slowly, keep it in flight for a while.
	keys := slowKeys(t, a, 40, 4352, 4607, "30000")
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	ctx := context.Background()
	plan, err := lc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice()
	if err != nil || len(plan) != 4 || plan[0] != "4352-4607 a/0 -> b/0" {
		t.Fatalf("DRYRUN = %q %v", plan, err)
	}
	if n, err := lc.Do(ctx, "COORDINATOR", "REBALANCE").Int(); err != nil || n != 4 {
		t.Fatalf("REBALANCE = %d %v", n, err)
	}
	lc.Close()
	poll.Until(t, 10*time.Second, "the first move copying", func() bool { return statusOf(leader)["move_source_state"] == "copying" })
	leader.kill()
	var rest []*coord
	for _, c := range cs {
		if c != leader {
			rest = append(rest, c)
		}
	}
	next := leaderCoord(t, rest)
	poll.Until(t, 30*time.Second, "the move in flight committed", func() bool { return statusOf(next)["move"] == "committed" })
	poll.Stays(t, time.Second, "no further move", func() bool {
		st := statusOf(next)
		return st["moved_ranges"] == "1" && st["rebalance"] == ""
	})
	everyKeyOn(t, shardPort(b.addr(0), 0), keys)
	nc := next.client("")
	defer nc.Close()
	left, err := nc.Do(ctx, "COORDINATOR", "REBALANCE", "DRYRUN").StringSlice()
	if err != nil || len(left) != 3 {
		t.Fatalf("DRYRUN on the new leader = %q %v", left, err)
	}
	if n, err := nc.Do(ctx, "COORDINATOR", "REBALANCE").Int(); err != nil || n != 3 {
		t.Fatalf("REBALANCE on the new leader = %d %v", n, err)
	}
	poll.Until(t, 30*time.Second, "the rebalance done", func() bool { return statusOf(next)["rebalance"] == "done" })
	if st := statusOf(next); st["moved_ranges"] != "4" || st["rebalance_moves"] != "3" {
		t.Fatalf("STATUS: %v", st)
	}
}
