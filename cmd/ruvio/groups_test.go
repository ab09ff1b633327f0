package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// Several groups sharing the hash slots, as real processes: data nodes
// of two shards each, started with a cluster_topology file, and three
// coordinators whose [[groups]] give each group its slots.

type clusterGroup struct {
	name    string
	slots   string // the coordinators' and the file's range, "first-last"
	members []*member
	ports   []int
}

// planGroup picks the ports of a group of n members (two shards each).
func planGroup(t *testing.T, name, slotRange string, n int) *clusterGroup {
	g := &clusterGroup{name: name, slots: slotRange}
	for i := 0; i < n; i++ {
		port := freePort(t, 2)
		repl := "127.0.0.1:" + strconv.Itoa(freePort(t, 2))
		g.ports = append(g.ports, port)
		g.members = append(g.members, &member{dir: t.TempDir(), repl: repl})
	}
	return g
}

func (g *clusterGroup) addr(i int) string { return "127.0.0.1:" + strconv.Itoa(g.ports[i]) }

// topologyText is the first cluster map, as every data node starts with
// it: version 1, each group named by its first member.
func topologyText(gs ...*clusterGroup) string {
	var b strings.Builder
	b.WriteString("version 1\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "group %s shards 2 members", g.name)
		for i := range g.members {
			b.WriteString(" " + g.addr(i))
		}
		fmt.Fprintf(&b, " slots %s\n", g.slots)
	}
	return b.String()
}

// startClusterGroups writes the topology file and starts every member:
// the first of each group a primary, the others its replicas.
func startClusterGroups(t *testing.T, gs ...*clusterGroup) string {
	file := filepath.Join(t.TempDir(), "topology")
	if err := os.WriteFile(file, []byte(topologyText(gs...)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		startGroupMembers(t, g, file)
	}
	return file
}

// startGroupMembers starts the members of g from the cluster_topology
// file: the first a primary, the others its replicas.
func startGroupMembers(t *testing.T, g *clusterGroup, file string) {
	for i, m := range g.members {
		m.env = []string{"RUVIO_REPLICATION_LISTEN=" + m.repl, "RUVIO_REPLICATION_ROLE=primary",
			"RUVIO_CLUSTER_TOPOLOGY=" + file, "RUVIO_CLUSTER_GROUP=" + g.name}
		if i > 0 {
			m.env[1] = "RUVIO_REPLICATION_ROLE=replica"
			m.env = append(m.env, "RUVIO_REPLICATION_PRIMARY="+g.members[0].repl)
		}
		m.args = []string{"--durability", "always", "--shards", "2", "--port", strconv.Itoa(g.ports[i])}
		m.restart(t)
	}
}

// startTwoGroups starts groups a (aSlots) and b (bSlots) of n members
// each and three coordinators, and waits until every member serves map
// version 3 (each group agreed once).
func startTwoGroups(t *testing.T, aSlots, bSlots string, n int) (a, b *clusterGroup, cs []*coord) {
	a = planGroup(t, "a", aSlots, n)
	b = planGroup(t, "b", bSlots, n)
	startClusterGroups(t, a, b)
	cs = startCoordinators3(t, groupsTOML(nil, a, b))
	poll.Until(t, 20*time.Second, "every member on map version 3", func() bool {
		for i := range n {
			if mapVersion(a.addr(i)) != 3 || mapVersion(b.addr(i)) != 3 {
				return false
			}
		}
		return true
	})
	return a, b, cs
}

// groupsTOML is the coordinators' [[groups]] tables; slotsOf, when set,
// gives a group's slots list (TOML strings) instead of its range.
func groupsTOML(slotsOf func(*clusterGroup) string, gs ...*clusterGroup) string {
	var b strings.Builder
	for _, g := range gs {
		var ms []string
		for i, m := range g.members {
			ms = append(ms, fmt.Sprintf("{ address = %q, replication = %q }", g.addr(i), m.repl))
		}
		s := strconv.Quote(g.slots)
		if slotsOf != nil {
			s = slotsOf(g)
		}
		fmt.Fprintf(&b, "[[groups]]\nname = %q\nshards = 2\nslots = [%s]\nmembers = [%s]\n\n", g.name, s, strings.Join(ms, ", "))
	}
	return b.String()
}

func mapVersion(addr string) int64 {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 500 * time.Millisecond})
	defer c.Close()
	v, _ := c.Do(context.Background(), "RUVIO", "TOPOLOGY", "VERSION").Int64()
	return v
}

func primaryOfGroup(c *coord, group string) string {
	cl := c.client("")
	defer cl.Close()
	v, err := cl.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", group).StringSlice()
	if err != nil || len(v) != 2 {
		return ""
	}
	return net.JoinHostPort(v[0], v[1])
}

