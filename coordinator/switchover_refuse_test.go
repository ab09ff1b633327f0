package coordinator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// A switchover promotes only a replica holding every record of the paused
// primary. Here the replica it waited for cannot be detached (it refuses
// RUVIO DETACH and REPLICAOF NO ONE, as one that died or timed out between
// the catch-up and its detach would), and the other replica lacks the
// primary's last asynchronous writes: nothing is promoted, rather than
// the lagging one, which would lose writes the primary acknowledged.
func TestASwitchoverPromotesOnlyAReplicaHoldingEverything(t *testing.T) {
	ctx := context.Background()
	pm, rs, c := switchoverGroup(t, 2)
	r1, r2 := rs[0], rs[1]

	p := redis.NewClient(&redis.Options{Addr: pm.Address})
	defer p.Close()
	for i := 0; i < 50; i++ {
		if err := p.Set(ctx, fmt.Sprintf("a:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	replicasCaughtUp(t, pm, r1, r2)

	// r2: a replica whose stream stopped (a slow or cut-off link); an
	// admin user keeps the coordinator (default user) from re-pointing it.
	a2 := redis.NewClient(&redis.Options{Addr: r2.Address})
	defer a2.Close()
	for _, cmd := range [][]any{
		{"ACL", "SETUSER", "admin", "on", ">pw", "~*", "&*", "+@all"},
		{"ACL", "SETUSER", "default", "-replicaof"},
	} {
		if err := a2.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	admin2 := redis.NewClient(&redis.Options{Addr: r2.Address, Username: "admin", Password: "pw"})
	defer admin2.Close()
	if err := admin2.Do(ctx, "RUVIO", "DETACH").Err(); err != nil {
		t.Fatal(err)
	}
	// r1, the candidate, cannot be detached (stands in for a candidate
	// that dies or times out between the catch-up and its detach).
	a1 := redis.NewClient(&redis.Options{Addr: r1.Address})
	defer a1.Close()
	if err := a1.Do(ctx, "ACL", "SETUSER", "default", "-replicaof", "-ruvio|detach").Err(); err != nil {
		t.Fatal(err)
	}

	// Asynchronous writes the primary acknowledges; r1 gets them, r2 not.
	for i := 0; i < 50; i++ {
		if err := p.Set(ctx, fmt.Sprintf("b:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	replicasCaughtUp(t, pm, r1)
	rec, _ := c.fsm.get("main")
	poll.Until(t, 10*time.Second, "a ping finding r2 detached", func() bool {
		s := c.statuses(rec)[r2.Address]
		return s.OK && len(s.Shards) > 0 && !s.Shards[0].LinkUp
	})

	cl := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer cl.Close()
	_, err := cl.Do(ctx, "COORDINATOR", "FAILOVER", "main").Text()
	if err == nil || !strings.Contains(err.Error(), "does not hold every record of the paused primary") {
		t.Fatalf("COORDINATOR FAILOVER main: %v", err)
	}
	if recordedPrimary(c, "main") != pm.Address {
		t.Fatal("the record changed")
	}
	if err := p.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatalf("the primary takes no writes after the switchover gave up: %v", err)
	}
}
