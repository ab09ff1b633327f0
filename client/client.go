// Package client holds connect options for go-redis clients of ruvio.
package client

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Durability returns an OnConnect hook that turns CLIENT DURABILITY
// REPLICAS replicas [TIMEOUT timeout] on for every connection the client
// opens, so no reply on it shows a write a failover could take back.
// A zero timeout keeps the node's default (5000 ms). A
// connection the node refuses the setting on is not used.
func Durability(replicas int, timeout time.Duration) func(ctx context.Context, cn *redis.Conn) error {
	args := []any{"CLIENT", "DURABILITY", "REPLICAS", replicas}
	if timeout > 0 {
		args = append(args, "TIMEOUT", timeout.Milliseconds())
	}
	return func(ctx context.Context, cn *redis.Conn) error {
		return cn.Do(ctx, args...).Err()
	}
}

// WithDurability sets the hook on go-redis options, after any OnConnect
// already there.
func WithDurability(o *redis.Options, replicas int, timeout time.Duration) *redis.Options {
	o.OnConnect = chain(o.OnConnect, Durability(replicas, timeout))
	return o
}

// WithFailoverDurability is WithDurability for a Sentinel (failover)
// client.
func WithFailoverDurability(o *redis.FailoverOptions, replicas int, timeout time.Duration) *redis.FailoverOptions {
	o.OnConnect = chain(o.OnConnect, Durability(replicas, timeout))
	return o
}

// WithClusterDurability is WithDurability for a cluster client.
func WithClusterDurability(o *redis.ClusterOptions, replicas int, timeout time.Duration) *redis.ClusterOptions {
	o.OnConnect = chain(o.OnConnect, Durability(replicas, timeout))
	return o
}

func chain(first, then func(context.Context, *redis.Conn) error) func(context.Context, *redis.Conn) error {
	if first == nil {
		return then
	}
	return func(ctx context.Context, cn *redis.Conn) error {
		if err := first(ctx, cn); err != nil {
			return err
		}
		return then(ctx, cn)
	}
}
