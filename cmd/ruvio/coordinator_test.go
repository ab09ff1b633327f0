package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	return startCoordinatorsVia(t, n, groupTOML("main", group), extra, nil)
}

// groupTOML is one [[groups]] table.
func groupTOML(name string, group []*member) string {
	var members []string
	for _, m := range group {
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", m.p.addr(), m.repl))
	}
	return fmt.Sprintf("[[groups]]\nname = %q\nmembers = [%s]\n", name, strings.Join(members, ", "))
}

// startCoordinatorsVia starts n coordinators over the given groups; via,
// when set, gives the address coordinator from uses to reach coordinator
// to (a fault proxy).
func startCoordinatorsVia(t *testing.T, n int, groups, extra string, via func(from, to int, addr string) string) []*coord {
	var cs []*coord
	for i := 1; i <= n; i++ {
		cs = append(cs, &coord{id: i, addr: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))})
	}
	for _, c := range cs {
		var peers []string
		for _, o := range cs {
			addr := o.addr
			if via != nil && o.id != c.id {
				addr = via(c.id, o.id, o.addr)
			}
			peers = append(peers, fmt.Sprintf("%q", fmt.Sprintf("%d@%s", o.id, addr)))
		}
		dir := t.TempDir()
		c.file = filepath.Join(dir, "coordinator.toml")
		timing := "ping_interval_ms = 100\n"
		if !strings.Contains(extra, "down_after_ms") {
			timing += "down_after_ms = 500\n"
		}
		body := fmt.Sprintf("id = %d\nlisten = %q\ndata_dir = %q\npeers = [%s]\n%s%s\n%s",
			c.id, c.addr, filepath.Join(dir, "data"), strings.Join(peers, ", "), timing, extra, groups)
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
	waitUntil(t, 5*time.Second, "every coordinator to apply the failover", func() bool { return masterField(t, cs[2], "config-epoch") == "2" })
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

// cutProxy forwards TCP to target until cut, which closes its connections
// and refuses new ones: the two sides cannot reach each other.
type cutProxy struct {
	ln     net.Listener
	target string
	cut    atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			if p.cut.Load() {
				in.Close()
				continue
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) setCut(cut bool) {
	p.cut.Store(cut)
	if cut {
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
		p.mu.Unlock()
	}
}

// leaderOf asks a coordinator who leads.
func leaderOf(c *coord) string {
	cl := c.client("")
	defer cl.Close()
	txt, err := cl.Do(context.Background(), "COORDINATOR", "STATUS").Text()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(txt, "\r\n") {
		if v, ok := strings.CutPrefix(line, "leader:"); ok {
			return v
		}
	}
	return ""
}

// C-LEAD, T-LIVE, F9: a leader cut off from the other coordinators, still
// reaching every data node, neither fails over nor corrects a member; the
// majority elects a new leader and fails over once.
func TestLeaderCutOffFromTheOthersDoesNothing(t *testing.T) {
	g := startGroup(t, 3)
	proxies := map[[2]int]*cutProxy{}
	cs := startCoordinatorsVia(t, 3, groupTOML("main", g), "", func(from, to int, addr string) string {
		p := newCutProxy(t, addr)
		proxies[[2]int{from, to}] = p
		return p.ln.Addr().String()
	})
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	var leader *coord
	waitUntil(t, 10*time.Second, "a leader", func() bool {
		id, _ := strconv.Atoi(leaderOf(cs[0]))
		if id < 1 {
			return false
		}
		leader = cs[id-1]
		return true
	})
	mark := len(leader.logs.String())
	for k, p := range proxies {
		if k[0] == leader.id || k[1] == leader.id {
			p.setCut(true)
		}
	}
	var others []*coord
	for _, c := range cs {
		if c != leader {
			others = append(others, c)
		}
	}
	waitUntil(t, 10*time.Second, "a new leader among the others", func() bool {
		l := leaderOf(others[0])
		return l != "" && l != strconv.Itoa(leader.id)
	})
	// The primary dies: only the majority may act, and only once.
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	var promoted string
	waitUntil(t, 15*time.Second, "the majority to fail over", func() bool {
		promoted = primaryOf(others[0], "")
		return promoted != "" && promoted != g[0].p.addr()
	})
	waitUntil(t, 5*time.Second, "the other coordinator to apply the failover", func() bool { return masterField(t, others[1], "config-epoch") == "2" })
	// The cut-off coordinator's record still names the old primary: it
	// recorded nothing, and told no data node anything.
	if p := primaryOf(leader, ""); p != g[0].p.addr() {
		t.Fatalf("the cut-off coordinator's record changed to %q", p)
	}
	for _, l := range strings.Split(leader.logs.String()[mark:], "\n") {
		if strings.Contains(l, "corrected a member") || strings.Contains(l, "failed over") || strings.Contains(l, "recorded primary") {
			t.Fatalf("the cut-off coordinator acted after the cut: %s", l)
		}
	}
	// Heal: the old leader follows the new record.
	for _, p := range proxies {
		p.setCut(false)
	}
	waitUntil(t, 15*time.Second, "the old leader to learn the new record", func() bool { return primaryOf(leader, "") == promoted })
	if e := masterField(t, leader, "config-epoch"); e != "2" {
		t.Fatalf("after the heal config-epoch is %q: the epoch must rise exactly once", e)
	}
}

// C-FO-14 / F10: with two of three coordinators down, a dead primary is
// not failed over.
func TestNoFailoverWithoutAMajority(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	cs[1].kill()
	cs[2].kill()
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	// Ten times down_after_ms: a failover would have happened long since.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if p := primaryOf(cs[0], ""); p != g[0].p.addr() {
			t.Fatalf("failed over to %q without a majority", p)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if roleOf(g[1].p.addr()) != "slave" {
		t.Fatal("the replica was promoted without a majority")
	}
}

// C-LEAD: a member that accepts connections but never answers holds up
// only its own group: another group's failover goes on.
func TestASilentMemberDoesNotDelayAnotherGroup(t *testing.T) {
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepted, never answered
		}
	}()
	a := startGroup(t, 2)
	b := startGroup(t, 2)
	groups := groupTOML("a", a) + fmt.Sprintf("[[groups]]\nname = \"stuck\"\nmembers = [{ address = %q, replication = %q }]\n", hung.Addr().String(), hung.Addr().String()) + groupTOML("b", b)
	cs := startCoordinatorsVia(t, 3, groups, "", nil)
	primaryB := func() string {
		cl := cs[0].client("")
		defer cl.Close()
		v, _ := cl.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "b").StringSlice()
		if len(v) != 2 {
			return ""
		}
		return net.JoinHostPort(v[0], v[1])
	}
	waitUntil(t, 15*time.Second, "group b's first primary", func() bool { return primaryB() == b[0].p.addr() })
	b[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-b[0].p.done
	killed := time.Now()
	waitUntil(t, 10*time.Second, "group b to fail over", func() bool { return primaryB() == b[1].p.addr() })
	t.Logf("group b failed over %v after the kill, next to a member that never answers", time.Since(killed))
}

