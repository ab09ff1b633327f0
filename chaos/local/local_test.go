package local

import (
	"bytes"
	"context"
	"errors"
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

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/freeport"
	"github.com/ruvio/ruvio/internal/poll"
)

// binary is the ruvio binary built once for every test of the package.
var binary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "chaos-local-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "ruvio")
	build := exec.Command("go", "build", "-o", binary, "github.com/ruvio/ruvio/cmd/ruvio")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ruvio:", err)
		return 1
	}
	return m.Run()
}

// opTimeout is the workload-style client timeout: an operation across a
// cut or to a paused node must give up after it.
const opTimeout = 300 * time.Millisecond

func startCluster(t *testing.T, topo topology.Topology) *Cluster {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), topology.ReadyTimeout+10*time.Second)
	defer cancel()
	cl, err := New(testLogger(t)).Start(ctx, topo, binary, dir)
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Cluster)
	t.Cleanup(func() {
		if t.Failed() {
			for _, name := range c.order {
				t.Logf("log of %s:\n%s", name, tail(c.nodes[name].logPath, 30))
			}
		}
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// client dials addr with the workload's timeouts and no retries, so every
// failure shows.
func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rc := redis.NewClient(&redis.Options{
		Addr:         addr,
		DialTimeout:  opTimeout,
		ReadTimeout:  opTimeout,
		WriteTimeout: opTimeout,
		MaxRetries:   -1,
	})
	t.Cleanup(func() { rc.Close() })
	return rc
}

// timesOut checks that a GET gives up with a timeout (not a refusal or a
// reset, which a partition or a pause would not produce).
func timesOut(t *testing.T, rc *redis.Client, key string) {
	t.Helper()
	start := time.Now()
	err := rc.Get(context.Background(), key).Err()
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("GET %s = %v, want a timeout", key, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("GET took %v to time out", d)
	}
}

func getIs(rc *redis.Client, key, want string) func() error {
	return func() error {
		got, err := rc.Get(context.Background(), key).Result()
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("GET %s = %q, want %q", key, got, want)
		}
		return nil
	}
}

