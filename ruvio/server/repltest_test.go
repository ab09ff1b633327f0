package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// node is a data node a replication test can stop and start again on the
// same ports and data directory, as a restarted process would be.
type node struct {
	t    testing.TB
	name string
	cfg  *config.Config
	srv  *Server
}

// newNode prepares a node with its own ports and data directory; edit
// adjusts the configuration. It is not started.
func newNode(t testing.TB, name string, shards int, edit func(*config.Config)) *node {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Durability = config.DurabilityAlways
	cfg.Shards = shards
	cfg.Port = freePorts(t, shards)
	cfg.Replication.Listen = "127.0.0.1:" + strconv.Itoa(freePorts(t, shards))
	if edit != nil {
		edit(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	n := &node{t: t, name: name, cfg: cfg}
	t.Cleanup(n.stop)
	return n
}

// replAddr is the node's replication base address, what REPLICAOF names.
func (n *node) replAddr() string { return n.cfg.Replication.Listen }

func (n *node) start() *node {
	n.t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(&testWriter{n.t}, &slog.HandlerOptions{Level: slog.LevelInfo})).With("node", n.name)
	}
	s, err := New(n.cfg.Clone(), log)
	if err != nil {
		n.t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		n.t.Fatal(err)
	}
	n.srv = s
	return n
}

func (n *node) stop() {
	if n.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.srv.Shutdown(ctx); err != nil {
		n.t.Errorf("%s: shutdown: %v", n.name, err)
	}
	n.srv = nil
}

// client connects to shard i's port.
func (n *node) client(i int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: n.srv.Addr(i), MaxRetries: -1})
	n.t.Cleanup(func() { c.Close() })
	return c
}

// info returns shard i's INFO replication fields.
func (n *node) info(i int) map[string]string {
	n.t.Helper()
	c := n.client(i)
	defer c.Close()
	txt, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		n.t.Fatalf("%s: INFO: %v", n.name, err)
	}
	return infotext.Parse(txt)
}

func (n *node) digest() string {
	n.t.Helper()
	c := n.client(0)
	defer c.Close()
	d, err := c.Do(context.Background(), "RUVIO", "DIGEST").Text()
	if err != nil {
		n.t.Fatal(err)
	}
	return d
}

// do runs a command on shard 0's port and fails the test on an error.
func (n *node) do(args ...any) any {
	n.t.Helper()
	c := n.client(0)
	defer c.Close()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		n.t.Fatalf("%s: %v: %v", n.name, args, err)
	}
	return v
}

// caughtUp waits until every shard of replica has the primary's last
// sequence and both hold the same data.
func caughtUp(t testing.TB, primary, replica *node) {
	t.Helper()
	for i := 0; i < primary.cfg.Shards; i++ {
		poll.Until(t, 20*time.Second, "replica shard "+strconv.Itoa(i)+" to catch up", func() bool {
			p, r := primary.info(i), replica.info(i)
			return p["wal_last_sequence"] == r["wal_last_sequence"] && r["master_link_status"] == "up"
		})
	}
	if p, r := primary.digest(), replica.digest(); p != r {
		t.Fatalf("digests differ: primary %s replica %s", p, r)
	}
}

// asReplicaOf configures n to start following primary.
func asReplicaOf(primary *node) func(*config.Config) {
	return func(c *config.Config) {
		c.Replication.Role = config.RoleReplica
		c.Replication.Primary = primary.replAddr()
	}
}

func asPrimary(c *config.Config) { c.Replication.Role = config.RolePrimary }

// mixedWrites writes every type, with and without time to live, spread
// over the shards.
func mixedWrites(t testing.TB, n *node, prefix string, count int) {
	t.Helper()
	ctx := context.Background()
	c := n.client(0)
	for i := 0; i < count; i++ {
		k := prefix + strconv.Itoa(i)
		var err error
		switch i % 7 {
		case 0:
			err = c.Set(ctx, k, i, 0).Err()
		case 1:
			err = c.Set(ctx, k, i, time.Hour).Err()
		case 2:
			err = c.HSet(ctx, k, "f", i, "g", "x").Err()
		case 3:
			err = c.RPush(ctx, k, "a", "b", i).Err()
		case 4:
			err = c.SAdd(ctx, k, "m1", "m2", i).Err()
		case 5:
			err = c.ZAdd(ctx, k, redis.Z{Score: float64(i), Member: "z"}, redis.Z{Score: 1.5, Member: "y"}).Err()
		case 6:
			err = c.Incr(ctx, prefix+"counter").Err()
		}
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
}

// waitPort waits until something accepts connections at addr.
func waitPort(t testing.TB, addr string) {
	poll.Until(t, 5*time.Second, addr+" to accept", func() bool {
		nc, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
}
