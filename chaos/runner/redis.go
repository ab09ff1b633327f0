package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
)

// waitRedisGroup waits, for a Redis topology, until the primary lists
// every replica online and every Sentinel knows them all: a fault before
// that would find no replica Sentinel may promote, and measure the
// start-up instead of the shape.
func waitRedisGroup(ctx context.Context, c topology.Cluster, topo topology.Topology) error {
	ctx, cancel := context.WithTimeout(ctx, topology.ReadyTimeout)
	defer cancel()
	replicas := len(topo.DataNodes()) - 1
	primary := redis.NewClient(&redis.Options{Addr: c.Addr(topo.Primary()), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer primary.Close()
	var secret string
	if cc, ok := c.(topology.Coordinated); ok {
		secret = cc.CoordinatorSecret()
	}
	var sentinels []*redis.Client
	for _, name := range topo.Coordinators() {
		s := redis.NewClient(&redis.Options{Addr: c.Addr(name), Password: secret, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		defer s.Close()
		sentinels = append(sentinels, s)
	}
	ready := func() (string, bool) {
		info, err := primary.Info(ctx, "replication").Result()
		if err != nil {
			return err.Error(), false
		}
		if n := strings.Count(info, "state=online"); n < replicas {
			return fmt.Sprintf("%d of %d replicas online on the primary", n, replicas), false
		}
		for i, s := range sentinels {
			rs, err := s.Do(ctx, "SENTINEL", "REPLICAS", topology.GroupName).Slice()
			if err != nil {
				return err.Error(), false
			}
			if len(rs) < replicas {
				return fmt.Sprintf("sentinel %d knows %d of %d replicas", i+1, len(rs), replicas), false
			}
		}
		return "", true
	}
	for {
		why, ok := ready()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the redis group did not settle within %s: %s", topology.ReadyTimeout, why)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
