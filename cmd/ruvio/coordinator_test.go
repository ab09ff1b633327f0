package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// Coordinator failover with real processes.

// The primary is killed, the coordinators promote a replica,
// repoint the other, publish it, and the old primary, restarted with its
// primary configuration, is made a replica of the new one.
func TestCoordinatorsFailOverAKilledPrimary(t *testing.T) {
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	writeKeys(t, g[0].p, "before:", 50)

	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	killed := time.Now()
	var promoted string
	poll.Until(t, 15*time.Second, "a failover", func() bool {
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
	poll.Until(t, 10*time.Second, "writes on the new primary", func() bool {
		return roleOf(promoted) == "master" && do(t, newPrimary.p, "SET", "after", "1") == "OK"
	})
	t.Logf("first write on the new primary %v after the kill", time.Since(killed))
	poll.Until(t, 5*time.Second, "every coordinator to apply the failover", func() bool { return masterField(t, cs[2], "config-epoch") == "2" })
	poll.Until(t, 10*time.Second, "the other replica to follow the new primary", func() bool {
		info := replInfo(t, other.p.addr())
		return info["master_link_status"] == "up" && net.JoinHostPort(info["master_host"], info["master_port"]) == newPrimary.repl
	})

	g[0].restart(t) // comes back as a primary, by its configuration
	poll.Until(t, 10*time.Second, "the old primary to be made a replica", func() bool {
		info := replInfo(t, g[0].p.addr())
		return info["role"] == "slave" && info["master_link_status"] == "up"
	})
	if v := do(t, g[0].p, "GET", "after"); v != "1" {
		t.Fatalf("the old primary did not catch up: %v", v)
	}
}

// Restarting every coordinator while the primary answers
// fails nothing over.
func TestRestartingEveryCoordinatorKeepsThePrimary(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	for _, c := range cs {
		c.kill()
	}
	for _, c := range cs {
		c.start(t)
	}
	poll.Until(t, 15*time.Second, "the restarted coordinators to answer", func() bool { return primaryOf(cs[0], "") != "" })
	// Several down_after_ms periods pass: a coordinator that counted
	// silence from before its start would fail over now.
	poll.Stays(t, 3*time.Second, "the primary recorded before the restart", func() bool {
		if p := primaryOf(cs[0], ""); p != "" && p != g[0].p.addr() {
			dumpLogs(t, cs)
			t.Logf("failed over to %s after a restart of the coordinators", p)
			return false
		}
		return true
	})
	if e := masterField(t, cs[0], "config-epoch"); e != "1" {
		t.Fatalf("config-epoch = %q after restarts, want 1", e)
	}
}

// With a secret, clients must AUTH with it, and a
// coordinator with another secret cannot take part in Raft.
func TestCoordinatorSecretGuardsClientsAndRaft(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, `secret = "s3cret"`)
	poll.Until(t, 15*time.Second, "a leader", func() bool { return primaryOf(cs[0], "s3cret") == g[0].p.addr() })
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
	poll.Until(t, 10*time.Second, "the others to refuse it", func() bool {
		return strings.Contains(cs[0].logs.String()+cs[1].logs.String(), "refused a Raft connection with a wrong or missing secret")
	})
}

// redis-py's Sentinel client (Debian's python3-redis) finds the
// primary through the coordinators, writes through it, and follows a
// failover. Skipped where python3-redis is missing, unless
// REQUIRE_REDIS_PY=1 (CI installs it).
func TestRedisPySentinelFollowsAFailover(t *testing.T) {
	python := redisPy(t)
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	var addrs []string
	for _, c := range cs {
		addrs = append(addrs, c.addr)
	}
	followWithRedisPy(t, python, addrs, nil, g[0].p.addr(), func() { g[0].p.cmd.Process.Signal(syscall.SIGKILL) })
}

// redisPy is the python3 that has redis-py, or skips the test (fails it
// under REQUIRE_REDIS_PY=1).
func redisPy(t *testing.T) string {
	t.Helper()
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
	return python
}

// followWithRedisPy runs testdata/sentinel_client.py against the
// coordinators at addrs (env adds its secret and TLS files), waits for a
// first write on primary, calls kill, and fails unless the client goes
// on writing on another primary.
func followWithRedisPy(t *testing.T, python string, addrs, env []string, primary string, kill func()) {
	t.Helper()
	out, errs := &lockedBuilder{}, &lockedBuilder{}
	py := exec.Command(python, "testdata/sentinel_client.py", strings.Join(addrs, ","), "6")
	py.Env = append(os.Environ(), env...)
	py.Stdout, py.Stderr = out, errs
	if err := py.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { py.Process.Kill(); py.Wait() })
	poll.Until(t, 5*time.Second, "the first write", func() bool { return strings.Contains(out.String(), primary) })
	kill()
	killed := time.Now().UnixMilli()
	if err := py.Wait(); err != nil {
		t.Fatalf("python: %v\n%s", err, errs)
	}
	var first int64
	last := ""
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		ms, _ := strconv.ParseInt(f[0], 10, 64)
		if ms > killed && f[2] != primary && first == 0 {
			first = ms
		}
		last = f[2]
	}
	if first == 0 || last == primary {
		t.Fatalf("redis-py never wrote to a new primary:\n%s\n%s", out.String(), errs)
	}
	t.Logf("redis-py: first write on the new primary %d ms after the kill", first-killed)
}

