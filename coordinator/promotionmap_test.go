package coordinator

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
)

// mapNode is an in-process data node of a cluster map, with its log.
type mapNode struct {
	s    *server.Server
	m    Member
	logs *lockedLog
}

// startMapNode starts a data node on addr (one shard) with the cluster
// map file and its group.
func startMapNode(t *testing.T, addr, repl, role, primary, file, group string) *mapNode {
	t.Helper()
	n := &mapNode{logs: &lockedLog{}, m: Member{Address: addr, Replication: repl}}
	// Registered before the node's own cleanup so that it runs after the
	// node has stopped, with the whole log.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node %s (group %s) log:\n%s", addr, group, n.logs.String())
		}
	})
	n.s = startDataNode(t, addr, repl, role, primary, slog.New(slog.NewTextHandler(n.logs, nil)), func(cfg *config.Config) {
		cfg.ClusterTopology, cfg.ClusterGroup = file, group
	})
	return n
}

// startTwoMapGroups starts group a (a1 primary, a2 replica: slots
// 0-8191) and group b (b1, b2: 8192-16383), one shard each, on a map
// file at version 1.
func startTwoMapGroups(t *testing.T) (a1, a2, b1, b2 *mapNode) {
	t.Helper()
	addrs := make([]string, 4)
	repls := make([]string, 4)
	for i := range addrs {
		addrs[i], repls[i] = freeAddr(t), freeAddr(t)
	}
	file := filepath.Join(t.TempDir(), "topology")
	text := fmt.Sprintf("version 1\ngroup a shards 1 members %s %s slots 0-8191\ngroup b shards 1 members %s %s slots 8192-16383\n",
		addrs[0], addrs[1], addrs[2], addrs[3])
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return startMapNode(t, addrs[0], repls[0], "primary", "", file, "a"),
		startMapNode(t, addrs[1], repls[1], "replica", repls[0], file, "a"),
		startMapNode(t, addrs[2], repls[2], "primary", "", file, "b"),
		startMapNode(t, addrs[3], repls[3], "replica", repls[2], file, "b")
}

func servedVersion(addr string) int64 {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 300 * time.Millisecond})
	defer c.Close()
	v, _ := c.Do(context.Background(), "RUVIO", "TOPOLOGY", "VERSION").Int64()
	return v
}

