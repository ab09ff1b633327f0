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
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A group of real data-node processes and real coordinator processes.

type member struct {
	p    *proc
	dir  string
	env  []string
	args []string
	repl string // replication base address
}

func (m *member) restart(t *testing.T) {
	m.p = startNodeIn(t, m.dir, m.env, m.args...)
}

// startGroup starts a primary and n-1 replicas of it, with fixed client
// ports (so the coordinators' configuration stays true across restarts).
func startGroup(t *testing.T, n int) []*member {
	var ms []*member
	for i := 0; i < n; i++ {
		repl := "127.0.0.1:" + strconv.Itoa(freePort(t, 1))
		port := freePort(t, 1)
		env := []string{"RUVIO_REPLICATION_LISTEN=" + repl, "RUVIO_REPLICATION_ROLE=primary"}
		if i > 0 {
			env = []string{"RUVIO_REPLICATION_LISTEN=" + repl, "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + ms[0].repl}
		}
		m := &member{dir: t.TempDir(), env: env, repl: repl, args: []string{"--durability", "always", "--port", strconv.Itoa(port)}}
		m.restart(t)
		ms = append(ms, m)
	}
	return ms
}

type coord struct {
	id   int
	addr string
	file string
	p    *exec.Cmd
	logs *lockedBuilder
	done chan struct{}
}

// startCoordinators writes one coordinator.toml per coordinator and starts
// them; extra is appended to every file.
func startCoordinators(t *testing.T, n int, group []*member, extra string) []*coord {
	var cs []*coord
	var peers []string
	for i := 1; i <= n; i++ {
		addr := "127.0.0.1:" + strconv.Itoa(freePort(t, 1))
		cs = append(cs, &coord{id: i, addr: addr})
		peers = append(peers, fmt.Sprintf("%q", fmt.Sprintf("%d@%s", i, addr)))
	}
	var members []string
	for _, m := range group {
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", m.p.addr(), m.repl))
	}
	for _, c := range cs {
		dir := t.TempDir()
		c.file = filepath.Join(dir, "coordinator.toml")
		body := fmt.Sprintf("id = %d\nlisten = %q\ndata_dir = %q\npeers = [%s]\nping_interval_ms = 100\ndown_after_ms = 500\n%s\n[[groups]]\nname = \"main\"\nmembers = [%s]\n",
			c.id, c.addr, filepath.Join(dir, "data"), strings.Join(peers, ", "), extra, strings.Join(members, ", "))
		if err := os.WriteFile(c.file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c.start(t)
	}
	return cs
}

func (c *coord) start(t *testing.T) {
	c.logs = &lockedBuilder{}
	c.p = exec.Command(binary, "coordinator", "--config", c.file)
	c.p.Stderr = c.logs
	if err := c.p.Start(); err != nil {
		t.Fatal(err)
	}
	c.done = make(chan struct{})
	cmd, done := c.p, c.done
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
}

func (c *coord) kill() {
	c.p.Process.Signal(syscall.SIGKILL)
	<-c.done
}

func (c *coord) client(password string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: c.addr, Password: password, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
}

// primaryOf asks a coordinator for the group's primary address.
func primaryOf(c *coord, password string) string {
	cl := c.client(password)
	defer cl.Close()
	v, err := cl.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "main").StringSlice()
	if err != nil || len(v) != 2 {
		return ""
	}
	return net.JoinHostPort(v[0], v[1])
}

func masterField(t *testing.T, c *coord, field string) string {
	cl := c.client("")
	defer cl.Close()
	m, err := cl.Do(context.Background(), "SENTINEL", "MASTER", "main").Result()
	if err != nil {
		return ""
	}
	switch v := m.(type) {
	case map[any]any:
		return fmt.Sprint(v[field])
	}
	return ""
}

func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func roleOf(addr string) string {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 500 * time.Millisecond})
	defer c.Close()
	v, err := c.Do(context.Background(), "ROLE").Slice()
	if err != nil || len(v) == 0 {
		return ""
	}
	return fmt.Sprint(v[0])
}

func dumpLogs(t *testing.T, cs []*coord) {
	for _, c := range cs {
		t.Logf("coordinator %d:\n%s", c.id, c.logs.String())
	}
}

