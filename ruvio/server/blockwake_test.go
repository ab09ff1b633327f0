package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// A push that lands right after a blocking pop found its list empty wakes
// the pop: the pop's keys are registered under the lock of the run that
// found nothing, not after it, so no write falls in between. Each round
// starts the pop and the push together so the push often lands in that
// window; a lost wake-up leaves the pop waiting out its timeout.
func TestBlockingPopSeesPushRightAfterItsRun(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	popper, pusher := client(t, s, 0), client(t, s, 0)
	for i := range 1000 {
		key := fmt.Sprintf("l%d", i)
		got := make(chan []string, 1)
		go func() {
			v, _ := popper.BLPop(ctx, 5*time.Second, key).Result()
			got <- v
		}()
		if err := pusher.LPush(ctx, key, "x").Err(); err != nil {
			t.Fatal(err)
		}
		if v := <-got; len(v) != 2 || v[1] != "x" {
			t.Fatalf("round %d: BLPOP answered %q; the push was missed", i, v)
		}
	}
}

// TestAWaitLongerThanADurationWaits: a timeout of centuries (as many
// milliseconds as an int64 holds nearly) is a wait, as in Redis, not a
// deadline that wraps around into the past and ends it at once.
func TestAWaitLongerThanADurationWaits(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	popper, pusher := client(t, s, 0), client(t, s, 0)
	got := make(chan []any, 1)
	go func() {
		v, _ := popper.Do(ctx, "BLPOP", "l", "9223372036854775").Slice()
		got <- v
	}()
	poll.Until(t, 5*time.Second, "the pop to wait", func() bool {
		return strings.Contains(popper.ClientList(ctx).Val(), "cmd=blpop")
	})
	select {
	case v := <-got:
		t.Fatalf("BLPOP answered %v at once", v)
	default:
	}
	if err := pusher.LPush(ctx, "l", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if v := <-got; len(v) != 2 || v[1] != "x" {
		t.Fatalf("BLPOP answered %v", v)
	}
}
