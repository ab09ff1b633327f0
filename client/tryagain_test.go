package client

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// refuseFirst answers the first n attempts that reach it with TRYAGAIN
// without sending them, the way a frozen slot answers, and lets the
// rest through to the real node.
type refuseFirst struct {
	n, seen int
}

var errTryAgain = errors.New("TRYAGAIN Multiple keys request during rehashing of slot")

func (r *refuseFirst) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (r *refuseFirst) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "set" {
			return next(ctx, cmd) // the connection's own set-up
		}
		if r.seen++; r.seen <= r.n {
			cmd.SetErr(errTryAgain)
			return errTryAgain
		}
		return next(ctx, cmd)
	}
}

func (r *refuseFirst) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) == 0 || cmds[0].Name() != "incr" {
			return next(ctx, cmds)
		}
		if r.seen++; r.seen <= r.n {
			for _, c := range cmds {
				c.SetErr(errTryAgain)
			}
			return errTryAgain
		}
		return next(ctx, cmds)
	}
}

func TestTryAgainWaitsAddUpTo635ms(t *testing.T) {
	var total time.Duration
	for _, w := range TryAgainWaits() {
		total += w
	}
	if len(TryAgainWaits()) != 7 || total != 635*time.Millisecond {
		t.Fatalf("waits %v, %v in all", TryAgainWaits(), total)
	}
}

func TestRetryTryAgain(t *testing.T) {
	addr := startNode(t)
	ctx := context.Background()
	for _, tc := range []struct {
		refused  int
		wantErr  bool
		attempts int
	}{
		{0, false, 1},
		{3, false, 4},
		{7, false, 8},
		{8, true, 8},
	} {
		c := RetryTryAgain(redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1}))
		r := &refuseFirst{n: tc.refused}
		c.AddHook(r)
		err := c.Set(ctx, "k", "v", 0).Err()
		if (err != nil) != tc.wantErr || (err != nil && !IsTryAgain(err)) || r.seen != tc.attempts {
			t.Errorf("%d refusals: err %v after %d attempts, want error %v after %d", tc.refused, err, r.seen, tc.wantErr, tc.attempts)
		}
		// A pipeline nothing of which ran is retried as a whole.
		r.n = r.seen + 2
		pipe := c.Pipeline()
		pipe.Incr(ctx, "n")
		pipe.Incr(ctx, "n")
		if _, err := pipe.Exec(ctx); err != nil {
			t.Errorf("pipeline after 2 refusals: %v", err)
		}
		c.Close()
	}
}