// groupLine returns the group's line of a coordinator's INFO.
func groupLine(c *coord) string {
	cl := c.client("")
	defer cl.Close()
	txt, _ := cl.Info(context.Background()).Result()
	return infoLine(txt, "group_main")
}

func infoLine(txt, key string) string {
	for _, line := range strings.Split(txt, "\r\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return v
		}
	}
	return ""
}

// T-LIVE (C-COMMIT): committed sequences survive a restart of every
// coordinator while the primary and the replica holding the committed
// records are down, so only FORCE promotes the replica that lacks them.
func TestCommittedSequencesSurviveCoordinatorRestartsAndOnlyForcePromotes(t *testing.T) {
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	writeKeys(t, g[0].p, "plain:", 20)
	inSync(t, g[0].p, g[2].p, 1)
	// c goes down; durable writes land on b only.
	g[2].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[2].p.done
	cl := redis.NewClient(&redis.Options{Addr: g[0].p.addr(), PoolSize: 1})
	cn := cl.Conn()
	ctx := context.Background()
	if err := cn.Do(ctx, "CLIENT", "DURABILITY", "REPLICAS", 1).Err(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := cn.Set(ctx, fmt.Sprintf("durable:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	cn.Close()
	cl.Close()
	want := replInfo(t, g[0].p.addr())["replication_committed_sequence"]
	waitUntil(t, 10*time.Second, "the coordinators to record the committed sequence", func() bool {
		return strings.Contains(groupLine(cs[1]), "recorded="+want)
	})
	for _, m := range g[:2] {
		m.p.cmd.Process.Signal(syscall.SIGKILL)
		<-m.p.done
	}
	for _, c := range cs {
		c.kill()
	}
	for _, c := range cs {
		c.start(t)
	}
	g[2].restart(t) // answers, as a replica of the dead primary, without the durable writes
	waitUntil(t, 15*time.Second, "the coordinators to see the lacking replica", func() bool {
		return strings.Contains(groupLine(cs[0]), g[2].p.addr()+"(slave)")
	})
	// Many down_after_ms periods: no promotion of a replica lacking
	// committed records.
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p := primaryOf(cs[0], ""); p != "" && p != g[0].p.addr() {
			t.Fatalf("promoted %q, which lacks committed records", p)
		}
	}
	var out string
	waitUntil(t, 10*time.Second, "FORCE on the leader", func() bool {
		for _, c := range cs {
			cc := c.client("")
			v, err := cc.Do(ctx, "COORDINATOR", "FAILOVER", "main", "FORCE").Text()
			cc.Close()
			if err == nil {
				out = v
				return true
			}
			if !strings.Contains(err.Error(), "not the leader") && !strings.Contains(err.Error(), "majority") {
				t.Logf("FORCE on %d: %v", c.id, err)
			}
		}
		return false
	})
	if out != g[2].p.addr() {
		t.Fatalf("FORCE promoted %q, want %q", out, g[2].p.addr())
	}
	waitUntil(t, 10*time.Second, "the forced primary to take writes", func() bool { return roleOf(g[2].p.addr()) == "master" })
	logs := ""
	for _, c := range cs {
		logs += c.logs.String()
	}
	if !strings.Contains(logs, "lacks committed records") || !strings.Contains(logs, "shard 0: records") {
		t.Fatalf("FORCE did not log what was lost:\n%s", logs)
	}
}

// replicaAddrs lists the addresses SENTINEL REPLICAS gives for main.
func replicaAddrs(c *coord) []string {
	cl := c.client("")
	defer cl.Close()
	v, err := cl.Do(context.Background(), "SENTINEL", "REPLICAS", "main").Slice()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range v {
		m, ok := r.(map[any]any)
		if !ok {
			continue
		}
		out = append(out, net.JoinHostPort(fmt.Sprint(m["ip"]), fmt.Sprint(m["port"])))
	}
	return out
}

// C-DISC: a replica started later with REPLICAOF is discovered, listed by
// SENTINEL REPLICAS and watched; FORGET removes it for good; the primary
// and members of the file cannot be forgotten.
func TestDiscoveryAndForget(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	late := &member{dir: t.TempDir(), repl: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))}
	late.env = []string{"RUVIO_REPLICATION_LISTEN=" + late.repl}
	late.args = []string{"--durability", "always", "--port", strconv.Itoa(freePort(t, 1))}
	late.restart(t)
	host, port, _ := net.SplitHostPort(g[0].repl)
	do(t, late.p, "REPLICAOF", host, port)
	waitUntil(t, 15*time.Second, "the late replica to be discovered", func() bool {
		return slices.Contains(replicaAddrs(cs[2]), late.p.addr())
	})
	ctx := context.Background()
	forget := func(addr string) error {
		var err error
		for _, c := range cs {
			cl := c.client("")
			err = cl.Do(ctx, "COORDINATOR", "FORGET", "main", addr).Err()
			cl.Close()
			if err == nil || !strings.Contains(err.Error(), "not the leader") {
				return err
			}
		}
		return err
	}
	if err := forget(g[0].p.addr()); err == nil || !strings.Contains(err.Error(), "is the primary") {
		t.Fatalf("FORGET the primary: %v", err)
	}
	if err := forget(g[1].p.addr()); err == nil || !strings.Contains(err.Error(), "configuration file") {
		t.Fatalf("FORGET a member of the file: %v", err)
	}
	if err := forget(late.p.addr()); err != nil {
		t.Fatalf("FORGET the discovered replica: %v", err)
	}
	waitUntil(t, 5*time.Second, "the forgotten replica to leave SENTINEL REPLICAS", func() bool {
		return !slices.Contains(replicaAddrs(cs[2]), late.p.addr())
	})
	// It still replicates from the primary, which still lists it: it must
	// not come back.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if slices.Contains(replicaAddrs(cs[0]), late.p.addr()) {
			t.Fatal("a forgotten replica was discovered again")
		}
	}
}