// keysOf returns n keys whose slots are in first..last.
func keysOf(n, first, last int, prefix string) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		k := fmt.Sprintf("%s%d", prefix, i)
		if s := slots.Of([]byte(k)); s >= first && s <= last {
			out = append(out, k)
		}
	}
	return out
}

func shardPort(addr string, i int) string {
	h, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return net.JoinHostPort(h, strconv.Itoa(n+i))
}

func redisCLI(t *testing.T) string {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-cli not installed in CI (install redis-tools)")
		}
		t.Skip("redis-cli not installed (apt-get install redis-tools)")
	}
	return cli
}

// Two groups of a primary and a replica and three coordinators: cluster
// clients (go-redis ClusterClient, redis-cli -c) reach every group's keys
// through any node, a failover in one group changes the MOVED answers of
// the other group's nodes, and a node restarted with its older
// cluster_topology keeps the newer map it stored.
func TestGroupsFailoverInOneGroupChangesTheOtherGroupsMoved(t *testing.T) {
	cli := redisCLI(t)
	a := planGroup(t, "a", "0-8191", 2)
	b := planGroup(t, "b", "8192-16383", 2)
	startClusterGroups(t, a, b)
	cs := startCoordinators3(t, groupsTOML(nil, a, b))
	ctx := context.Background()

	// Every group agreed (group epoch 1 each): version 3 everywhere.
	all := []string{a.addr(0), a.addr(1), b.addr(0), b.addr(1)}
	poll.Until(t, 20*time.Second, "every member on map version 3", func() bool {
		for _, m := range all {
			if mapVersion(m) != 3 {
				return false
			}
		}
		return true
	})

	opts := client.WithClusterDurability(&redis.ClusterOptions{Addrs: []string{a.addr(0)}, MaxRedirects: 8,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: time.Second}, 1, 0)
	cc := client.FollowClusterFailovers(redis.NewClusterClient(opts))
	defer cc.Close()
	keysA := keysOf(50, 0, 8191, "a-")
	keysB := keysOf(50, 8192, 16383, "b-")
	for _, k := range append(append([]string{}, keysA...), keysB...) {
		if err := cc.Set(ctx, k, "v1-"+k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(cli, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	_, aPort, _ := net.SplitHostPort(a.addr(0))
	if got := run("-c", "-p", aPort, "set", "cli-"+keysB[0], "from-cli"); got != "OK" {
		t.Fatalf("redis-cli -c SET of b's key through a = %q", got)
	}
	if got := run("-c", "-p", aPort, "get", keysB[1]); got != "v1-"+keysB[1] {
		t.Fatalf("redis-cli -c GET of b's key through a = %q", got)
	}
	// Without -c redis-cli shows the redirect itself.
	slotB := slots.Of([]byte(keysB[0]))
	wantMoved := func(primary string) string {
		shard := 0
		if slotB >= 12288 {
			shard = 1
		}
		return fmt.Sprintf("MOVED %d %s", slotB, shardPort(primary, shard))
	}
	movedFrom := func(addr string) string {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		err := c.Get(ctx, keysB[0]).Err()
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, m := range []string{a.addr(0), a.addr(1)} {
		if got := movedFrom(m); got != wantMoved(b.addr(0)) {
			t.Fatalf("%s answers %q, want %q", m, got, wantMoved(b.addr(0)))
		}
	}

	// Kill b's primary: the coordinators promote b's replica, and a's
	// nodes redirect b's keys to it.
	b.members[0].p.cmd.Process.Kill()
	<-b.members[0].p.done
	killed := time.Now()
	poll.Until(t, 20*time.Second, "b failed over", func() bool { return primaryOfGroup(cs[0], "b") == b.addr(1) })
	failedOver := time.Now()
	poll.Until(t, 10*time.Second, "a's nodes redirecting b's keys to the new primary", func() bool {
		return movedFrom(a.addr(0)) == wantMoved(b.addr(1)) && movedFrom(a.addr(1)) == wantMoved(b.addr(1))
	})
	t.Logf("b failed over %v after the kill; a's nodes answered MOVED to the new primary %v after that",
		failedOver.Sub(killed).Round(time.Millisecond), time.Since(failedOver).Round(time.Millisecond))
	if v := mapVersion(a.addr(0)); v != 4 {
		t.Errorf("a's primary serves map version %d, want 4", v)
	}
	for _, c := range cs {
		if v := leaderStatusField(c, "cluster_map_version"); v != "4" {
			t.Errorf("coordinator %d: cluster_map_version = %q, want 4", c.id, v)
		}
	}

	// The cluster clients follow: every acknowledged write is there, and
	// a client writes to the new primary. (With CLIENT DURABILITY
	// REPLICAS 1 a reply from b waits for a replica b no longer has.)
	plain := client.FollowClusterFailovers(redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.addr(1)},
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: time.Second}))
	defer plain.Close()
	poll.UntilNil(t, 10*time.Second, "a write to b through the cluster client", func() error {
		return plain.Set(ctx, keysB[2], "v2", 0).Err()
	})
	t.Logf("the cluster client wrote to b's new primary %v after the failover", time.Since(failedOver).Round(time.Millisecond))
	for _, k := range append(append([]string{}, keysA...), keysB...) {
		want := "v1-" + k
		if k == keysB[2] {
			want = "v2"
		}
		if v, err := plain.Get(ctx, k).Result(); err != nil || v != want {
			t.Fatalf("GET %s after the failover = %q %v", k, v, err)
		}
	}
	if got := run("-c", "-p", aPort, "get", "cli-"+keysB[0]); got != "from-cli" {
		t.Fatalf("redis-cli -c GET through a after the failover = %q", got)
	}

	// a's primary restarted with its cluster_topology at version 1 starts
	// from the TOPOLOGY it stored, at version 4, and redirects at once.
	a0 := a.members[0]
	a0.p.cmd.Process.Kill()
	<-a0.p.done
	a0.restart(t)
	if !strings.Contains(a0.p.logs.String(), filepath.Join(a0.dir, "TOPOLOGY")) {
		t.Errorf("the restarted node did not start from TOPOLOGY:\n%s", a0.p.logs.String())
	}
	if v := mapVersion(a.addr(0)); v != 4 {
		t.Errorf("after the restart a's primary serves version %d, want 4", v)
	}
	if got := movedFrom(a.addr(0)); got != wantMoved(b.addr(1)) {
		t.Errorf("after the restart: %q, want %q", got, wantMoved(b.addr(1)))
	}
}

// startCoordinators3 starts three coordinators over the given groups.
func startCoordinators3(t *testing.T, groups string) []*coord {
	cs := startCoordinatorsVia(t, 3, groups, "", nil)
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, cs)
		}
	})
	return cs
}

