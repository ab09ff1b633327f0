package client

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
)

// FollowClusterFailovers makes a cluster client learn a failover as soon
// as it meets it. A go-redis ClusterClient reloads its slot map when a
// node answers MOVED (a node of another group that has the new map) or
// READONLY (a demoted primary), but a primary that is gone answers
// nothing: the client would keep dialling it until its periodic reload
// (ClusterStateReloadInterval, 60 s by default). With this, a node that
// cannot be reached makes the client reload the map from the other nodes
// at once (go-redis spaces reloads by at least 200 ms), so the next retry
// goes to the promoted replica. Call it before the first command.
func FollowClusterFailovers(cc *redis.ClusterClient) *redis.ClusterClient {
	cc.OnNewNode(func(node *redis.Client) { node.AddHook(reloadOnNetError{cc}) })
	return cc
}

type reloadOnNetError struct{ cc *redis.ClusterClient }

func (h reloadOnNetError) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			h.cc.ReloadState(ctx)
		}
		return c, err
	}
}

func (h reloadOnNetError) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.check(ctx, err)
		return err
	}
}

func (h reloadOnNetError) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.check(ctx, err)
		return err
	}
}

func (h reloadOnNetError) check(ctx context.Context, err error) {
	var ne net.Error
	if err != nil && (errors.As(err, &ne) || errors.Is(err, net.ErrClosed)) {
		h.cc.ReloadState(ctx)
	}
}