// C-DISC: a discovered replica can be promoted.
func TestDiscoveredReplicaIsPromoted(t *testing.T) {
	g := startGroup(t, 1)
	cs := startCoordinators(t, 3, g, "")
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	late := &member{dir: t.TempDir(), repl: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))}
	late.env = []string{"RUVIO_REPLICATION_LISTEN=" + late.repl, "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + g[0].repl}
	late.args = []string{"--durability", "always", "--port", strconv.Itoa(freePort(t, 1))}
	late.restart(t)
	waitUntil(t, 15*time.Second, "the replica to be discovered", func() bool { return slices.Contains(replicaAddrs(cs[1]), late.p.addr()) })
	writeKeys(t, g[0].p, "k:", 10)
	inSync(t, g[0].p, late.p, 1)
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	waitUntil(t, 15*time.Second, "the discovered replica to be promoted", func() bool { return primaryOf(cs[2], "") == late.p.addr() })
}

// leaderDo sends a command to whichever coordinator leads.
func leaderDo(t *testing.T, cs []*coord, args ...any) (any, error) {
	var err error
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, c := range cs {
			cl := c.client("")
			var v any
			v, err = cl.Do(context.Background(), args...).Result()
			cl.Close()
			if err == nil {
				return v, nil
			}
			if !strings.Contains(err.Error(), "not the leader") && !strings.Contains(err.Error(), "majority") && !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "EOF") {
				return nil, err
			}
		}
	}
	return nil, err
}