// Coordinators whose slots disagree with the nodes' files send a map that
// gives group a slots whose data its node does not hold: the node refuses
// it and logs that once, the leader logs the refusing member once a
// minute, and the node keeps serving its map; group b's node, which only
// gives slots away, takes it.
func TestGroupsMapGivingSlotsWithoutTheirDataIsRefused(t *testing.T) {
	a := planGroup(t, "a", "0-8191", 1)
	b := planGroup(t, "b", "8192-16383", 1)
	startClusterGroups(t, a, b)
	// Each range keeps its shard, so b only gives 8192-9000 away and a's
	// shard 1 gets slots it never held.
	wrong := func(g *clusterGroup) string {
		if g.name == "a" {
			return `"0-4095@0", "4096-9000@1"`
		}
		return `"9001-12287@0", "12288-16383@1"`
	}
	cs := startCoordinators3(t, groupsTOML(wrong, a, b))
	refusals := func() int {
		n := 0
		for _, c := range cs {
			n += strings.Count(c.logs.String(), "a member refuses the cluster map")
		}
		return n
	}
	poll.Until(t, 20*time.Second, "b's node on the coordinators' map", func() bool { return mapVersion(b.addr(0)) == 3 })
	poll.Until(t, 10*time.Second, "the leader logging a's refusal", func() bool { return refusals() > 0 })
	nodeLog := func() int { return strings.Count(a.members[0].p.logs.String(), "whose data is not here") }
	if nodeLog() != 1 {
		t.Fatalf("a's node logged the refusal %d times:\n%s", nodeLog(), a.members[0].p.logs.String())
	}
	// Over many pings (100 ms), each is logged once.
	poll.Stays(t, 2*time.Second, "one refusal logged by the node and by the leader", func() bool {
		return nodeLog() == 1 && refusals() == 1
	})
	if v := mapVersion(a.addr(0)); v != 1 {
		t.Errorf("a's node serves version %d, want its own 1", v)
	}
	if !strings.Contains(a.members[0].p.logs.String(), "gives this node slot 8192 on shard 1, whose data is not here") {
		t.Errorf("a's log:\n%s", a.members[0].p.logs.String())
	}
}

// leaderStatusField reads one field of a coordinator's COORDINATOR STATUS.
func leaderStatusField(c *coord, field string) string {
	cl := c.client("")
	defer cl.Close()
	txt, err := cl.Do(context.Background(), "COORDINATOR", "STATUS").Text()
	if err != nil {
		return ""
	}
	return infoLine(txt, field)
}
