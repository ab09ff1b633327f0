package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/poll"
)

var (
	envOnce   sync.Once
	envSkip   string // why Docker tests cannot run here, or ""
	envBinary string // a static ruvio binary
	envAPI    client.APIClient
	envDir    string
	shared    *Backend
)

// TestMain removes the binary built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if envDir != "" {
		os.RemoveAll(envDir)
	}
	os.Exit(code)
}

// requireDocker returns the shared backend and a static ruvio binary, or
// skips the test when no engine answers (fails it under
// CHAOS_REQUIRE_DOCKER=1, as CI sets).
func requireDocker(t *testing.T) (*Backend, string) {
	t.Helper()
	envOnce.Do(func() {
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
		shared = New(log).(*Backend)
		provider, err := testcontainers.NewDockerProvider()
		if err != nil {
			envSkip = "no Docker engine found (testcontainers: " + err.Error() + ")"
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := provider.Client().Ping(ctx, client.PingOptions{}); err != nil {
			envSkip = "no Docker engine answers: " + err.Error()
			return
		}
		envAPI = provider.Client()
		if envDir, err = os.MkdirTemp("", "ruvio-docker-test-"); err != nil {
			envSkip = err.Error()
			return
		}
		envBinary = filepath.Join(envDir, "ruvio")
		cmd := exec.Command("go", "build", "-o", envBinary, "./cmd/ruvio")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			envSkip = fmt.Sprintf("go build ./cmd/ruvio: %v\n%s", err, out)
		}
	})
	if envSkip != "" {
		if os.Getenv("CHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CHAOS_REQUIRE_DOCKER=1 but Docker tests cannot run: %s", envSkip)
		}
		t.Skipf("skipping Docker backend test (%s); set CHAOS_REQUIRE_DOCKER=1 to make this a failure", envSkip)
	}
	return shared, envBinary
}

// start brings up a topology and closes it when the test ends.
func start(t *testing.T, ctx context.Context, topo topology.Topology) *cluster {
	t.Helper()
	b, bin := requireDocker(t)
	began := time.Now()
	cl, err := b.Start(ctx, topo, bin, t.TempDir())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("Start of %d node(s) took %v (image already built)", len(topo.Nodes), time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cl.Close(cctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return cl.(*cluster)
}

// ensureImage builds (or finds) the image and reports how long it took.
func ensureImage(t *testing.T, ctx context.Context) string {
	t.Helper()
	b, bin := requireDocker(t)
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	tag, err := b.image(ctx, provider, bin, t.TempDir())
	if err != nil {
		t.Fatalf("image: %v", err)
	}
	t.Logf("image %s ready in %v", tag, time.Since(began).Round(time.Millisecond))
	return tag
}

// newClient returns a go-redis client that gives up quickly, so a cut or a
// paused node shows as a timeout within a second.
func newClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, PoolSize: 2, DialerRetries: 1,
		DialTimeout: 500 * time.Millisecond, ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// wantTimeout fails unless GET key fails with a network timeout.
func wantTimeout(t *testing.T, ctx context.Context, c *redis.Client, what string) {
	t.Helper()
	err := c.Get(ctx, "k").Err()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("%s: GET returned %v, want a timeout", what, err)
	}
}

// eventually polls GET key until it returns want, for at most 10 s: a
// healed or resumed node answers on a fresh connection at once, but the
// pool may first hand out a connection that died. Each GET has its own
// bound, so one stuck on a dead connection cannot outlast the wait.
func eventually(t *testing.T, ctx context.Context, c *redis.Client, key, want, what string) {
	t.Helper()
	poll.UntilNil(t, 10*time.Second, what, func() error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		got, err := c.Get(ctx, key).Result()
		if err == nil && got != want {
			err = fmt.Errorf("GET %s = %q, want %q", key, got, want)
		}
		return err
	})
}