// C-MEMB: a fourth coordinator started with join = true is added with
// COORDINATOR ADD (a non-voter until it caught up, then a voter), a
// failover works with four, it is removed with COORDINATOR REMOVE, and a
// failover works with three again.
func TestAddAndRemoveACoordinator(t *testing.T) {
	g := startGroup(t, 3)
	groups := groupTOML("main", g)
	cs := startCoordinatorsVia(t, 3, groups, "", nil)
	waitUntil(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })

	c4 := &coord{id: 4, addr: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))}
	var peers []string
	for _, c := range append(cs, c4) {
		peers = append(peers, fmt.Sprintf("%q", fmt.Sprintf("%d@%s", c.id, c.addr)))
	}
	dir := t.TempDir()
	c4.file = filepath.Join(dir, "coordinator.toml")
	os.WriteFile(c4.file, []byte(fmt.Sprintf("id = 4\nlisten = %q\ndata_dir = %q\njoin = true\npeers = [%s]\nping_interval_ms = 100\ndown_after_ms = 500\n%s",
		c4.addr, filepath.Join(dir, "data"), strings.Join(peers, ", "), groups)), 0o644)
	c4.start(t)
	if _, err := leaderDo(t, cs, "COORDINATOR", "ADD", 4, c4.addr); err != nil {
		t.Fatalf("COORDINATOR ADD: %v\n%s", err, c4.logs.String())
	}
	all := append(cs, c4)
	waitUntil(t, 10*time.Second, "four voters in INFO", func() bool {
		cl := cs[0].client("")
		defer cl.Close()
		txt, _ := cl.Info(context.Background()).Result()
		line := infoLine(txt, "coordinators")
		return strings.Count(line, "@") == 4 && !strings.Contains(line, "non-voter")
	})
	waitUntil(t, 10*time.Second, "the new coordinator to learn the record", func() bool { return primaryOf(c4, "") == g[0].p.addr() })

	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	var second string
	waitUntil(t, 15*time.Second, "a failover with four coordinators", func() bool {
		second = primaryOf(c4, "")
		return second != "" && second != g[0].p.addr()
	})

	if _, err := leaderDo(t, all, "COORDINATOR", "REMOVE", 4); err != nil {
		t.Fatalf("COORDINATOR REMOVE: %v", err)
	}
	c4.kill()
	waitUntil(t, 10*time.Second, "three coordinators in INFO", func() bool {
		cl := cs[1].client("")
		defer cl.Close()
		txt, _ := cl.Info(context.Background()).Result()
		return strings.Count(infoLine(txt, "coordinators"), "@") == 3
	})
	for _, m := range g[1:] {
		if m.p.addr() == second {
			m.p.cmd.Process.Signal(syscall.SIGKILL)
			<-m.p.done
		}
	}
	waitUntil(t, 15*time.Second, "a failover with three coordinators again", func() bool {
		p := primaryOf(cs[0], "")
		return p != "" && p != g[0].p.addr() && p != second
	})
}

