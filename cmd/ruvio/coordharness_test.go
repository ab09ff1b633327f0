package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// A group of real data-node processes and real coordinator processes,
// and the fault proxies the coordinator tests put between them.

type member struct {
	p    *proc
	dir  string
	env  []string
	args []string
	repl string // replication base address
}

// restart starts the member again on its directory and ports, and fails
// the test with the node's log if it exits during start-up.
func (m *member) restart(t *testing.T) {
	t.Helper()
	m.p = startNodeIn(t, m.dir, m.env, m.args...)
	select {
	case <-m.p.done:
		t.Fatalf("member on port %d exited during start-up: %v; logs:\n%s", m.p.port, m.p.err, m.p.logs.String())
	default:
	}
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
	return infoLine(txt, "leader")
}

// groupLine returns the group's line of a coordinator's INFO.
func groupLine(c *coord) string {
	cl := c.client("")
	defer cl.Close()
	txt, _ := cl.Info(context.Background()).Result()
	return infoLine(txt, "group_main")
}

func infoLine(txt, key string) string { return infotext.Parse(txt)[key] }

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

// leaderDo sends a command to whichever coordinator leads, for up to 15 s
// while none does; another error is the answer.
func leaderDo(t *testing.T, cs []*coord, args ...any) (any, error) {
	var v any
	var err error
	poll.Until(t, 15*time.Second, "a leader to answer "+fmt.Sprint(args...), func() bool {
		for _, c := range cs {
			cl := c.client("")
			v, err = cl.Do(context.Background(), args...).Result()
			cl.Close()
			if err == nil {
				return true
			}
			if !strings.Contains(err.Error(), "not the leader") && !strings.Contains(err.Error(), "majority") && !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "EOF") {
				return true
			}
		}
		return false
	})
	return v, err
}
