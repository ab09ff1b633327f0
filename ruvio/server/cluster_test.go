package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// logBuffer collects a node's log lines for tests that look for one.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type clusterNodeT struct {
	s    *Server
	port int
	dir  string
	file string
	logs *logBuffer
}

// startClusterNode runs a node of group on port with the map text as its
// cluster_topology, in dir (a new one when empty).
func startClusterNode(t *testing.T, port int, group, mapText, dir string, edit func(*config.Config)) (*clusterNodeT, error) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	file := filepath.Join(t.TempDir(), "topology")
	if err := os.WriteFile(file, []byte(mapText), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir, cfg.Durability, cfg.Shards, cfg.Port = dir, "memory", 2, port
	cfg.ClusterTopology, cfg.ClusterGroup = file, group
	if edit != nil {
		edit(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	s, err := New(cfg, slog.New(slog.NewTextHandler(io.MultiWriter(logs, testLog(t)), nil)))
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	n := &clusterNodeT{s: s, port: port, dir: dir, file: file, logs: logs}
	t.Cleanup(func() { n.stop(t) })
	return n, nil
}

func (n *clusterNodeT) stop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.s.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func testLog(t *testing.T) io.Writer {
	if testing.Verbose() {
		return &testWriter{t}
	}
	return io.Discard
}

func addr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

// twoGroupMap is the first map of groups a and b, two shards each, a
// primary (and a replica address nobody runs) each.
func twoGroupMap(a, b int) string {
	return fmt.Sprintf("version 1\ngroup a shards 2 members %s 127.0.0.1:1 slots 0-8191\ngroup b shards 2 members %s 127.0.0.1:2 slots 8192-16383\n",
		addr(a), addr(b))
}

// keyIn returns a key whose slot is in first..last.
func keyIn(first, last int, prefix string) string {
	for i := 0; ; i++ {
		k := fmt.Sprintf("%s%d", prefix, i)
		if s := slots.Of([]byte(k)); s >= first && s <= last {
			return k
		}
	}
}

func startTwoGroups(t *testing.T) (a, b *clusterNodeT) {
	pa, pb := freePorts(t, 2), freePorts(t, 2)
	m := twoGroupMap(pa, pb)
	a, err := startClusterNode(t, pa, "a", m, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err = startClusterNode(t, pb, "b", m, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestClusterMapMovedAcrossGroups(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	ca := client(t, a.s, 0)
	kb0 := keyIn(8192, 12287, "b0-") // group b, shard 0
	kb1 := keyIn(12288, 16383, "b1-")
	ka1 := keyIn(4096, 8191, "a1-") // group a, shard 1

	err := ca.Set(ctx, kb0, "x", 0).Err()
	want := fmt.Sprintf("MOVED %d %s", slots.Of([]byte(kb0)), addr(b.port))
	if err == nil || err.Error() != want {
		t.Fatalf("SET of b's key on a: %v, want %s", err, want)
	}
	err = ca.Get(ctx, kb1).Err()
	want = fmt.Sprintf("MOVED %d %s", slots.Of([]byte(kb1)), addr(b.port+1))
	if err == nil || err.Error() != want {
		t.Fatalf("GET of b's shard-1 key on a: %v, want %s", err, want)
	}
	// a's own keys are served from either port, as without a map.
	if err := ca.Set(ctx, ka1, "own", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, _ := client(t, a.s, 1).Get(ctx, ka1).Result(); v != "own" {
		t.Fatalf("a's key from shard 1's port: %q", v)
	}
	// Keys of two groups, or of two shards of the other group: CROSSSLOT.
	ka0 := keyIn(0, 4095, "a0-")
	for _, keys := range [][]string{{ka0, kb0}, {kb0, kb1}} {
		if err := ca.MSet(ctx, keys[0], 1, keys[1], 2).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Errorf("MSET %v: %v, want CROSSSLOT", keys, err)
		}
	}
	// Two keys of one shard of b: redirected.
	kb0b := keyIn(8192, 12287, "b0b-")
	if err := ca.MSet(ctx, kb0, 1, kb0b, 2).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED") {
		t.Errorf("MSET of two b shard-0 keys: %v, want MOVED", err)
	}
	// In a transaction the redirect dooms EXEC.
	pipe := ca.TxPipeline()
	pipe.Set(ctx, ka0, 1, 0)
	pipe.Set(ctx, kb0, 1, 0)
	if _, err := pipe.Exec(ctx); err == nil || !strings.Contains(err.Error(), "EXECABORT") && !strings.Contains(err.Error(), "MOVED") {
		t.Errorf("MULTI with b's key: %v", err)
	}
	if n, _ := ca.Exists(ctx, ka0).Result(); n != 0 {
		t.Error("the aborted transaction wrote")
	}
	// Per-slot commands: the other group's slot holds nothing here.
	if n, err := ca.ClusterCountKeysInSlot(ctx, int(slots.Of([]byte(ka1)))).Result(); err != nil || n != 1 {
		t.Errorf("COUNTKEYSINSLOT of a's slot: %d %v", n, err)
	}
	if ks, err := ca.ClusterGetKeysInSlot(ctx, int(slots.Of([]byte(ka1))), 10).Result(); err != nil || len(ks) != 1 || ks[0] != ka1 {
		t.Errorf("GETKEYSINSLOT: %v %v", ks, err)
	}
	if n, _ := ca.ClusterCountKeysInSlot(ctx, int(slots.Of([]byte(kb0)))).Result(); n != 0 {
		t.Errorf("COUNTKEYSINSLOT of b's slot: %d", n)
	}
	if s, _ := ca.ClusterKeySlot(ctx, kb0).Result(); s != int64(slots.Of([]byte(kb0))) {
		t.Errorf("KEYSLOT = %d", s)
	}
}

func TestClusterSlotsDescribeEveryGroup(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	//lint:ignore SA1019 CLUSTER SLOTS is what go-redis ClusterClient and redis-cli read
	got, err := client(t, a.s, 0).ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		first, last, port int
		replica           string
	}{
		{0, 4095, a.port, "127.0.0.1:1"}, {4096, 8191, a.port + 1, "127.0.0.1:2"},
		{8192, 12287, b.port, "127.0.0.1:2"}, {12288, 16383, b.port + 1, "127.0.0.1:3"},
	}
	if len(got) != len(want) {
		t.Fatalf("CLUSTER SLOTS = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Start != w.first || g.End != w.last || len(g.Nodes) != 2 || g.Nodes[0].Addr != addr(w.port) || g.Nodes[1].Addr != w.replica {
			t.Errorf("range %d = %+v, want %d-%d on %s then %s", i, g, w.first, w.last, addr(w.port), w.replica)
		}
	}
	shards, err := client(t, b.s, 1).ClusterShards(ctx).Result()
	if err != nil || len(shards) != 4 || len(shards[2].Nodes) != 2 || shards[2].Nodes[0].Role != "master" || shards[2].Nodes[1].Role != "replica" {
		t.Fatalf("CLUSTER SHARDS = %+v %v", shards, err)
	}
	nodes, err := client(t, b.s, 1).ClusterNodes(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(nodes), "\n")
	if len(lines) != 8 {
		t.Fatalf("CLUSTER NODES has %d lines:\n%s", len(lines), nodes)
	}
	myID, _ := client(t, b.s, 1).ClusterMyID(ctx).Result()
	found := false
	for _, l := range lines {
		if strings.Contains(l, "myself") {
			found = strings.HasPrefix(l, myID+" "+addr(b.port+1)+"@") && strings.HasSuffix(l, " 12288-16383")
		}
	}
	if !found {
		t.Errorf("no myself line for b's shard 1 (%s):\n%s", myID, nodes)
	}
	info, _ := client(t, a.s, 0).Info(ctx, "cluster").Result()
	if !strings.Contains(info, "cluster_map_version:1") || !strings.Contains(info, "cluster_group:a") {
		t.Errorf("INFO cluster:\n%s", info)
	}
}

// A go-redis cluster client seeded with one node writes and reads keys of
// both groups, each key landing on its group.
func TestClusterClientRoutesToEveryGroup(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr(a.port)}})
	defer cc.Close()
	for i := 0; i < 200; i++ {
		if err := cc.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatalf("SET k%d: %v", i, err)
		}
	}
	for i := 0; i < 200; i++ {
		k := fmt.Sprintf("k%d", i)
		if v, err := cc.Get(ctx, k).Int(); err != nil || v != i {
			t.Fatalf("GET %s = %d %v", k, v, err)
		}
		owner := a
		if slots.Of([]byte(k)) >= 8192 {
			owner = b
		}
		if v, _ := client(t, owner.s, 0).Get(ctx, k).Int(); v != i {
			t.Fatalf("%s is not on its group's node", k)
		}
	}
}