// A leader cut off from the other coordinators, still
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
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	var leader *coord
	poll.Until(t, 10*time.Second, "a leader", func() bool {
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
	poll.Until(t, 10*time.Second, "a new leader among the others", func() bool {
		l := leaderOf(others[0])
		return l != "" && l != strconv.Itoa(leader.id)
	})
	// The cut-off leader (stepped down by the library by now, or not)
	// refuses the leader's commands as a leader without a majority, never
	// with an empty id; a follower of the majority names its leader.
	newLeader := leaderOf(others[0])
	for _, args := range [][]any{{"COORDINATOR", "FAILOVER", "main", "FORCE"}, {"COORDINATOR", "ADD", 9, "127.0.0.1:1"}, {"COORDINATOR", "REMOVE", 9}, {"COORDINATOR", "CANCEL"}} {
		cl := leader.client("")
		err := cl.Do(context.Background(), args...).Err()
		cl.Close()
		if err == nil || err.Error() != "ERR this leader cannot reach a majority of coordinators; try again" {
			t.Fatalf("%v on the cut-off leader: %v", args, err)
		}
	}
	for _, c := range others {
		if c.id == atoi(newLeader) {
			continue
		}
		cl := c.client("")
		err := cl.Do(context.Background(), "COORDINATOR", "REMOVE", 9).Err()
		cl.Close()
		if err == nil || err.Error() != "ERR not the leader; send it to coordinator "+newLeader {
			t.Fatalf("a follower answered %v, want it to name coordinator %s", err, newLeader)
		}
	}
	// The primary dies: only the majority may act, and only once.
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	var promoted string
	poll.Until(t, 15*time.Second, "the majority to fail over", func() bool {
		promoted = primaryOf(others[0], "")
		return promoted != "" && promoted != g[0].p.addr()
	})
	poll.Until(t, 5*time.Second, "the other coordinator to apply the failover", func() bool { return masterField(t, others[1], "config-epoch") == "2" })
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
	// One warning, however often it was asked and whether the library
	// stepped it down first.
	if n := strings.Count(leader.logs.String()[mark:], "cannot reach a majority of coordinators: acting on nothing"); n != 1 {
		t.Fatalf("the cut-off leader logged %d warnings, want 1:\n%s", n, leader.logs.String()[mark:])
	}
	// Heal: the old leader follows the new record, and says so once.
	for _, p := range proxies {
		p.setCut(false)
	}
	poll.Until(t, 15*time.Second, "the old leader to learn the new record", func() bool { return primaryOf(leader, "") == promoted })
	poll.Until(t, 10*time.Second, "the old leader to log that it follows", func() bool {
		return strings.Contains(leader.logs.String()[mark:], "following the leader the majority of coordinators elected") ||
			strings.Contains(leader.logs.String()[mark:], "reaches a majority of coordinators again")
	})
	if e := masterField(t, leader, "config-epoch"); e != "2" {
		t.Fatalf("after the heal config-epoch is %q: the epoch must rise exactly once", e)
	}
}

// With two of three coordinators down, a dead primary is
// not failed over.
func TestNoFailoverWithoutAMajority(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	cs[1].kill()
	cs[2].kill()
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	// Ten times down_after_ms: a failover would have happened long since.
	poll.Stays(t, 5*time.Second, "no failover without a majority", func() bool {
		if p := primaryOf(cs[0], ""); p != g[0].p.addr() {
			t.Logf("failed over to %q without a majority", p)
			return false
		}
		return true
	})
	if roleOf(g[1].p.addr()) != "slave" {
		t.Fatal("the replica was promoted without a majority")
	}
}

// A member that accepts connections but never answers holds up
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
	poll.Until(t, 15*time.Second, "group b's first primary", func() bool { return primaryB() == b[0].p.addr() })
	b[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-b[0].p.done
	killed := time.Now()
	poll.Until(t, 10*time.Second, "group b to fail over", func() bool { return primaryB() == b[1].p.addr() })
	t.Logf("group b failed over %v after the kill, next to a member that never answers", time.Since(killed))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
