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

// A write that passed CLIENT PAUSE's check before the pause began, and
// waits for the shard lock behind a slow SORT, is in flight: the
// switchover waits for it (writes_in_flight) before it compares logs, so
// it is either on the new primary or the switchover gives up. Without the
// wait the SET ran on the old primary after the promotion: acknowledged,
// missing on the new primary, and the old primary took a full copy.
func TestASwitchoverWaitsForWritesInFlight(t *testing.T) {
	ctx := context.Background()
	pm, rs, c := switchoverGroup(t, 1)

	p := redis.NewClient(&redis.Options{Addr: pm.Address, ReadTimeout: time.Minute})
	defer p.Close()
	const n = 200_000
	for i := 0; i < n; i += 10000 {
		vals := make([]any, 0, 10000)
		for j := i; j < i+10000; j++ {
			vals = append(vals, (j*7919)%n)
		}
		if err := p.RPush(ctx, "big", vals...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	replicasCaughtUp(t, pm, rs...)

	offLoop := func() *redis.Client {
		cl := redis.NewClient(&redis.Options{Addr: pm.Address, ReadTimeout: time.Minute, MaxRetries: -1, PoolSize: 1})
		cl.BLPop(ctx, time.Second, "nothing") // leaves the event loop
		return cl
	}
	y, x := offLoop(), offLoop()
	defer y.Close()
	defer x.Close()
	yid := y.ClientID(ctx).Val()
	go y.Do(ctx, "SORT", "big", "LIMIT", "0", "1")
	poll.Until(t, 10*time.Second, "the SORT running", func() bool {
		for _, line := range strings.Split(p.ClientList(ctx).Val(), "\n") {
			if strings.HasPrefix(line, fmt.Sprintf("id=%d ", yid)) && strings.Contains(line, " cmd=sort ") {
				return true
			}
		}
		return false
	})
	done := make(chan error, 1)
	go func() { done <- x.Set(ctx, "late", "v", 0).Err() }()
	poll.Until(t, 10*time.Second, "the SET in flight behind the SORT", func() bool {
		return infoReplication(t, pm.Address)["writes_in_flight"] == "2"
	})

	cl := redis.NewClient(&redis.Options{Addr: c.Addr(), ReadTimeout: time.Minute})
	defer cl.Close()
	got, err := cl.Do(ctx, "COORDINATOR", "FAILOVER", "main").Text()
	setErr := <-done
	if err != nil {
		if !strings.Contains(err.Error(), "writes in flight on the primary") {
			t.Fatalf("COORDINATOR FAILOVER main: %v", err)
		}
		return // it gave up, nothing changed: as safe as it gets
	}
	np := redis.NewClient(&redis.Options{Addr: got})
	defer np.Close()
	poll.Until(t, 10*time.Second, "the old primary following", func() bool {
		f := infoReplication(t, pm.Address)
		return f["role"] == "slave" && f["master_link_status"] == "up"
	})
	if fc := infoReplication(t, pm.Address)["full_copies"]; fc != "0" {
		t.Errorf("the old primary wrote after the promotion (full_copies=%s); SET answered %v", fc, setErr)
	}
	if setErr == nil && np.Exists(ctx, "late").Val() != 1 {
		t.Fatalf("SET late was acknowledged by the old primary, but the new primary %s lacks it", got)
	}
}
