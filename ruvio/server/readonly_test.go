package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// A replica of a cluster group redirects its own slots to the group's
// primary unless the client sent READONLY, which lets reads through.
func TestReplicaServesReadsAfterReadonly(t *testing.T) {
	primary := "127.0.0.1:1" // nobody answers there: the replica only needs its name
	n, pb := startGroupAReplica(t, func(self string) []string { return []string{primary, self} })
	ctx := context.Background()
	c := client(t, n.s, 0)
	cn := c.Conn()
	defer cn.Close()
	ka0 := keyIn(0, 4095, "a0-")
	ka1 := keyIn(4096, 8191, "a1-")
	kb := keyIn(8192, 12287, "b0-")
	moved := func(k, to string) string { return fmt.Sprintf("MOVED %d %s", slots.Of([]byte(k)), to) }
	expectErr := func(what string, err error, want string) {
		t.Helper()
		if err == nil || err.Error() != want {
			t.Fatalf("%s: %v, want %s", what, err, want)
		}
	}
	expectErr("GET before READONLY", cn.Get(ctx, ka0).Err(), moved(ka0, primary))
	// Shard 1 of the primary listens on its port + 1.
	expectErr("GET of shard 1", cn.Get(ctx, ka1).Err(), moved(ka1, "127.0.0.1:2"))
	if err := cn.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cn.Get(ctx, ka0).Err(); err != redis.Nil {
		t.Fatalf("GET after READONLY: %v", err)
	}
	expectErr("SET after READONLY", cn.Set(ctx, ka0, "v", 0).Err(), moved(ka0, primary))
	expectErr("another group's key", cn.Get(ctx, kb).Err(), moved(kb, addr(pb)))
	if err := cn.Do(ctx, "ASKING").Err(); err != nil {
		t.Fatal(err)
	}
	if err := cn.ReadWrite(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	expectErr("GET after READWRITE", cn.Get(ctx, ka0).Err(), moved(ka0, primary))

	// A durable connection is taken here, as a cluster client opens one
	// on a node a switchover made a replica, and sent to the primary for
	// everything on the group's slots, reads after READONLY included: a
	// replica cannot tell when the others hold what a read shows.
	dur := c.Conn()
	defer dur.Close()
	if err := dur.Do(ctx, "CLIENT", "DURABILITY", "REPLICAS", "1").Err(); err != nil {
		t.Fatalf("CLIENT DURABILITY on a cluster replica: %v", err)
	}
	if err := dur.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	expectErr("durable SET", dur.Set(ctx, ka0, "v", 0).Err(), moved(ka0, primary))
	expectErr("durable GET after READONLY", dur.Get(ctx, ka0).Err(), moved(ka0, primary))
	expectErr("durable MGET after READONLY", dur.MGet(ctx, ka0).Err(), moved(ka0, primary))
	if err := dur.Do(ctx, "CLIENT", "DURABILITY", "OFF").Err(); err != nil {
		t.Fatal(err)
	}
	if err := dur.Get(ctx, ka0).Err(); err != redis.Nil {
		t.Fatalf("GET after READONLY and CLIENT DURABILITY OFF: %v", err)
	}
}

// Without a cluster map a replica refuses CLIENT DURABILITY: writes there
// get READONLY and nothing would send the client to the primary.
func TestAReplicaWithoutAClusterMapRefusesDurability(t *testing.T) {
	s := startServer(t, func(c *config.Config) {
		c.Replication.Role = config.RoleReplica
		c.Replication.Primary = "127.0.0.1:1"
		c.Replication.Listen = addr(freePorts(t, 1))
	})
	err := client(t, s, 0).Do(context.Background(), "CLIENT", "DURABILITY", "REPLICAS", "1").Err()
	if err == nil || err.Error() != "ERR CLIENT DURABILITY cannot be used with replica instances: connect to the primary" {
		t.Fatalf("CLIENT DURABILITY on a replica: %v", err)
	}
}

// A replica whose map still names it as its group's primary (an old
// primary that was down when it was replaced, until the coordinators'
// next ping brings the new map) answers TRYAGAIN, which clients retry, rather than a
// MOVED to itself: a client follows that until it gives up, and
// go-redis's ClusterClient.Watch then returns nil without having run the
// transaction.
func TestAReplicaNamedPrimaryByItsMapAnswersTryAgain(t *testing.T) {
	n, pb := startGroupAReplica(t, func(self string) []string { return []string{self, "127.0.0.1:1"} })
	ctx := context.Background()
	c := client(t, n.s, 0)
	ka, kb := keyIn(0, 4095, "a0-"), keyIn(8192, 12287, "b0-")
	for _, cmd := range [][]any{{"GET", ka}, {"SET", ka, "v"}, {"WATCH", ka}} {
		if err := c.Do(ctx, cmd...).Err(); err == nil || err.Error() != errStaleMap {
			t.Errorf("%v on a replica its map names primary: %v, want %s", cmd, err, errStaleMap)
		}
	}
	if err := c.Get(ctx, kb).Err(); err == nil || err.Error() != fmt.Sprintf("MOVED %d %s", slots.Of([]byte(kb)), addr(pb)) {
		t.Errorf("another group's key: %v", err)
	}
}

// startGroupAReplica starts a replica of group a (slots 0-8191, two
// shards) in a map whose group b (8192-16383) is at pb; members lists
// group a's members, primary first, given the replica's own address. It
// follows 127.0.0.1:1, where nobody answers. It returns the node and pb.
func startGroupAReplica(t *testing.T, members func(self string) []string) (*clusterNodeT, int) {
	t.Helper()
	pa, pb := freePorts(t, 2), freePorts(t, 2)
	m := fmt.Sprintf("version 1\ngroup a shards 2 members %s slots 0-8191\ngroup b shards 2 members %s 127.0.0.1:2 slots 8192-16383\n",
		strings.Join(members(addr(pa)), " "), addr(pb))
	n, err := startClusterNode(t, pa, "a", m, "", func(c *config.Config) {
		c.Replication.Role = config.RoleReplica
		c.Replication.Primary = "127.0.0.1:1"
		c.Replication.Listen = addr(freePorts(t, 1))
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, pb
}

// READONLY from a script answers OK but leaves the calling connection as
// it was (Redis runs a script's commands on a client of its own): the
// caller's reads on the replica are still sent to the primary.
func TestReadonlyFromAScriptLeavesTheCallerAsItWas(t *testing.T) {
	primary := "127.0.0.1:1"
	n, _ := startGroupAReplica(t, func(self string) []string { return []string{primary, self} })
	ctx := context.Background()
	cn := client(t, n.s, 0).Conn()
	defer cn.Close()
	if v, err := cn.Do(ctx, "EVAL_RO", "return redis.call('readonly')", 0).Text(); err != nil || v != "OK" {
		t.Fatalf("READONLY from a script: %q %v", v, err)
	}
	k := keyIn(0, 4095, "a0-")
	want := fmt.Sprintf("MOVED %d %s", slots.Of([]byte(k)), primary)
	if err := cn.Get(ctx, k).Err(); err == nil || err.Error() != want {
		t.Fatalf("GET after a script's READONLY: %v, want %s", err, want)
	}
}
