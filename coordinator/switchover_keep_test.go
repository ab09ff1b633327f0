package coordinator

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// An old primary that cannot be pointed at the new one after a switchover
// (its REPLICAOF fails, here through an ACL) keeps its writes paused, and
// the rounds after renew the pause while it still cannot be demoted: two
// primaries never take writes at once.
func TestASwitchoverKeepsAnOldPrimaryThatCannotFollowPaused(t *testing.T) {
	ctx := context.Background()
	_, pm := dataNode(t, "primary", "")
	_, r1 := dataNode(t, "replica", pm.Replication)
	c := startCoordinator(t, []Group{{Name: "main", Members: []Member{pm, r1}}}, roomyPause)
	poll.Until(t, 15*time.Second, "the first record", func() bool { return recordedPrimary(c, "main") == pm.Address })
	p := redis.NewClient(&redis.Options{Addr: pm.Address})
	defer p.Close()
	if err := p.Set(ctx, "a", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	last := infoReplication(t, pm.Address)["wal_last_sequence"]
	poll.Until(t, 10*time.Second, "r1 caught up", func() bool { return infoReplication(t, r1.Address)["wal_last_sequence"] == last })
	if err := p.Do(ctx, "ACL", "SETUSER", "default", "-replicaof").Err(); err != nil {
		t.Fatal(err)
	}
	cl := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer cl.Close()
	got, err := cl.Do(ctx, "COORDINATOR", "FAILOVER", "main").Text()
	if err != nil || got != r1.Address {
		t.Fatalf("COORDINATOR FAILOVER main: %q %v", got, err)
	}
	n := redis.NewClient(&redis.Options{Addr: got})
	defer n.Close()
	if err := n.Set(ctx, "on-new", "y", 0).Err(); err != nil {
		t.Fatalf("a write on the new primary: %v", err)
	}
	held := redis.NewClient(&redis.Options{Addr: pm.Address, ReadTimeout: time.Second, MaxRetries: -1})
	defer held.Close()
	if err := held.Set(ctx, "on-old", "x", 0).Err(); err == nil {
		t.Fatal("the old primary, which could not be demoted, took a write")
	}
}
