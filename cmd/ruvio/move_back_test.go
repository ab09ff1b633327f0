package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/internal/poll"
)

// A range moved back to the group it just left waits for that group's
// hand-over: while a's primary cannot store the map that gave the range
// to b (a directory stands where TOPOLOGY goes), it still holds its copy,
// answers the move back's IMPORT with TRYAGAIN, and the coordinators ask
// again; once the map is stored and the copy dropped, the move back
// commits and a serves every key again.
func TestAMoveBackWaitsForTheHandOver(t *testing.T) {
	a, b, cs := startTwoGroups(t, "0-8191", "8192-16383", 1)
	ctx := context.Background()
	cc := client.RetryClusterTryAgain(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: time.Second}))
	defer cc.Close()
	keys := keysOf(50, 0, 99, "back-")
	for _, k := range keys {
		if err := cc.Set(ctx, k, "v-"+k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}

	stored := filepath.Join(a.members[0].dir, "TOPOLOGY")
	if err := os.Remove(stored); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(stored, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	leader := leaderCoord(t, cs)
	lc := leader.client("")
	defer lc.Close()
	if err := lc.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "b", "0").Err(); err != nil {
		t.Fatalf("COORDINATOR MOVE 0 99 b 0: %v", err)
	}
	poll.Until(t, 30*time.Second, "the move to b committed and served by a", func() bool {
		return statusOf(leader)["move"] == "committed" && mapVersion(a.addr(0)) == 4
	})
	if err := lc.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "a", "0").Err(); err != nil {
		t.Fatalf("COORDINATOR MOVE 0 99 a 0: %v", err)
	}
	poll.Until(t, 20*time.Second, "the move back's IMPORT answered TRYAGAIN", func() bool {
		return strings.Contains(statusOf(leader)["move_last_node_error"], "TRYAGAIN slots 0-99 are still being handed over")
	})
	if st := statusOf(leader); st["move"] != "running" {
		t.Fatalf("the move back while a hands the range over: %v", st)
	}

	if err := os.RemoveAll(stored); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "the move back committed", func() bool {
		return statusOf(leader)["move"] == "committed" && mapVersion(a.addr(0)) == 5 && mapVersion(b.addr(0)) == 5
	})
	ap := redis.NewClient(&redis.Options{Addr: shardPort(a.addr(0), 0), MaxRetries: -1})
	defer ap.Close()
	for _, k := range keys {
		if v, err := ap.Get(ctx, k).Result(); err != nil || v != "v-"+k {
			t.Errorf("a's primary after the move back: GET %s = %q %v", k, v, err)
		}
	}
}
