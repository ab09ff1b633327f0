package coordinator

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// An old primary that cannot be pointed at the new one after a switchover
// (its REPLICAOF fails, here through an ACL) keeps its writes paused, and
// the rounds after renew the pause while it still cannot be demoted: two
// primaries never take writes at once.
func TestASwitchoverKeepsAnOldPrimaryThatCannotFollowPaused(t *testing.T) {
	ctx := context.Background()
	pm, rs, c := switchoverGroup(t, 1)
	r1 := rs[0]
	p := redis.NewClient(&redis.Options{Addr: pm.Address})
	defer p.Close()
	if err := p.Set(ctx, "a", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	replicasCaughtUp(t, pm, r1)
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