// T-LIVE: the primary is killed, the coordinators promote a replica,
// repoint the other, publish it, and the old primary, restarted with its
// primary configuration, is made a replica of the new one (C-FO-1..11).
func TestCoordinatorsFailOverAKilledPrimary(t *testing.T) {
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	writeKeys(t, g[0].p, "before:", 50)

	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	killed := time.Now()
	var promoted string
	waitUntil(t, 15*time.Second, "a failover", func() bool {
		promoted = primaryOf(cs[1], "")
		return promoted != "" && promoted != g[0].p.addr()
	})
	var newPrimary, other *member
	for _, m := range g[1:] {
		if m.p.addr() == promoted {
			newPrimary = m
		} else {
			other = m
		}
	}
	waitUntil(t, 10*time.Second, "writes on the new primary", func() bool {
		return roleOf(promoted) == "master" && do(t, newPrimary.p, "SET", "after", "1") == "OK"
	})
	t.Logf("first write on the new primary %v after the kill", time.Since(killed))
	if e := masterField(t, cs[2], "config-epoch"); e != "2" {
		t.Fatalf("config-epoch = %q, want 2", e)
	}
	waitUntil(t, 10*time.Second, "the other replica to follow the new primary", func() bool {
		info := replInfo(t, other.p.addr())
		return info["master_link_status"] == "up" && net.JoinHostPort(info["master_host"], info["master_port"]) == newPrimary.repl
	})

	g[0].restart(t) // comes back as a primary, by its configuration
	waitUntil(t, 10*time.Second, "the old primary to be made a replica", func() bool {
		info := replInfo(t, g[0].p.addr())
		return info["role"] == "slave" && info["master_link_status"] == "up"
	})
	if v := do(t, g[0].p, "GET", "after"); v != "1" {
		t.Fatalf("the old primary did not catch up: %v", v)
	}
}

// C-FO-12, F11: restarting every coordinator while the primary answers
// fails nothing over.
func TestRestartingEveryCoordinatorKeepsThePrimary(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	for _, c := range cs {
		c.kill()
	}
	for _, c := range cs {
		c.start(t)
	}
	waitUntil(t, 15*time.Second, "the restarted coordinators to answer", func() bool { return primaryOf(cs[0], "") != "" })
	// Several down_after_ms periods pass: a coordinator that counted
	// silence from before its start would fail over now.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if p := primaryOf(cs[0], ""); p != "" && p != g[0].p.addr() {
			dumpLogs(t, cs)
			t.Fatalf("failed over to %s after a restart of the coordinators", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if e := masterField(t, cs[0], "config-epoch"); e != "1" {
		t.Fatalf("config-epoch = %q after restarts, want 1", e)
	}
}

// C-SEC, C-SENT-7: with a secret, clients must AUTH with it, and a
// coordinator with another secret cannot take part in Raft.
func TestCoordinatorSecret(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, `secret = "s3cret"`)
	waitUntil(t, 15*time.Second, "a leader", func() bool { return primaryOf(cs[0], "s3cret") == g[0].p.addr() })
	ctx := context.Background()
	noAuth := cs[0].client("")
	defer noAuth.Close()
	if err := noAuth.Do(ctx, "SENTINEL", "MASTERS").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("without AUTH: %v", err)
	}
	wrong := cs[0].client("nope")
	defer wrong.Close()
	if err := wrong.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("wrong secret: %v", err)
	}
	// Coordinator 3 restarts with another secret: its Raft calls are
	// refused, and the other two refuse its votes.
	cs[2].kill()
	b, _ := os.ReadFile(cs[2].file)
	os.WriteFile(cs[2].file, []byte(strings.Replace(string(b), "s3cret", "other", 1)), 0o644)
	cs[2].start(t)
	waitUntil(t, 10*time.Second, "the others to refuse it", func() bool {
		return strings.Contains(cs[0].logs.String()+cs[1].logs.String(), "refused a Raft connection with a wrong or missing secret")
	})
}

// C-SENT-2: redis-py's Sentinel client (Debian's python3-redis) finds the
// primary through the coordinators, writes through it, and follows a
// failover. Skipped where python3-redis is missing, unless
// REQUIRE_REDIS_PY=1 (CI installs it).
func TestRedisPySentinelFollowsAFailover(t *testing.T) {
	python := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		python = "/usr/bin/python3" // Debian's, where python3-redis installs
	}
	if exec.Command(python, "-c", "import redis.sentinel").Run() != nil {
		if os.Getenv("REQUIRE_REDIS_PY") == "1" {
			t.Fatal("python3-redis is required (REQUIRE_REDIS_PY=1)")
		}
		t.Skip("python3-redis is not installed")
	}
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	var addrs []string
	for _, c := range cs {
		addrs = append(addrs, c.addr)
	}
	out := &lockedBuilder{}
	py := exec.Command(python, "testdata/sentinel_client.py", strings.Join(addrs, ","), "6")
	py.Stdout = out
	py.Stderr = &lockedBuilder{}
	if err := py.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { py.Process.Kill(); py.Wait() })
	waitUntil(t, 5*time.Second, "the first write", func() bool { return strings.Contains(out.String(), g[0].p.addr()) })
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	killed := time.Now().UnixMilli()
	if err := py.Wait(); err != nil {
		t.Fatalf("python: %v\n%s", err, py.Stderr)
	}
	var first int64
	last := ""
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		ms, _ := strconv.ParseInt(f[0], 10, 64)
		if ms > killed && f[2] != g[0].p.addr() && first == 0 {
			first = ms
		}
		last = f[2]
	}
	if first == 0 || last == g[0].p.addr() {
		t.Fatalf("redis-py never wrote to a new primary:\n%s\n%s", out.String(), py.Stderr)
	}
	t.Logf("redis-py: first write on the new primary %d ms after the kill", first-killed)
}
