package server

import (
	"context"
	"fmt"
	"testing"
	"time"
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
