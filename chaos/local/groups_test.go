package local

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// clusteredTopology is two groups sharing the slots, each a primary and
// a replica, two shards, and three coordinators.
func clusteredTopology() topology.Topology {
	node := func(name, group, primary string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, Group: group, ReplicaOf: primary,
			Args: []string{"server", "--durability", "always"}}
	}
	t := topology.Topology{Shards: 2, Groups: []topology.ClusterGroup{
		{Name: "a", Slots: []string{"0-8191"}}, {Name: "b", Slots: []string{"8192-16383"}},
	}, Nodes: []topology.NodeSpec{node("n1", "a", ""), node("n2", "a", "n1"), node("n3", "b", ""), node("n4", "b", "n3")}}
	for _, c := range []string{"c1", "c2", "c3"} {
		t.Nodes = append(t.Nodes, topology.NodeSpec{Name: c, Role: topology.RoleCoordinator, Args: []string{"coordinator"}})
	}
	return t
}

// A clustered topology: every data node starts with its group and the
// one cluster_topology file, the coordinators' map reaches every node,
// a node answers another group's key with MOVED naming that group's
// primary at the address the coordinators know it by, and a cluster
// client seeded with one member reaches both groups.
func TestClusteredGroups(t *testing.T) {
	c := startCluster(t, clusteredTopology())
	ctx := context.Background()
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		got, err := client(t, c.Addr(n)).ConfigGet(ctx, "cluster-group").Result()
		if want := c.topo.GroupOf(n); err != nil || got["cluster-group"] != want {
			t.Fatalf("%s: cluster-group %v (%v), want %s", n, got, err, want)
		}
		poll.Until(t, 20*time.Second, n+" on the coordinators' map (version 3)", func() bool {
			v, _ := client(t, c.Addr(n)).Do(ctx, "RUVIO", "TOPOLOGY", "VERSION").Int64()
			return v == 3
		})
	}
	// b's first shard holds 8192-12287.
	keyA, key := keyIn(0, 8191), keyIn(8192, 12287)
	want := fmt.Sprintf("MOVED %d %s", slots.Of([]byte(key)), c.MemberAddr("n3"))
	if err := client(t, c.Addr("n1")).Get(ctx, key).Err(); err == nil || err.Error() != want {
		t.Fatalf("n1 answers b's key with %v, want %q", err, want)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{c.MemberAddr("n1")}, MaxRedirects: 4,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
	defer cc.Close()
	for _, k := range []string{keyA, key} {
		if err := cc.Set(ctx, k, "v", 0).Err(); err != nil {
			t.Fatalf("cluster client SET %s: %v", k, err)
		}
		if v, err := cc.Get(ctx, k).Result(); err != nil || v != "v" {
			t.Fatalf("cluster client GET %s = %q %v", k, v, err)
		}
	}
}

// keyIn returns a key whose slot is in first..last.
func keyIn(first, last int) string {
	for i := 0; ; i++ {
		if k := fmt.Sprintf("k%d", i); slots.Of([]byte(k)) >= first && slots.Of([]byte(k)) <= last {
			return k
		}
	}
}
