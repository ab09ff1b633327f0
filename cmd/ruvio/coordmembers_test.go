package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// Committed sequences, FORCE, discovery, FORGET and coordinator
// membership with real processes.

// Committed sequences survive a restart of every
// coordinator while the primary and the replica holding the committed
// records are down, so only FORCE promotes the replica that lacks them.
func TestCommittedSequencesSurviveCoordinatorRestartsAndOnlyForcePromotes(t *testing.T) {
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
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
	poll.Until(t, 10*time.Second, "the coordinators to record the committed sequence", func() bool {
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
	poll.Until(t, 15*time.Second, "the coordinators to see the lacking replica", func() bool {
		return strings.Contains(groupLine(cs[0]), g[2].p.addr()+"(slave)")
	})
	// Many down_after_ms periods: no promotion of a replica lacking
	// committed records.
	poll.Stays(t, 3*time.Second, "no promotion of the replica lacking committed records", func() bool {
		if p := primaryOf(cs[0], ""); p != "" && p != g[0].p.addr() {
			t.Logf("promoted %q, which lacks committed records", p)
			return false
		}
		return true
	})
	var out string
	poll.Until(t, 10*time.Second, "FORCE on the leader", func() bool {
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
	poll.Until(t, 10*time.Second, "the forced primary to take writes", func() bool { return roleOf(g[2].p.addr()) == "master" })
	logs := ""
	for _, c := range cs {
		logs += c.logs.String()
	}
	if !strings.Contains(logs, "lacks committed records") || !strings.Contains(logs, "shard 0: records") {
		t.Fatalf("FORCE did not log what was lost:\n%s", logs)
	}
}

// A replica started later with REPLICAOF is discovered, listed by
// SENTINEL REPLICAS and watched; FORGET removes it for good; the primary
// and members of the file cannot be forgotten.
func TestDiscoveryAndForget(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	late := &member{dir: t.TempDir(), repl: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))}
	late.env = []string{"RUVIO_REPLICATION_LISTEN=" + late.repl}
	late.args = []string{"--durability", "always", "--port", strconv.Itoa(freePort(t, 1))}
	late.restart(t)
	host, port, _ := net.SplitHostPort(g[0].repl)
	do(t, late.p, "REPLICAOF", host, port)
	poll.Until(t, 15*time.Second, "the late replica to be discovered", func() bool {
		return slices.Contains(replicaAddrs(cs[2]), late.p.addr())
	})
	ctx := context.Background()
	var leader *coord
	forget := func(addr string) error {
		var err error
		for _, c := range cs {
			cl := c.client("")
			err = cl.Do(ctx, "COORDINATOR", "FORGET", "main", addr).Err()
			cl.Close()
			if err == nil || !strings.Contains(err.Error(), "not the leader") {
				leader = c
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
	// Every coordinator applies the log up to the FORGET (a follower may
	// still be applying the discovery before it).
	applied := func(c *coord) uint64 {
		cl := c.client("")
		defer cl.Close()
		txt, _ := cl.Do(ctx, "COORDINATOR", "STATUS").Text()
		n, _ := strconv.ParseUint(infoLine(txt, "applied_index"), 10, 64)
		return n
	}
	upTo := applied(leader)
	for _, c := range cs {
		poll.Until(t, 5*time.Second, "every coordinator to apply the FORGET", func() bool { return applied(c) >= upTo })
		if slices.Contains(replicaAddrs(c), late.p.addr()) {
			t.Fatalf("coordinator %d still lists the forgotten replica", c.id)
		}
	}
	// It still replicates from the primary, which still lists it: it must
	// not come back.
	poll.Stays(t, 2*time.Second, "the forgotten replica staying forgotten", func() bool {
		if slices.Contains(replicaAddrs(cs[0]), late.p.addr()) {
			dumpLogs(t, cs)
			return false
		}
		return true
	})
}

// A discovered replica can be promoted.
func TestDiscoveredReplicaIsPromoted(t *testing.T) {
	g := startGroup(t, 1)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	late := &member{dir: t.TempDir(), repl: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))}
	late.env = []string{"RUVIO_REPLICATION_LISTEN=" + late.repl, "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + g[0].repl}
	late.args = []string{"--durability", "always", "--port", strconv.Itoa(freePort(t, 1))}
	late.restart(t)
	poll.Until(t, 15*time.Second, "the replica to be discovered", func() bool { return slices.Contains(replicaAddrs(cs[1]), late.p.addr()) })
	writeKeys(t, g[0].p, "k:", 10)
	inSync(t, g[0].p, late.p, 1)
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	poll.Until(t, 15*time.Second, "the discovered replica to be promoted", func() bool { return primaryOf(cs[2], "") == late.p.addr() })
}

// A fourth coordinator started with join = true is added with
// COORDINATOR ADD (a non-voter until it caught up, then a voter), a
// failover works with four, it is removed with COORDINATOR REMOVE, and a
// failover works with three again.
func TestAddAndRemoveACoordinator(t *testing.T) {
	g := startGroup(t, 3)
	groups := groupTOML("main", g)
	cs := startCoordinatorsVia(t, 3, groups, "", nil)
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })

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
	poll.Until(t, 10*time.Second, "four voters in INFO", func() bool {
		cl := cs[0].client("")
		defer cl.Close()
		txt, _ := cl.Info(context.Background()).Result()
		line := infoLine(txt, "coordinators")
		return strings.Count(line, "@") == 4 && !strings.Contains(line, "non-voter")
	})
	poll.Until(t, 10*time.Second, "the new coordinator to learn the record", func() bool { return primaryOf(c4, "") == g[0].p.addr() })

	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	var second string
	poll.Until(t, 15*time.Second, "a failover with four coordinators", func() bool {
		second = primaryOf(c4, "")
		return second != "" && second != g[0].p.addr()
	})

	if _, err := leaderDo(t, all, "COORDINATOR", "REMOVE", 4); err != nil {
		t.Fatalf("COORDINATOR REMOVE: %v", err)
	}
	c4.kill()
	poll.Until(t, 10*time.Second, "three coordinators in INFO", func() bool {
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
	poll.Until(t, 15*time.Second, "a failover with three coordinators again", func() bool {
		p := primaryOf(cs[0], "")
		return p != "" && p != g[0].p.addr() && p != second
	})
}

// COORDINATOR ADD asks the target first: a coordinator not running with
// join = true (here one that bootstrapped a membership of its own) is
// refused at once, and the recorded coordinators stay three.
func TestAddRefusesACoordinatorWithoutJoin(t *testing.T) {
	g := startGroup(t, 2)
	groups := groupTOML("main", g)
	cs := startCoordinatorsVia(t, 3, groups, "", nil)
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	c4 := &coord{id: 4, addr: "127.0.0.1:" + strconv.Itoa(freePort(t, 1))}
	dir := t.TempDir()
	c4.file = filepath.Join(dir, "coordinator.toml")
	os.WriteFile(c4.file, []byte(fmt.Sprintf("id = 4\nlisten = %q\ndata_dir = %q\npeers = [%q]\nping_interval_ms = 100\ndown_after_ms = 500\n%s",
		c4.addr, filepath.Join(dir, "data"), "4@"+c4.addr, groups)), 0o644)
	c4.start(t)
	poll.Until(t, 10*time.Second, "the fourth coordinator to answer", func() bool { return leaderOf(c4) != "" })
	var leader *coord
	poll.Until(t, 10*time.Second, "a leader", func() bool {
		id, _ := strconv.Atoi(leaderOf(cs[0]))
		if id < 1 || id > 3 {
			return false
		}
		leader = cs[id-1]
		return true
	})
	lc := leader.client("")
	defer lc.Close()
	err := lc.Do(context.Background(), "COORDINATOR", "ADD", 4, c4.addr).Err()
	if err == nil || !strings.Contains(err.Error(), "coordinator 4 at "+c4.addr+" is not running with join = true: refused") {
		t.Fatalf("COORDINATOR ADD of a coordinator without join = true: %v", err)
	}
	cl := cs[0].client("")
	defer cl.Close()
	txt, _ := cl.Info(context.Background()).Result()
	if n := strings.Count(infoLine(txt, "coordinators"), "@"); n != 3 {
		t.Fatalf("recorded coordinators: %s", infoLine(txt, "coordinators"))
	}
}