func TestTopologySetKeepsTheNewestAndPersists(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	ca := client(t, a.s, 0)
	first, _ := topology.Parse(twoGroupMap(a.port, b.port))
	// b fails over to a node on another port.
	newB := freePorts(t, 2)
	next, _ := first.Failover("b", addr(newB))
	set := func(m *topology.Map) (int64, error) {
		args := []any{"RUVIO", "TOPOLOGY", "SET"}
		for _, l := range strings.Split(strings.TrimSpace(m.String()), "\n") {
			args = append(args, l)
		}
		return ca.Do(ctx, args...).Int64()
	}
	if v, err := set(next); err != nil || v != 2 {
		t.Fatalf("SET version 2: %d %v", v, err)
	}
	kb := keyIn(8192, 12287, "b-")
	if err := ca.Get(ctx, kb).Err(); err == nil || err.Error() != fmt.Sprintf("MOVED %d %s", slots.Of([]byte(kb)), addr(newB)) {
		t.Fatalf("after the new map: %v", err)
	}
	// The same version, or an older one, changes nothing.
	if v, err := set(first); err != nil || v != 2 {
		t.Fatalf("SET version 1: %d %v", v, err)
	}
	if v, _ := ca.Do(ctx, "RUVIO", "TOPOLOGY", "VERSION").Int64(); v != 2 {
		t.Fatalf("VERSION = %d", v)
	}
	// One argument holding every line works too.
	again, _ := next.Failover("b", addr(b.port))
	if v, err := ca.Do(ctx, "RUVIO", "TOPOLOGY", "SET", again.String()).Int64(); err != nil || v != 3 {
		t.Fatalf("SET as one argument: %d %v", v, err)
	}
	// The map is stored after it is served.
	poll.Until(t, 10*time.Second, "TOPOLOGY to hold version 3", func() bool {
		saved, err := os.ReadFile(filepath.Join(a.dir, "TOPOLOGY"))
		return err == nil && string(saved) == again.String()
	})
	// A restart with the older cluster_topology starts from TOPOLOGY.
	a.stop(t)
	a2, err := startClusterNode(t, a.port, "a", twoGroupMap(a.port, b.port), a.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := client(t, a2.s, 0).Do(ctx, "RUVIO", "TOPOLOGY", "VERSION").Int64(); v != 3 {
		t.Fatalf("after the restart VERSION = %d", v)
	}
	if !strings.Contains(a2.logs.String(), "TOPOLOGY") {
		t.Errorf("the start does not say it read TOPOLOGY:\n%s", a2.logs)
	}
	got, _ := client(t, a2.s, 0).Do(ctx, "RUVIO", "TOPOLOGY", "GET").Text()
	if got != again.String() {
		t.Errorf("GET = %q", got)
	}
}

func TestTopologySetRefusesSlotsWhoseDataIsNotHere(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	m, _ := topology.Parse(twoGroupMap(a.port, b.port))
	moved, _ := m.Move(8192, 8291, "a", 0)
	for i := 0; i < 3; i++ {
		err := client(t, a.s, 0).Do(ctx, "RUVIO", "TOPOLOGY", "SET", moved.String()).Err()
		if err == nil || !strings.Contains(err.Error(), "gives this node slot 8192 on shard 0, whose data is not here") {
			t.Fatalf("SET giving a b's slots: %v", err)
		}
	}
	if n := strings.Count(a.logs.String(), "whose data is not here"); n != 1 {
		t.Errorf("the refusal is logged %d times, want once a minute:\n%s", n, a.logs)
	}
	// b gives the slots away: accepted.
	if v, err := client(t, b.s, 0).Do(ctx, "RUVIO", "TOPOLOGY", "SET", moved.String()).Int64(); err != nil || v != 2 {
		t.Fatalf("SET on b: %d %v", v, err)
	}
	if err := client(t, a.s, 0).Do(ctx, "RUVIO", "TOPOLOGY", "SET", "version 9").Err(); err == nil || !strings.Contains(err.Error(), "invalid cluster map") {
		t.Errorf("a bad map: %v", err)
	}
}

func TestTopologyNeedsAClusterMap(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0)
	ctx := context.Background()
	if v, err := c.Do(ctx, "RUVIO", "TOPOLOGY", "VERSION").Int64(); err != nil || v != 0 {
		t.Errorf("VERSION = %d %v", v, err)
	}
	if err := c.Do(ctx, "RUVIO", "TOPOLOGY", "GET").Err(); err != redis.Nil {
		t.Errorf("GET = %v, want nil", err)
	}
	if err := c.Do(ctx, "RUVIO", "TOPOLOGY", "SET", twoGroupMap(1, 2)).Err(); err == nil || !strings.Contains(err.Error(), "no cluster_topology") {
		t.Errorf("SET without a map: %v", err)
	}
}

