package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// On a replica every command answers as on a redis-server replica: reads
// serve the primary's data, writes get READONLY, alone and inside
// MULTI/EXEC, on an empty keyspace and with the key "0" of each type.
func TestEveryRedisCommandAnswersAsRedisOnAReplica(t *testing.T) {
	ctx := context.Background()
	rp := startRedis(t, 2) // skips without redis-server, or fails in CI
	rr := startRedisReplica(t, rp)
	p := newNode(t, "primary", 1, func(c *config.Config) { asPrimary(c); c.Durability = config.DurabilityMemory }).start()
	r := newNode(t, "replica", 1, func(c *config.Config) { asReplicaOf(p)(c); c.Durability = config.DurabilityMemory }).start()
	caughtUp(t, p, r)
	up := redis.NewClient(&redis.Options{Addr: p.srv.Addr(0), Protocol: 2, MaxRetries: -1})
	ur := redis.NewClient(&redis.Options{Addr: r.srv.Addr(0), Protocol: 2, MaxRetries: -1})
	t.Cleanup(func() { up.Close(); ur.Close() })
	var forms [][]any
	for _, f := range sweepForms(t, rp, ur) {
		// redis-server's replica reports skiplist for the one-member
		// sorted set its primary keeps as a listpack.
		if len(f) > 1 && strings.EqualFold(f[0].(string), "object") && strings.EqualFold(f[1].(string), "encoding") {
			continue
		}
		forms = append(forms, f)
	}
	compared := 0
	for _, setup := range sweepSetups {
		for _, pair := range [][2]*redis.Client{{rp, rr}, {up, ur}} {
			primary, replica := pair[0], pair[1]
			primary.FlushAll(ctx)
			if setup != nil {
				primary.Do(ctx, setup...)
			}
			want := primary.Type(ctx, "0").Val()
			poll.Until(t, 20*time.Second, "the replica to hold the setup", func() bool {
				return replica.Type(ctx, "0").Val() == want && replica.DBSize(ctx).Val() == primary.DBSize(ctx).Val()
			})
		}
		want, got := &sweeper{ctx: ctx, c: rr, mode: sweepModes[0]}, &sweeper{ctx: ctx, c: ur, mode: sweepModes[0]}
		for _, cmd := range forms {
			for _, inMulti := range []bool{false, true} {
				if w, g := want.reply(cmd, inMulti), got.reply(cmd, inMulti); g != w {
					t.Errorf("%q on a replica after %q (inside MULTI: %v)\n  redis: %s\n  ruvio: %s", cmd, setup, inMulti, w, g)
				}
				compared++
			}
		}
	}
	if compared < 5000 {
		t.Fatalf("compared %d commands only", compared)
	}
	t.Logf("compared %d commands and forms", compared)
}

// startRedisReplica runs a redis-server replica of primary and waits for
// its first sync. Its client does not retry: go-redis retries READONLY
// by default, which would hide the server's own words.
func startRedisReplica(t *testing.T, primary *redis.Client) *redis.Client {
	host, port, err := net.SplitHostPort(primary.Options().Addr)
	if err != nil {
		t.Fatal(err)
	}
	o := *startRedis(t, 2, "--replicaof", host, port).Options()
	o.MaxRetries = -1
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	poll.Until(t, 10*time.Second, "the redis-server replica to sync", func() bool {
		info, err := c.Info(ctx, "replication").Result()
		return err == nil && strings.Contains(info, "master_link_status:up")
	})
	return c
}