// C-LEASE-2, T-LIVE (lease-on): with the primary lease, a primary cut off
// from the coordinators (it still reaches its replicas) stops taking
// writes before a replica is promoted: no write is acknowledged by the old
// primary after the promotion.
func TestPrimaryLeaseStopsTheOldPrimaryBeforePromotion(t *testing.T) {
	g := startGroup(t, 3)
	for _, m := range g {
		m.p.cmd.Process.Signal(syscall.SIGKILL)
		<-m.p.done
		m.env = append(m.env, "RUVIO_PRIMARY_LEASE=yes", "RUVIO_PRIMARY_LEASE_COORDINATORS=1,2,3")
		m.restart(t)
	}
	// The coordinators reach each member through a proxy that can be cut.
	proxies := map[string]*cutProxy{}
	var members []string
	for _, m := range g {
		p := newCutProxy(t, m.p.addr())
		proxies[m.p.addr()] = p
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", p.ln.Addr().String(), m.repl))
	}
	groups := fmt.Sprintf("[[groups]]\nname = \"main\"\nmembers = [%s]\n", strings.Join(members, ", "))
	cs := startCoordinatorsVia(t, 3, groups, "primary_lease_ms = 600\ndown_after_ms = 1000", nil)
	ctx := context.Background()
	cl := redis.NewClient(&redis.Options{Addr: g[0].p.addr(), MaxRetries: -1})
	defer cl.Close()
	if err := cl.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != "NOREPLICAS Primary lease expired: too few coordinators renewed it." {
		t.Fatalf("a write before any grant: %v", err)
	}
	waitUntil(t, 20*time.Second, "writes once the coordinators grant the lease", func() bool { return cl.Set(ctx, "k", "v", 0).Err() == nil })

	proxies[g[0].p.addr()].setCut(true) // the primary is cut from the coordinators only
	cut := time.Now()
	var lastAck, firstRefusal time.Time
	promoted := time.Time{}
	for time.Since(cut) < 10*time.Second && promoted.IsZero() {
		err := cl.Set(ctx, "k", time.Now().UnixNano(), 0).Err()
		now := time.Now()
		switch {
		case err == nil:
			lastAck = now
		case strings.HasPrefix(err.Error(), "NOREPLICAS Primary lease expired") && firstRefusal.IsZero():
			firstRefusal = now
		}
		for _, m := range g[1:] {
			if roleOf(m.p.addr()) == "master" {
				promoted = time.Now()
			}
		}
	}
	if promoted.IsZero() {
		dumpLogs(t, cs)
		t.Fatal("no replica was promoted")
	}
	if firstRefusal.IsZero() || !lastAck.Before(promoted) || !firstRefusal.Before(promoted) {
		t.Fatalf("the old primary acknowledged a write at %v, refused first at %v, promotion seen at %v (since the cut)",
			lastAck.Sub(cut), firstRefusal.Sub(cut), promoted.Sub(cut))
	}
	t.Logf("since the cut: last acknowledged write %v, first refusal %v, promotion seen %v", lastAck.Sub(cut), firstRefusal.Sub(cut), promoted.Sub(cut))
}