// TestSingleNodeFaults walks one node through every fault the backend
// offers, checking each through a real client.
func TestSingleNodeFaults(t *testing.T) {
	c := startCluster(t, topology.Topology{Nodes: []topology.NodeSpec{
		{Name: "n1", Role: "node", Args: []string{"server", "--durability", "always"}},
	}})
	ctx := context.Background()
	if c.Backend() != "local" || c.Addr("nope") != "" {
		t.Fatal("Backend or Addr of an unknown node is wrong")
	}
	addr := c.Addr("n1")
	if addr == "" || addr == c.NodeAddrs("n1")[0] {
		t.Fatalf("Addr(n1) = %q does not go through a proxy (node at %v)", addr, c.NodeAddrs("n1"))
	}
	rc := client(t, addr)

	t.Run("set-get", func(t *testing.T) {
		if err := rc.Set(ctx, "k", "v1", 0).Err(); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "GET", getIs(rc, "k", "v1"))
	})

	t.Run("cut-heal", func(t *testing.T) {
		if err := c.Cut(ctx, []topology.Link{{From: topology.Client, To: "n1"}}); err != nil {
			t.Fatal(err)
		}
		timesOut(t, rc, "k")
		// A fresh connection hangs too: the cut is not a refusal.
		timesOut(t, client(t, addr), "k")
		// The node itself is fine behind the cut.
		if err := client(t, c.NodeAddrs("n1")[0]).Ping(ctx).Err(); err != nil {
			t.Fatalf("the node does not answer directly: %v", err)
		}
		if err := c.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "GET after heal", getIs(rc, "k", "v1"))
	})

	t.Run("reply-cut", func(t *testing.T) {
		// Cutting only n1 -> client lets the write in and loses its
		// acknowledgement: an indeterminate operation.
		if err := c.Cut(ctx, []topology.Link{{From: "n1", To: topology.Client}}); err != nil {
			t.Fatal(err)
		}
		err := rc.Set(ctx, "k", "v2", 0).Err()
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("SET across a reply cut = %v, want a timeout", err)
		}
		if err := c.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "the write that lost its reply", getIs(rc, "k", "v2"))
	})

	t.Run("kill-restart", func(t *testing.T) {
		if err := rc.Set(ctx, "durable", "yes", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Kill(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		if err := c.Kill(ctx, "n1"); err != nil {
			t.Fatalf("second Kill: %v", err)
		}
		if err := rc.Get(ctx, "durable").Err(); err == nil {
			t.Fatal("a killed node answered")
		}
		if err := c.Pause(ctx, "n1"); !errors.Is(err, ErrNotRunning) {
			t.Fatalf("Pause of a killed node = %v, want ErrNotRunning", err)
		}
		if err := c.Restart(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		if err := c.Restart(ctx, "n1"); err != nil {
			t.Fatalf("Restart of a running node: %v", err)
		}
		poll.UntilNil(t, 10*time.Second, "acknowledged key after restart", getIs(rc, "durable", "yes"))
	})

	t.Run("pause-resume", func(t *testing.T) {
		if err := c.Pause(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		if err := c.Pause(ctx, "n1"); err != nil {
			t.Fatalf("second Pause: %v", err)
		}
		timesOut(t, rc, "durable")
		if err := c.Resume(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "GET after resume", getIs(rc, "durable", "yes"))
	})

	t.Run("clock", func(t *testing.T) {
		testSetClock(t, c, rc)
	})

	t.Run("collect-logs", func(t *testing.T) {
		dir := t.TempDir()
		if err := c.CollectLogs(ctx, dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "n1.log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"ready to accept connections", "node killed (SIGKILL)", "node paused (SIGSTOP)"} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("collected log lacks %q", want)
			}
		}
	})

	t.Run("close", func(t *testing.T) {
		node := c.NodeAddrs("n1")[0]
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(ctx); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if err := c.Restart(ctx, "n1"); err == nil {
			t.Fatal("Restart after Close started the node again")
		}
		if err := topology.Ping(ctx, node, "", nil); err == nil {
			t.Fatal("the node still answers after Close")
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Fatal("the proxy still accepts after Close")
		}
		if _, err := os.Stat(filepath.Join(c.workDir, "n1", "data")); err != nil {
			t.Fatalf("Close removed the work dir: %v", err)
		}
	})
}

// testSetClock skews the node by an hour and reads TIME. It needs the clock
// package to honour RUVIO_FAKETIME_FILE; a binary that does not even
// contain the variable's name cannot, and the test fails.
func testSetClock(t *testing.T, c *Cluster, rc *redis.Client) {
	ctx := context.Background()
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	supported := bytes.Contains(b, []byte("RUVIO_FAKETIME_FILE"))

	if err := c.SetClock(ctx, "n1", "+1h"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.nodes["n1"].clockPath)
	if err != nil || string(got) != "+1h" {
		t.Fatalf("clock file holds %q (%v), want +1h", got, err)
	}
	if !supported {
		t.Fatal("the ruvio binary does not read RUVIO_FAKETIME_FILE, so SetClock cannot move TIME")
	}
	skew := func() (time.Duration, error) {
		tm, err := rc.Time(ctx).Result()
		if err != nil {
			return 0, err
		}
		return time.Until(tm), nil
	}
	poll.UntilNil(t, 10*time.Second, "TIME an hour ahead", func() error {
		d, err := skew()
		if err != nil {
			return err
		}
		if d < 59*time.Minute || d > 61*time.Minute {
			return fmt.Errorf("TIME is %v ahead", d)
		}
		return nil
	})
	if err := c.SetClock(ctx, "n1", ""); err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 10*time.Second, "TIME back to real time", func() error {
		d, err := skew()
		if err != nil {
			return err
		}
		if d < -time.Minute || d > time.Minute {
			return fmt.Errorf("TIME is %v ahead", d)
		}
		return nil
	})
}

// TestTwoNodesTwoShards checks the layout (own address per node, every
// shard proxied), the environment the nodes get, and that a cut isolates
// one node's shards while the other node still answers.
func TestTwoNodesTwoShards(t *testing.T) {
	// Inherited RUVIO_* settings would override the backend's flags.
	t.Setenv("RUVIO_PORT", "1")
	t.Setenv("RUVIO_DURABILITY", "bogus")
	spec := func(name string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: "node", Args: []string{"server", "--durability", "memory"},
			Env: map[string]string{"RUVIO_MAXCLIENTS": "77"}}
	}
	c := startCluster(t, topology.Topology{Nodes: []topology.NodeSpec{spec("n1"), spec("n2")}, Shards: 2})
	ctx := context.Background()

	ip1, _, _ := net.SplitHostPort(c.NodeAddrs("n1")[0])
	ip2, _, _ := net.SplitHostPort(c.NodeAddrs("n2")[0])
	if canBind("127.0.0.3") && (ip1 != "127.0.0.2" || ip2 != "127.0.0.3") {
		t.Fatalf("nodes on %s and %s, want 127.0.0.2 and 127.0.0.3", ip1, ip2)
	}
	for _, name := range []string{"n1", "n2"} {
		real, proxied := c.NodeAddrs(name), c.ShardAddrs(name)
		if len(real) != 2 || len(proxied) != 2 || proxied[0] != c.Addr(name) {
			t.Fatalf("%s: shards %v behind %v", name, real, proxied)
		}
		_, p0, _ := net.SplitHostPort(real[0])
		_, p1, _ := net.SplitHostPort(real[1])
		if a, _ := strconv.Atoi(p0); strconv.Itoa(a+1) != p1 {
			t.Fatalf("%s: shard ports %s and %s are not consecutive", name, p0, p1)
		}
		for _, a := range proxied {
			rc := client(t, a)
			if err := rc.Ping(ctx).Err(); err != nil {
				t.Fatalf("%s via %s: %v", name, a, err)
			}
			mc, err := rc.ConfigGet(ctx, "maxclients").Result()
			if err != nil || mc["maxclients"] != "77" {
				t.Fatalf("%s: maxclients = %v (%v), want the scenario's 77", name, mc, err)
			}
		}
	}

	if err := c.Cut(ctx, []topology.Link{{From: topology.Client, To: "n1"}, {From: "n1", To: topology.Client}}); err != nil {
		t.Fatal(err)
	}
	for _, a := range c.ShardAddrs("n1") {
		timesOut(t, client(t, a), "k")
	}
	for _, a := range c.ShardAddrs("n2") {
		if err := client(t, a).Ping(ctx).Err(); err != nil {
			t.Fatalf("n2 is cut too: %v", err)
		}
	}
	if err := c.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 10*time.Second, "n1 after heal", func() error { return client(t, c.Addr("n1")).Ping(ctx).Err() })

	// A link that no proxy carries yet is remembered: a proxy created on
	// it while it is cut starts cut.
	if err := c.Cut(ctx, []topology.Link{{From: "n1", To: "n2"}}); err != nil {
		t.Fatal(err)
	}
	pa, err := c.Proxy("n1", "n2", c.NodeAddrs("n2")[0])
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Proxy("n1", "n2", c.NodeAddrs("n2")[0]); again != pa {
		t.Fatalf("Proxy made a second proxy for the same link and target: %s, %s", pa, again)
	}
	timesOut(t, client(t, pa), "k")
	if err := c.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 10*time.Second, "n1->n2 after heal", func() error { return client(t, pa).Ping(ctx).Err() })

	if err := c.Cut(ctx, []topology.Link{{From: "n1", To: "n9"}}); err == nil {
		t.Fatal("Cut accepted a link to an unknown node")
	}
	if _, err := c.Proxy("n1", "n1", "127.0.0.1:1"); err == nil {
		t.Fatal("Proxy accepted a link from a node to itself")
	}
}

