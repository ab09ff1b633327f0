package client

import (
	"context"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// A slot moving between groups is frozen for a moment at the end of its
// move: commands on its keys get TRYAGAIN until the new cluster map
// reaches the source, which then answers MOVED naming the new owner.
// Ruvio clients retry TRYAGAIN TryAgainRetries times, waiting
// TryAgainFirstWait, then twice as long each time: 5+10+...+320 = 635 ms
// in all, longer than a hand-over normally takes.
const (
	TryAgainRetries   = 7
	TryAgainFirstWait = 5 * time.Millisecond
)

// TryAgainWaits is the wait before each retry, in order.
func TryAgainWaits() []time.Duration {
	w := make([]time.Duration, TryAgainRetries)
	for i := range w {
		w[i] = TryAgainFirstWait << i
	}
	return w
}

// IsTryAgain reports whether err is a TRYAGAIN reply.
func IsTryAgain(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "TRYAGAIN")
}

// RetryTryAgain makes c retry a command or a pipeline that got TRYAGAIN
// on the schedule above. A pipeline is retried only when every command
// in it got TRYAGAIN (so none of it ran). The retry goes to the same
// node; for a cluster client use RetryClusterTryAgain, which lets the
// cluster client follow the MOVED that ends the freeze.
func RetryTryAgain(c *redis.Client) *redis.Client {
	c.AddHook(tryAgainHook{})
	return c
}

// RetryClusterTryAgain puts the TRYAGAIN retry on every node client of
// cc: once the move is committed the node answers MOVED, which cc
// follows as usual. Call it before the first command.
func RetryClusterTryAgain(cc *redis.ClusterClient) *redis.ClusterClient {
	cc.OnNewNode(func(node *redis.Client) { node.AddHook(tryAgainHook{}) })
	return cc
}

type tryAgainHook struct{}

func (tryAgainHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (tryAgainHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		for _, wait := range TryAgainWaits() {
			if !IsTryAgain(err) {
				return err
			}
			if werr := sleep(ctx, wait); werr != nil {
				return err
			}
			cmd.SetErr(nil)
			err = next(ctx, cmd)
		}
		return err
	}
}

func (tryAgainHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, wait := range TryAgainWaits() {
			if !allTryAgain(cmds) {
				return err
			}
			if werr := sleep(ctx, wait); werr != nil {
				return err
			}
			for _, cmd := range cmds {
				cmd.SetErr(nil)
			}
			err = next(ctx, cmds)
		}
		return err
	}
}

func allTryAgain(cmds []redis.Cmder) bool {
	for _, cmd := range cmds {
		if !IsTryAgain(cmd.Err()) {
			return false
		}
	}
	return len(cmds) > 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