// dialFrom sends PING to addr from inside node's network namespace (a host
// process entered into it, so its packets carry the node's address) and
// reports whether +PONG came back within a second.
func dialFrom(t *testing.T, ctx context.Context, cl *cluster, from, addr string) bool {
	t.Helper()
	_, pid, err := cl.state(ctx, cl.nodes[from])
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(addr)
	script := fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s && printf 'PING\r\n' >&3 && head -c 5 <&3`, host, port)
	out, _ := exec.CommandContext(ctx, "nsenter", "-t", strconv.Itoa(pid), "-n", "timeout", "1", "bash", "-c", script).Output()
	return string(out) == "+PONG"
}

func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	tag := ensureImage(t, ctx)
	img, err := envAPI.ImageInspect(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	// FROM scratch plus one COPY is exactly one layer: nothing was pulled.
	if n := len(img.RootFS.Layers); n != 1 {
		t.Errorf("image has %d layers, want 1 (FROM scratch + COPY)", n)
	}

	args := []string{"server", "--durability", "always"}
	cl := start(t, ctx, topology.Topology{Nodes: []topology.NodeSpec{{Name: "n1", Args: args}, {Name: "n2", Args: args}}})
	if cl.Backend() != "docker" {
		t.Errorf("Backend() = %q", cl.Backend())
	}
	addr1, addr2 := cl.Addr("n1"), cl.Addr("n2")
	c1, c2 := newClient(t, addr1), newClient(t, addr2)
	for _, c := range []*redis.Client{c1, c2} {
		if err := c.Set(ctx, "k", "v1", 0).Err(); err != nil {
			t.Fatalf("SET via %s: %v", c.Options().Addr, err)
		}
		eventually(t, ctx, c, "k", "v1", "before faults")
	}

	t.Run("cut client to n1", func(t *testing.T) {
		if err := cl.Cut(ctx, []topology.Link{{From: topology.Client, To: "n1"}}); err != nil {
			t.Fatal(err)
		}
		wantTimeout(t, ctx, c1, "n1 cut from the client")
		eventually(t, ctx, c2, "k", "v1", "n2 while n1 is cut")
		if err := cl.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, c1, "k", "v1", "n1 after heal")
	})

	t.Run("cut n1 to client", func(t *testing.T) {
		// Only the replies are dropped (an OUTPUT rule on n1): TCP stalls.
		if err := cl.Cut(ctx, []topology.Link{{From: "n1", To: topology.Client}}); err != nil {
			t.Fatal(err)
		}
		wantTimeout(t, ctx, c1, "n1's replies cut")
		eventually(t, ctx, c2, "k", "v1", "n2 while n1's replies are cut")
		if err := cl.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, c1, "k", "v1", "n1 after heal")
	})

	t.Run("cut n1 to n2", func(t *testing.T) {
		if !dialFrom(t, ctx, cl, "n1", addr2) {
			t.Fatal("n1 cannot reach n2 before any cut")
		}
		if err := cl.Cut(ctx, []topology.Link{{From: "n1", To: "n2"}}); err != nil {
			t.Fatal(err)
		}
		if dialFrom(t, ctx, cl, "n1", addr2) {
			t.Error("n1 reached n2 across a cut link")
		}
		eventually(t, ctx, c2, "k", "v1", "client to n2 while n1 -> n2 is cut")
		eventually(t, ctx, c1, "k", "v1", "client to n1 while n1 -> n2 is cut")
		if err := cl.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		if !dialFrom(t, ctx, cl, "n1", addr2) {
			t.Error("n1 cannot reach n2 after heal")
		}
	})

	t.Run("kill and restart keep acknowledged data and addresses", func(t *testing.T) {
		if err := c1.Set(ctx, "durable", "yes", 0).Err(); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"n1", "n2"} {
			if err := cl.Kill(ctx, n); err != nil {
				t.Fatalf("Kill %s: %v", n, err)
			}
		}
		if err := cl.Kill(ctx, "n1"); err != nil {
			t.Fatalf("second Kill: %v", err)
		}
		// Restarting in the other order would swap dynamic addresses.
		for _, n := range []string{"n2", "n1"} {
			if err := cl.Restart(ctx, n); err != nil {
				t.Fatalf("Restart %s: %v", n, err)
			}
		}
		if cl.Addr("n1") != addr1 || cl.Addr("n2") != addr2 {
			t.Fatalf("addresses moved: %s %s, were %s %s", cl.Addr("n1"), cl.Addr("n2"), addr1, addr2)
		}
		if !dialFrom(t, ctx, cl, "n2", addr1) {
			t.Error("n2 cannot reach n1 at its old address after the restarts")
		}
		eventually(t, ctx, newClient(t, addr1), "durable", "yes", "n1 after kill and restart")
	})

	t.Run("a cut outlives a restart", func(t *testing.T) {
		link := []topology.Link{{From: topology.Client, To: "n1"}}
		if err := cl.Cut(ctx, link); err != nil {
			t.Fatal(err)
		}
		if err := cl.Kill(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		if err := cl.Restart(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		wantTimeout(t, ctx, newClient(t, addr1), "n1 restarted while cut")
		if err := cl.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, newClient(t, addr1), "durable", "yes", "n1 healed after restart")
	})

	t.Run("pause and resume", func(t *testing.T) {
		c := newClient(t, addr1)
		eventually(t, ctx, c, "durable", "yes", "before pause")
		if err := cl.Pause(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		wantTimeout(t, ctx, c, "n1 paused")
		if err := cl.Resume(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, c, "durable", "yes", "n1 resumed")

		// A paused node can still be killed, and comes back unpaused.
		if err := cl.Pause(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		if err := cl.Kill(ctx, "n1"); err != nil {
			t.Fatalf("Kill of a paused node: %v", err)
		}
		if err := cl.Resume(ctx, "n1"); err != nil {
			t.Fatalf("Resume of a killed node: %v", err)
		}
		if err := cl.Restart(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, newClient(t, addr1), "durable", "yes", "n1 restarted after a kill while paused")
	})

	t.Run("clock file", func(t *testing.T) {
		for _, spec := range []string{"+1h x1.1", ""} {
			if err := cl.SetClock(ctx, "n1", spec); err != nil {
				t.Fatal(err)
			}
			rc, err := cl.nodes["n1"].ctr.CopyFileFromContainer(ctx, faketimePath)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			if strings.TrimSpace(string(b)) != spec {
				t.Errorf("%s holds %q after SetClock(%q)", faketimePath, b, spec)
			}
		}
	})

	t.Run("logs", func(t *testing.T) {
		dir := t.TempDir()
		if err := cl.CollectLogs(ctx, dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "n1.log"))
		if err != nil {
			t.Fatal(err)
		}
		// Four starts of n1 so far: the log spans restarts.
		if n := strings.Count(string(b), "ready to accept connections"); n != 4 {
			t.Errorf("n1.log shows %d start-ups, want 4:\n%s", n, b)
		}
	})

	if err := cl.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := labelled(t, ctx, cl.runID); left != "" {
		t.Errorf("Close left %s", left)
	}
}

// TestSweep checks that Sweep removes the resources of a run that never
// closed, after the smallest topology has served a client.
func TestSweep(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := start(t, ctx, topology.Topology{Nodes: []topology.NodeSpec{{Name: "n1", Args: []string{"server"}}}})
	c := newClient(t, cl.Addr("n1"))
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	eventually(t, ctx, c, "k", "v", "1-node topology")
	if labelled(t, ctx, cl.runID) == "" {
		t.Fatal("the run's resources are not labelled")
	}
	if err := Sweep(ctx); err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if left := labelled(t, ctx, ""); left != "" {
		t.Errorf("Sweep left %s", left)
	}
	// The run's own Close (in cleanup) must cope with what Sweep removed.
	cl.closed = true
}

// labelled lists the harness's containers and networks (of one run, if
// runID is set) except those of other live processes, as a readable string.
func labelled(t *testing.T, ctx context.Context, runID string) string {
	t.Helper()
	label := LabelKey
	if runID != "" {
		label += "=" + runID
	}
	f := client.Filters{}.Add("label", label)
	var left []string
	ctrs, err := envAPI.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ctrs.Items {
		if !ownerAlive(c.Labels[ownerLabel]) {
			left = append(left, "container "+strings.Join(c.Names, ","))
		}
	}
	nets, err := envAPI.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nets.Items {
		if !ownerAlive(n.Labels[ownerLabel]) {
			left = append(left, "network "+n.Name)
		}
	}
	return strings.Join(left, "; ")
}

// TestCheckStatic needs no engine: a scratch image cannot run a binary that
// wants a dynamic loader, and the backend must say so up front.
func TestCheckStatic(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to serve as a dynamic binary")
	}
	sh, _ = filepath.EvalSymlinks(sh)
	if _, err := checkStatic(sh); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("checkStatic(%s) = %v, want a dynamically linked error", sh, err)
	}
	if _, err := checkStatic(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("checkStatic accepted a missing file")
	}
}

// TestReplicationEnv needs no engine: every data node of a replicated
// topology listens for replicas on all interfaces with the run's password
// (the data node demands one off loopback) and announces its own client
// address; a replica follows its primary's address on the run network.
func TestReplicationEnv(t *testing.T) {
	topo := topology.Topology{Nodes: []topology.NodeSpec{
		{Name: "n1", Role: "node"}, {Name: "n2", Role: "node", ReplicaOf: "n1"}, {Name: "c1", Role: "coordinator"},
	}}
	ips := map[string]netip.Addr{
		"n1": netip.MustParseAddr("172.30.0.2"), "n2": netip.MustParseAddr("172.30.0.3"), "c1": netip.MustParseAddr("172.30.0.4"),
	}
	want := map[string]map[string]string{
		"n1": {"RUVIO_REPLICATION_ROLE": "primary", "RUVIO_REPLICATION_LISTEN": "0.0.0.0:26379",
			"RUVIO_REPLICATION_PASSWORD": "pw", "RUVIO_REPLICATION_ANNOUNCE": "172.30.0.2:6379"},
		"n2": {"RUVIO_REPLICATION_ROLE": "replica", "RUVIO_REPLICATION_LISTEN": "0.0.0.0:26379",
			"RUVIO_REPLICATION_PASSWORD": "pw", "RUVIO_REPLICATION_ANNOUNCE": "172.30.0.3:6379",
			"RUVIO_REPLICATION_PRIMARY": "172.30.0.2:26379"},
		"c1": nil,
	}
	for _, spec := range topo.Nodes {
		if got := replicationEnv(topo, spec, ips, "pw", nodePort); !reflect.DeepEqual(got, want[spec.Name]) {
			t.Errorf("%s: %v, want %v", spec.Name, got, want[spec.Name])
		}
	}
	plain := topology.Topology{Nodes: []topology.NodeSpec{{Name: "n1", Role: "node"}}}
	if env := replicationEnv(plain, plain.Nodes[0], ips, "", nodePort); env != nil {
		t.Errorf("a topology that does not replicate gets %v", env)
	}
}

// Coordinators run as containers that agree on the primary, and an
// iptables cut of one coordinator's link to the primary reaches that
// coordinator only.
func TestCoordinatedGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	node := func(name, of string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, ReplicaOf: of, Args: []string{"server", "--durability", "always"}}
	}
	coord := func(name string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleCoordinator, Args: []string{"coordinator"}}
	}
	cl := start(t, ctx, topology.Topology{Nodes: []topology.NodeSpec{node("n1", ""), node("n2", "n1"), node("n3", "n1"),
		coord("c1"), coord("c2"), coord("c3")}})
	if cl.CoordinatorSecret() == "" || cl.MemberAddr("n1") != cl.Addr("n1") || cl.MemberAddr("c1") != "" {
		t.Fatalf("secret %q, MemberAddr(n1) %q, MemberAddr(c1) %q", cl.CoordinatorSecret(), cl.MemberAddr("n1"), cl.MemberAddr("c1"))
	}
	state := func(coord string) string {
		c := redis.NewClient(&redis.Options{Addr: cl.Addr(coord), Password: cl.CoordinatorSecret(), MaxRetries: -1,
			DialTimeout: time.Second, ReadTimeout: time.Second, Protocol: 2, DisableIdentity: true})
		defer c.Close()
		status, err := c.Do(ctx, "COORDINATOR", "STATUS").Text()
		if err != nil {
			return err.Error()
		}
		i := strings.Index(status, cl.MemberAddr("n1")+"(")
		if i < 0 {
			return status
		}
		rest := status[i+len(cl.MemberAddr("n1"))+1:]
		return rest[:strings.IndexByte(rest, ')')]
	}
	waitState := func(coord, want string) {
		t.Helper()
		poll.UntilNil(t, 20*time.Second, coord+" to see n1 as "+want, func() error {
			if got := state(coord); got != want {
				return fmt.Errorf("%s sees n1 as %q", coord, got)
			}
			return nil
		})
	}
	for _, c := range []string{"c1", "c2", "c3"} {
		waitState(c, "master")
	}
	if err := cl.Cut(ctx, []topology.Link{{From: "c1", To: "n1"}, {From: "n1", To: "c1"}}); err != nil {
		t.Fatal(err)
	}
	waitState("c1", "down")
	if got := state("c2"); got != "master" {
		t.Fatalf("c2 sees n1 as %q while only c1's link is cut", got)
	}
	if err := cl.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	waitState("c1", "master")
}