func TestStartRejects(t *testing.T) {
	ctx := context.Background()
	b := New(nil)
	if b.Name() != "local" {
		t.Fatalf("Name = %q", b.Name())
	}
	node := func(name string) topology.NodeSpec { return topology.NodeSpec{Name: name, Args: []string{"server"}} }
	bad := map[string]topology.Topology{
		"no nodes":        {},
		"client name":     {Nodes: []topology.NodeSpec{node(topology.Client)}},
		"duplicate":       {Nodes: []topology.NodeSpec{node("n1"), node("n1")}},
		"path":            {Nodes: []topology.NodeSpec{node("../n1")}},
		"owned env":       {Nodes: []topology.NodeSpec{{Name: "n1", Env: map[string]string{"RUVIO_PORT": "7000"}}}},
		"negative":        {Nodes: []topology.NodeSpec{node("n1")}, Shards: -1},
		"empty name":      {Nodes: []topology.NodeSpec{node("")}},
		"faketime env":    {Nodes: []topology.NodeSpec{{Name: "n1", Env: map[string]string{"RUVIO_FAKETIME": "+1h"}}}},
		"replication env": {Nodes: []topology.NodeSpec{{Name: "n1", Env: map[string]string{"RUVIO_REPLICATION_ROLE": "primary"}}}},
		"unknown primary": {Nodes: []topology.NodeSpec{{Name: "n1", ReplicaOf: "n0", Args: []string{"server"}}}},
		"chain":           {Nodes: []topology.NodeSpec{node("n1"), {Name: "n2", ReplicaOf: "n1"}, {Name: "n3", ReplicaOf: "n2"}}},
	}
	for what, topo := range bad {
		if _, err := b.Start(ctx, topo, binary, t.TempDir()); err == nil {
			t.Errorf("%s: Start accepted the topology", what)
		}
	}
	ok := topology.Topology{Nodes: []topology.NodeSpec{node("n1")}}
	if _, err := b.Start(ctx, ok, filepath.Join(t.TempDir(), "missing"), t.TempDir()); err == nil {
		t.Error("Start accepted a missing binary")
	}
}