// Before it promotes a replica the leader gives it the newest cluster
// map, so that the new primary serves its group's slots as every other
// node expects from its first write on. The test holds back the leader's
// regular map pushes (the hold a committed slot move takes while its map
// goes out in order), fails over group a (map version 3 -> 4, which no
// node then receives), and then group b: b's replica, still on version
// 3, must have installed version 4 before it became primary, as its own
// log orders the two, and the leader must have sent it before detaching
// it.
func TestTheReplicaToPromoteGetsTheNewestMapFirst(t *testing.T) {
	a1, a2, b1, b2 := startTwoMapGroups(t)

	leaderLog := &lockedLog{}
	// Before the coordinator's own cleanup, so that it runs after the
	// coordinator has closed.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("coordinator log:\n%s", leaderLog.String())
		}
	})
	cfg := soloConfig(t)
	cfg.Groups = []Group{
		{Name: "a", Shards: 1, Slots: []string{"0-8191"}, Members: []Member{a1.m, a2.m}},
		{Name: "b", Shards: 1, Slots: []string{"8192-16383"}, Members: []Member{b1.m, b2.m}},
	}
	c := runCoordinator(t, cfg, slog.New(slog.NewTextHandler(leaderLog, nil)))
	all := []*mapNode{a1, a2, b1, b2}
	poll.Until(t, 20*time.Second, "every node on map version 3", func() bool {
		for _, n := range all {
			if servedVersion(n.m.Address) != 3 {
				return false
			}
		}
		return true
	})
	sc := redis.NewSentinelClient(&redis.Options{Addr: c.Addr()})
	defer sc.Close()
	primaryOf := func(group string) string {
		v, err := sc.GetMasterAddrByName(context.Background(), group).Result()
		if err != nil {
			return ""
		}
		return net.JoinHostPort(v[0], v[1])
	}

	c.moves.hold.Store(true)
	stop(a1.s)
	poll.Until(t, 20*time.Second, "group a failed over to a2", func() bool { return primaryOf("a") == a2.m.Address })
	m, ok := c.clusterMap()
	if !ok || m.Version != 4 {
		t.Fatalf("the leader's map after a's failover: %v %v", m, ok)
	}
	// Held back: nobody was sent version 4 by the regular pushes.
	poll.Stays(t, 300*time.Millisecond, "b2 on version 3", func() bool { return servedVersion(b2.m.Address) == 3 })

	stop(b1.s)
	poll.Until(t, 20*time.Second, "group b failed over to b2", func() bool { return primaryOf("b") == b2.m.Address })
	// The record names b2 before the leader's REPLICAOF NO ONE reaches it.
	poll.Until(t, 20*time.Second, "b2 a primary", func() bool {
		return strings.Contains(b2.logs.String(), `msg="MASTER MODE enabled"`)
	})
	log := b2.logs.String()
	installed := strings.Index(log, `msg="cluster map installed" version=4`)
	primary := strings.Index(log, `msg="MASTER MODE enabled"`)
	if installed < 0 || primary < 0 || installed > primary {
		t.Fatalf("b2 installed version 4 at %d of its log and became primary at %d: want the map first", installed, primary)
	}
	lead := leaderLog.String()
	sent := strings.Index(lead, fmt.Sprintf(`msg="sent the cluster map" member=%s version=4`, b2.m.Address))
	detached := strings.Index(lead, fmt.Sprintf(`msg="detached a replica from the old primary" group=b member=%s`, b2.m.Address))
	if sent < 0 || detached < 0 || sent > detached {
		t.Fatalf("the leader sent b2 version 4 at %d of its log and detached it at %d: want the map first", sent, detached)
	}
}

// In a switchover the old primary answers, and the leader gives it the
// map naming its successor before it makes it a replica: otherwise, until
// the next regular push, it would find itself its group's primary in its
// map and could only answer its clients TRYAGAIN. The regular pushes come
// every 2 s here (the ping interval), so one landing between the
// promotion and the REPLICAOF a few milliseconds later is unlikely: the
// send before the demotion brings a1 version 4 first.
func TestTheOldPrimaryOfASwitchoverGetsTheNewMapFirst(t *testing.T) {
	a1, a2, b1, b2 := startTwoMapGroups(t)
	cfg := soloConfig(t)
	cfg.PingIntervalMs, cfg.DownAfterMs = 2000, 10000
	cfg.Groups = []Group{
		{Name: "a", Shards: 1, Slots: []string{"0-8191"}, Members: []Member{a1.m, a2.m}},
		{Name: "b", Shards: 1, Slots: []string{"8192-16383"}, Members: []Member{b1.m, b2.m}},
	}
	leaderLog := &lockedLog{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("coordinator log:\n%s", leaderLog.String())
		}
	})
	c := runCoordinator(t, cfg, slog.New(slog.NewTextHandler(leaderLog, nil)))
	poll.Until(t, 20*time.Second, "every node on map version 3", func() bool {
		for _, n := range []*mapNode{a1, a2, b1, b2} {
			if servedVersion(n.m.Address) != 3 {
				return false
			}
		}
		return true
	})
	cl := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer cl.Close()
	if got, err := cl.Do(context.Background(), "COORDINATOR", "FAILOVER", "a").Text(); err != nil || got != a2.m.Address {
		t.Fatalf("COORDINATOR FAILOVER a = %q, %v", got, err)
	}
	poll.Until(t, 20*time.Second, "a1 a replica", func() bool {
		return strings.Contains(a1.logs.String(), `msg="REPLICAOF: following a primary"`)
	})
	log := a1.logs.String()
	installed := strings.Index(log, `msg="cluster map installed" version=4`)
	demoted := strings.Index(log, `msg="REPLICAOF: following a primary"`)
	if installed < 0 || installed > demoted {
		t.Fatalf("a1 installed version 4 at %d of its log and became a replica at %d: want the map first", installed, demoted)
	}
}