// The coordinators' user as the README writes it may send maps.
func TestTopologySetWithTheCoordinatorUser(t *testing.T) {
	pa, pb := freePorts(t, 2), freePorts(t, 2)
	m := twoGroupMap(pa, pb)
	a, err := startClusterNode(t, pa, "a", m, "", func(c *config.Config) {
		c.Auth = "admin"
		c.Users = []config.User{{Name: "coord", Password: "cpw", Rules: "-@all +role +info +config|get +replicaof +ruvio"}}
	})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := topology.Parse(m)
	next, _ := first.Failover("b", "127.0.0.1:2")
	c := client(t, a.s, 0, func(o *redis.Options) { o.Username, o.Password = "coord", "cpw" })
	if v, err := c.Do(context.Background(), "RUVIO", "TOPOLOGY", "SET", next.String()).Int64(); err != nil || v != 2 {
		t.Fatalf("SET as coord: %d %v", v, err)
	}
}

func TestClusterTopologyProblemsStopTheStart(t *testing.T) {
	pa := freePorts(t, 2)
	cases := []struct{ name, group, text, want string }{
		{"group missing", "c", twoGroupMap(pa, 5000), `no group "c"`},
		{"wrong shards", "a", strings.Replace(twoGroupMap(pa, 5000), "group a shards 2", "group a shards 3", 1), "this node runs 2"},
		{"uncovered slots", "a", "version 1\ngroup a shards 2 members 127.0.0.1:1 slots 0-100\n", "belong to no group"},
	}
	for _, c := range cases {
		if _, err := startClusterNode(t, pa, c.group, c.text, "", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A shard holding slots outside the range a lone node would give it
// keeps them across a snapshot and a restart.
func TestClusterShardSnapshotKeepsEverySlot(t *testing.T) {
	pa, pb := freePorts(t, 2), freePorts(t, 2)
	m := twoGroupMap(pa, pb)
	snap := func(c *config.Config) { c.Durability = "snapshot" }
	a, err := startClusterNode(t, pa, "a", m, "", snap)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := keyIn(4096, 8191, "s-") // shard 1 in the map, shard 0 of a lone node
	if err := client(t, a.s, 0).Set(ctx, k, "kept", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := client(t, a.s, 0).Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	a.stop(t)
	a2, err := startClusterNode(t, pa, "a", m, a.dir, snap)
	if err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 5*time.Second, "the key after the restart", func() error {
		v, err := client(t, a2.s, 1).Get(ctx, k).Result()
		if err == nil && v != "kept" {
			return fmt.Errorf("value %q", v)
		}
		return err
	})
}

// With every member of the group on the same port, the node finds itself
// by resolving the members' host names.
func TestClusterMyIDResolvesMemberNames(t *testing.T) {
	pa := freePorts(t, 2)
	m := fmt.Sprintf("version 1\ngroup a shards 2 members 127.0.0.9:%d localhost:%d slots 0-16383\n", pa, pa)
	a, err := startClusterNode(t, pa, "a", m, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := client(t, a.s, 1).ClusterMyID(context.Background()).Result()
	if err != nil || id != memberNodeID(fmt.Sprintf("localhost:%d", pa), 1) {
		t.Fatalf("MYID = %s %v", id, err)
	}
	nodes, _ := client(t, a.s, 1).ClusterNodes(context.Background()).Result()
	if !strings.Contains(nodes, id+" localhost:"+fmt.Sprint(pa+1)+"@") || !strings.Contains(nodes, "myself,slave") {
		t.Errorf("CLUSTER NODES:\n%s", nodes)
	}
}

// A node behind a proxy or NAT is listed in the map under the address it
// announces (replication.announce), which is none of its own: CLUSTER
// NODES and CLUSTER MYID still find it there, among members that share
// its port.
func TestTheAnnouncedAddressIsMyselfInTheMap(t *testing.T) {
	ctx := context.Background()
	pa := freePorts(t, 2)
	self, other := fmt.Sprintf("192.0.2.11:%d", pa), fmt.Sprintf("192.0.2.10:%d", pa)
	m := fmt.Sprintf("version 1\ngroup a shards 2 members %s %s slots 0-8191\ngroup b shards 2 members 127.0.0.1:1 slots 8192-16383\n", other, self)
	n, err := startClusterNode(t, pa, "a", m, "", func(c *config.Config) { c.Replication.Announce = self })
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, n.s, 0)
	nodes, err := c.ClusterNodes(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	myID, _ := c.ClusterMyID(ctx).Result()
	var mine string
	for _, l := range strings.Split(strings.TrimSpace(nodes), "\n") {
		if strings.Contains(l, "myself") {
			mine = l
		}
	}
	if !strings.HasPrefix(mine, myID+" "+self+"@") {
		t.Fatalf("the myself line is %q, want %s's (id %s):\n%s", mine, self, myID, nodes)
	}
}