// TestStartFailingNode checks that a node that cannot start fails Start
// with its log in the error, and that nothing stays running.
func TestStartFailingNode(t *testing.T) {
	dir := t.TempDir()
	topo := topology.Topology{Nodes: []topology.NodeSpec{
		{Name: "good", Args: []string{"server", "--durability", "memory"}},
		{Name: "bad", Args: []string{"server", "--durability", "bogus"}},
	}}
	_, err := New(testLogger(t)).Start(context.Background(), topo, binary, dir)
	if err == nil {
		t.Fatal("Start succeeded with a node that cannot start")
	}
	if !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("the error does not show the node's log: %v", err)
	}
	b, rerr := os.ReadFile(filepath.Join(dir, "good.log"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !bytes.Contains(b, []byte("node killed (SIGKILL)")) {
		t.Fatalf("the good node was not stopped after the failed start:\n%s", b)
	}
}

// TestReplicatedGroup starts a primary and two replicas from ReplicaOf:
// the replicas follow the primary through proxies of their links, so a
// cut reaches the replication stream; a restarted replica keeps its
// configuration; REPLICAOF at run time names a proxy too.
func TestReplicatedGroup(t *testing.T) {
	node := func(name, of string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: "node", ReplicaOf: of, Args: []string{"server", "--durability", "always"}}
	}
	c := startCluster(t, topology.Topology{Nodes: []topology.NodeSpec{node("n1", ""), node("n2", "n1"), node("n3", "n1")}, Shards: 2})
	ctx := context.Background()
	var _ topology.Replicated = c
	n1, n2, n3 := client(t, c.Addr("n1")), client(t, c.Addr("n2")), client(t, c.Addr("n3"))

	for _, name := range []string{"n1", "n2", "n3"} {
		real, err := net.ResolveTCPAddr("tcp", c.ReplAddr(name))
		if err != nil || !strings.HasPrefix(c.ReplAddr(name), strings.Split(c.NodeAddrs(name)[0], ":")[0]+":") {
			t.Fatalf("%s: ReplAddr %q (%v) is not on the node's own address %s", name, c.ReplAddr(name), err, c.NodeAddrs(name)[0])
		}
		listen, err := client(t, c.Addr(name)).ConfigGet(ctx, "replication-listen").Result()
		if err != nil || listen["replication-listen"] != real.String() {
			t.Fatalf("%s: CONFIG GET replication-listen = %v (%v), want %s", name, listen, err, real)
		}
	}
	// A node binds its metrics port again at every restart: one the
	// kernel could hand an outgoing connection meanwhile (its ephemeral
	// range) would make the restart fail.
	metrics := map[string]bool{}
	for _, name := range []string{"n1", "n2", "n3"} {
		_, p, err := net.SplitHostPort(c.MetricsAddr(name))
		port, _ := strconv.Atoi(p)
		if err != nil || port < freeport.Low || port >= freeport.High || metrics[p] {
			t.Fatalf("%s: metrics address %q is not a port of its own below the ephemeral range", name, c.MetricsAddr(name))
		}
		metrics[p] = true
	}
	via, err := c.ReplAddrFrom("n2", "n1")
	if err != nil || via == c.ReplAddr("n1") {
		t.Fatalf("ReplAddrFrom(n2, n1) = %q, %v: not a proxy of the link", via, err)
	}
	if again, _ := c.ReplAddrFrom("n2", "n1"); again != via {
		t.Fatalf("a second route for the same link: %s, %s", via, again)
	}
	for _, bad := range [][2]string{{"n2", "n9"}, {topology.Client, "n1"}, {"n1", "n1"}} {
		if _, err := c.ReplAddrFrom(bad[0], bad[1]); err == nil {
			t.Errorf("ReplAddrFrom(%s, %s) accepted", bad[0], bad[1])
		}
	}
	role, err := n2.Do(ctx, "ROLE").Slice()
	if err != nil || len(role) < 3 || role[0] != "slave" || fmt.Sprintf("%v:%v", role[1], role[2]) != via {
		t.Fatalf("n2 ROLE = %v (%v), want a replica of %s", role, err, via)
	}

	// Two keys, to reach both shards of every node.
	write := func(v string) {
		t.Helper()
		for _, k := range []string{"a", "b"} {
			if err := n1.Set(ctx, k, v, 0).Err(); err != nil {
				t.Fatalf("SET %s on the primary: %v", k, err)
			}
		}
	}
	seen := func(rc *redis.Client, v string) func() error {
		return func() error {
			for _, k := range []string{"a", "b"} {
				if err := getIs(rc, k, v)(); err != nil {
					return err
				}
			}
			return nil
		}
	}
	write("v1")
	poll.UntilNil(t, 10*time.Second, "n2 has v1", seen(n2, "v1"))
	poll.UntilNil(t, 10*time.Second, "n3 has v1", seen(n3, "v1"))
	if err := n2.Set(ctx, "a", "x", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Fatalf("SET on a replica = %v, want READONLY", err)
	}

	t.Run("cut replication link", func(t *testing.T) {
		// The primary's stream to n2 is the reply direction of n2's
		// link to n1.
		if err := c.Cut(ctx, []topology.Link{{From: "n1", To: "n2"}}); err != nil {
			t.Fatal(err)
		}
		write("v2")
		poll.UntilNil(t, 10*time.Second, "n3 has v2", seen(n3, "v2"))
		poll.Stays(t, 300*time.Millisecond, "n2 at v1 across a cut link", func() bool { return seen(n2, "v1")() == nil })
		if err := c.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "n2 has v2 after heal", seen(n2, "v2"))
	})

	t.Run("restarted replica keeps following", func(t *testing.T) {
		if err := c.Kill(ctx, "n2"); err != nil {
			t.Fatal(err)
		}
		write("v3")
		if err := c.Restart(ctx, "n2"); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "n2 has v3 after its restart", seen(client(t, c.Addr("n2")), "v3"))
	})

	t.Run("repoint at run time", func(t *testing.T) {
		if err := n2.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
			t.Fatal(err)
		}
		to, err := c.ReplAddrFrom("n3", "n2")
		if err != nil {
			t.Fatal(err)
		}
		host, port, _ := net.SplitHostPort(to)
		if err := n3.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
			t.Fatal(err)
		}
		if err := n2.Set(ctx, "b", "v4", 0).Err(); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "n3 follows n2", func() error { return getIs(n3, "b", "v4")() })
		// Cuts reach the route made at run time too.
		if err := c.Cut(ctx, []topology.Link{{From: "n2", To: "n3"}}); err != nil {
			t.Fatal(err)
		}
		if err := n2.Set(ctx, "b", "v5", 0).Err(); err != nil {
			t.Fatal(err)
		}
		poll.Stays(t, 300*time.Millisecond, "n3 at v4 across a cut link", func() bool { return getIs(n3, "b", "v4")() == nil })
		if err := c.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		poll.UntilNil(t, 10*time.Second, "n3 catches up after heal", func() error { return getIs(n3, "b", "v5")() })
	})
}

// coordinatedTopology is n1 primary, n2 n3 replicas and three
// coordinators.
func coordinatedTopology() topology.Topology {
	node := func(name, of string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, ReplicaOf: of, Args: []string{"server", "--durability", "always"}}
	}
	coord := func(name string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleCoordinator, Args: []string{"coordinator"}}
	}
	return topology.Topology{Nodes: []topology.NodeSpec{node("n1", ""), node("n2", "n1"), node("n3", "n1"),
		coord("c1"), coord("c2"), coord("c3")}, Shards: 2}
}

// memberState reads how coordinator coord sees member addr in COORDINATOR
// STATUS: "master", "slave" or "down".
func memberState(ctx context.Context, coord *redis.Client, addr string) (string, error) {
	status, err := coord.Do(ctx, "COORDINATOR", "STATUS").Text()
	if err != nil {
		return "", err
	}
	i := strings.Index(status, addr+"(")
	if i < 0 {
		return "", fmt.Errorf("%s not in %q", addr, status)
	}
	rest := status[i+len(addr)+1:]
	return rest[:strings.IndexByte(rest, ')')], nil
}

// Every coordinator knows a data node by one address, and a cut of one
// coordinator's link to it reaches that coordinator's connections only.
func TestCoordinatedGroup(t *testing.T) {
	c := startCluster(t, coordinatedTopology())
	ctx := context.Background()
	coords := map[string]*redis.Client{}
	for _, name := range []string{"c1", "c2", "c3"} {
		coords[name] = redis.NewClient(&redis.Options{Addr: c.Addr(name), Password: c.CoordinatorSecret(),
			DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: -1, Protocol: 2, DisableIdentity: true})
		t.Cleanup(func() { coords[name].Close() })
	}
	n1 := c.MemberAddr("n1")
	if n1 == "" || n1 == c.Addr("n1") || n1 == c.NodeAddrs("n1")[0] {
		t.Fatalf("MemberAddr(n1) = %q", n1)
	}
	for name, cl := range coords {
		poll.UntilNil(t, 10*time.Second, name+" names n1 primary", func() error {
			addr, err := cl.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", topology.GroupName).StringSlice()
			if err != nil {
				return err
			}
			if len(addr) != 2 || net.JoinHostPort(addr[0], addr[1]) != n1 {
				return fmt.Errorf("answered %v, want %s", addr, n1)
			}
			if st, err := memberState(ctx, cl, c.MemberAddr("n3")); err != nil || st != "slave" {
				return fmt.Errorf("n3 is %q (%v)", st, err)
			}
			return nil
		})
	}
	if err := c.Cut(ctx, []topology.Link{{From: "c1", To: "n1"}, {From: "n1", To: "c1"}}); err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 10*time.Second, "c1 loses n1", func() error {
		if st, err := memberState(ctx, coords["c1"], n1); err != nil || st != "down" {
			return fmt.Errorf("c1 sees n1 %q (%v)", st, err)
		}
		return nil
	})
	for _, name := range []string{"c2", "c3"} {
		if st, err := memberState(ctx, coords[name], n1); err != nil || st != "master" {
			t.Fatalf("%s sees n1 %q (%v) while only c1's link is cut", name, st, err)
		}
	}
	if err := c.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 10*time.Second, "c1 hears n1 again", func() error {
		if st, err := memberState(ctx, coords["c1"], n1); err != nil || st != "master" {
			return fmt.Errorf("c1 sees n1 %q (%v)", st, err)
		}
		return nil
	})
	// A coordinator restarts on its Raft data and agrees again.
	if err := c.Kill(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	poll.UntilNil(t, 10*time.Second, "c2 back", func() error { return coords["c2"].Ping(ctx).Err() })
}
