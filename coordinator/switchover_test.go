package coordinator

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// threeCoordinators runs three coordinators over one group and waits until
// each records primary.
func threeCoordinators(t *testing.T, primary string, members ...Member) []*Coordinator {
	addrs := []string{freeAddr(t), freeAddr(t), freeAddr(t)}
	var peers []string
	for i, a := range addrs {
		peers = append(peers, strconv.Itoa(i+1)+"@"+a)
	}
	var cs []*Coordinator
	for i, a := range addrs {
		cs = append(cs, startCoordinator(t, []Group{{Name: "main", Members: members}}, func(c *Config) {
			c.ID, c.Listen, c.Peers = i+1, a, peers
			roomyPause(c)
		}))
	}
	poll.Until(t, 30*time.Second, "every coordinator recording the primary", func() bool {
		for _, c := range cs {
			if recordedPrimary(c, "main") != primary {
				return false
			}
		}
		return true
	})
	return cs
}

func infoReplication(t *testing.T, addr string) map[string]string {
	cl := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer cl.Close()
	txt, err := cl.Info(context.Background(), "replication").Result()
	if err != nil {
		t.Fatalf("INFO of %s: %v", addr, err)
	}
	return infotext.Parse(txt)
}

// SENTINEL FAILOVER, sent to a coordinator that is not the leader, moves
// the primary to a replica while writers keep writing through a go-redis
// FailoverClient: every write the old primary acknowledged, replicated or
// not yet, is on the new primary; the old primary follows it, continuing
// from its own log; Sentinel clients get +switch-master. Then the errors:
// an unknown name, and no replica to promote.
func TestSentinelFailoverSwitchesOverWithoutLosingWrites(t *testing.T) {
	ctx := context.Background()
	_, pm := dataNode(t, "primary", "")
	_, rm := dataNode(t, "replica", pm.Replication)
	_, rm2 := dataNode(t, "replica", pm.Replication)
	cs := threeCoordinators(t, pm.Address, pm, rm, rm2)
	var follower, leader *Coordinator
	for _, c := range cs {
		if !c.isLeader() {
			follower = c
		} else {
			leader = c
		}
	}
	sc := redis.NewSentinelClient(&redis.Options{Addr: follower.Addr()})
	defer sc.Close()
	sub := sc.Subscribe(ctx, "+switch-master")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	// The leader's events for the members it corrects after the
	// promotion: the promoted replica, and the other one pointed at it.
	lc := redis.NewSentinelClient(&redis.Options{Addr: leader.Addr()})
	defer lc.Close()
	steps := lc.Subscribe(ctx, "+promoted-slave", "+slave-reconf-sent")
	defer steps.Close()
	for range 2 {
		if _, err := steps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}

	var sentinels []string
	for _, c := range cs {
		sentinels = append(sentinels, c.Addr())
	}
	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "main", SentinelAddrs: sentinels, MaxRetries: 50,
		MinRetryBackoff: 10 * time.Millisecond, MaxRetryBackoff: 50 * time.Millisecond})
	defer fc.Close()
	var acked sync.Map
	var n atomic.Int64
	stopWriting := make(chan struct{})
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := 0; ; i++ {
				select {
				case <-stopWriting:
					return
				default:
				}
				k := fmt.Sprintf("w%d:%d", w, i)
				if fc.Set(ctx, k, i, 0).Err() == nil {
					acked.Store(k, true)
					n.Add(1)
				}
			}
		}()
	}
	poll.Until(t, 10*time.Second, "writes before the switchover", func() bool { return n.Load() >= 200 })

	if err := sc.Failover(ctx, "main").Err(); err != nil {
		t.Fatalf("SENTINEL FAILOVER: %v", err)
	}
	var newPrimary string
	for _, c := range cs {
		if p := recordedPrimary(c, "main"); p != pm.Address && c.isLeader() {
			newPrimary = p
		}
	}
	if newPrimary != rm.Address && newPrimary != rm2.Address {
		t.Fatalf("the leader records %q as primary, not a replica", newPrimary)
	}
	ctxEvent, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg, err := sub.ReceiveMessage(ctxEvent)
	ph, pp, _ := net.SplitHostPort(pm.Address)
	nh, np, _ := net.SplitHostPort(newPrimary)
	if err != nil || msg.Payload != fmt.Sprintf("main %s %s %s %s", ph, pp, nh, np) {
		t.Fatalf("+switch-master: %v %v", msg, err)
	}
	other := rm2.Address
	if newPrimary == rm2.Address {
		other = rm.Address
	}
	oh, op, _ := net.SplitHostPort(other)
	for _, want := range []string{
		fmt.Sprintf("+promoted-slave slave %s %s %s @ main %s %s", newPrimary, nh, np, ph, pp),
		fmt.Sprintf("+slave-reconf-sent slave %s %s %s @ main %s %s", other, oh, op, ph, pp),
	} {
		msg, err := steps.ReceiveMessage(ctxEvent)
		if err != nil || msg.Channel+" "+msg.Payload != want {
			t.Fatalf("event %v (%v), want %q", msg, err, want)
		}
	}
	after := n.Load()
	poll.Until(t, 10*time.Second, "writes after the switchover", func() bool { return n.Load() >= after+200 })
	close(stopWriting)
	writers.Wait()

	direct := redis.NewClient(&redis.Options{Addr: newPrimary})
	defer direct.Close()
	lost := 0
	acked.Range(func(k, _ any) bool {
		if direct.Exists(ctx, k.(string)).Val() != 1 {
			lost++
		}
		return true
	})
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged writes are not on the new primary", lost, n.Load())
	}
	poll.Until(t, 10*time.Second, "the old primary following the new one", func() bool {
		f := infoReplication(t, pm.Address)
		return f["role"] == "slave" && f["master_link_status"] == "up"
	})
	if f := infoReplication(t, pm.Address); f["full_copies"] != "0" {
		t.Fatalf("the old primary took a full copy: %v", f)
	}

}

// A switchover is refused, in Sentinel's words, for an unknown name and
// when no replica can take over; COORDINATOR FAILOVER group answers the
// same.
func TestSentinelFailoverRefusals(t *testing.T) {
	ctx := context.Background()
	_, pm := dataNode(t, "primary", "")
	c := oneCoordinator(t, pm)
	poll.Until(t, 15*time.Second, "the first record", func() bool { return recordedPrimary(c, "main") == pm.Address })
	cl := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer cl.Close()
	if err := cl.Do(ctx, "SENTINEL", "FAILOVER", "nope").Err(); err == nil || err.Error() != "ERR No such master with that name" {
		t.Fatalf("FAILOVER of an unknown name: %v", err)
	}
	for _, cmd := range [][]any{{"SENTINEL", "FAILOVER", "main"}, {"COORDINATOR", "FAILOVER", "main"}} {
		if err := cl.Do(ctx, cmd...).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOGOODSLAVE No suitable replica to promote") {
			t.Fatalf("%v without a replica: %v", cmd, err)
		}
	}
	if err := cl.Do(ctx, "SENTINEL", "FAILOVER").Err(); err == nil || !strings.Contains(err.Error(), "wrong number of arguments") {
		t.Fatalf("FAILOVER without a name: %v", err)
	}
	if recordedPrimary(c, "main") != pm.Address {
		t.Fatal("a refused switchover changed the record")
	}
}

// With the primary lease on, a switchover hands over as well: the old
// primary, paused and then a replica, takes no write under its lease,
// and the promoted replica takes writes once the coordinators' grants
// reach it.
func TestSentinelFailoverWithThePrimaryLease(t *testing.T) {
	ctx := context.Background()
	lease := func(c *config.Config) { c.PrimaryLease, c.PrimaryLeaseCoordinators = true, []int{1} }
	paddr, prepl := freeAddr(t), freeAddr(t)
	startDataNode(t, paddr, prepl, "primary", "", quiet(), lease)
	raddr, rrepl := freeAddr(t), freeAddr(t)
	startDataNode(t, raddr, rrepl, "replica", prepl, quiet(), lease)
	pm, rm := Member{Address: paddr, Replication: prepl}, Member{Address: raddr, Replication: rrepl}
	c := startCoordinator(t, []Group{{Name: "main", Members: []Member{pm, rm}}}, func(c *Config) {
		c.DownAfterMs, c.PrimaryLeaseMs = 2000, 600
	})
	primary := redis.NewClient(&redis.Options{Addr: paddr, MaxRetries: -1})
	defer primary.Close()
	poll.Until(t, 20*time.Second, "the primary's first lease", func() bool { return primary.Set(ctx, "k", "before", 0).Err() == nil })
	sc := redis.NewSentinelClient(&redis.Options{Addr: c.Addr()})
	defer sc.Close()
	if err := sc.Failover(ctx, "main").Err(); err != nil {
		t.Fatalf("SENTINEL FAILOVER: %v", err)
	}
	if p := recordedPrimary(c, "main"); p != raddr {
		t.Fatalf("recorded primary %s, want the replica %s", p, raddr)
	}
	promoted := redis.NewClient(&redis.Options{Addr: raddr, MaxRetries: -1})
	defer promoted.Close()
	poll.Until(t, 20*time.Second, "a write on the promoted replica under its lease", func() bool {
		return promoted.Set(ctx, "k", "after", 0).Err() == nil
	})
	if v := promoted.Get(ctx, "k").Val(); v != "after" {
		t.Fatalf("k = %q", v)
	}
	old := redis.NewClient(&redis.Options{Addr: paddr, MaxRetries: -1})
	defer old.Close()
	if err := old.Set(ctx, "k", "stale", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Fatalf("a write on the old primary: %v", err)
	}
}

// A primary that restarts without records its replica holds stops taking
// writes when the replica shows them; the coordinators then promote the
// replica, so the records are kept, and the old primary gets them back as
// its replica. Under snapshot it lost those after its last snapshot;
// under memory all of them, and it knows which stretches of history it
// held from the IDs it noted.
func TestAPrimaryThatRestartedWithoutRecordsIsReplaced(t *testing.T) {
	for _, durability := range []string{config.DurabilitySnapshot, config.DurabilityMemory} {
		t.Run(durability, func(t *testing.T) { restartWithoutRecords(t, durability) })
	}
}

func restartWithoutRecords(t *testing.T, durability string) {
	ctx := context.Background()
	dir := t.TempDir()
	profile := func(c *config.Config) { c.Durability, c.DataDir = durability, dir }
	paddr, prepl := freeAddr(t), freeAddr(t)
	ps := startDataNode(t, paddr, prepl, "primary", "", quiet(), profile)
	_, rm := dataNode(t, "replica", prepl)
	pm := Member{Address: paddr, Replication: prepl}
	c := startCoordinator(t, []Group{{Name: "main", Members: []Member{pm, rm}}}, func(c *Config) { c.DownAfterMs = 5000 })
	poll.Until(t, 15*time.Second, "the first record", func() bool { return recordedPrimary(c, "main") == paddr })
	pc := redis.NewClient(&redis.Options{Addr: paddr, MaxRetries: -1})
	defer pc.Close()
	if durability == config.DurabilitySnapshot {
		for i := range 50 {
			pc.Set(ctx, "saved:"+strconv.Itoa(i), i, 0)
		}
		if err := pc.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		pc.Set(ctx, "lost:"+strconv.Itoa(i), i, 0)
	}
	poll.Until(t, 10*time.Second, "the replica holding every record", func() bool {
		return infoReplication(t, rm.Address)["wal_last_sequence"] == infoReplication(t, paddr)["wal_last_sequence"]
	})
	pc.Do(ctx, "SHUTDOWN", "NOSAVE")
	stop(ps)
	startDataNode(t, paddr, prepl, "primary", "", quiet(), profile)
	poll.Until(t, 20*time.Second, "the replica recorded as primary", func() bool { return recordedPrimary(c, "main") == rm.Address })
	promoted := redis.NewClient(&redis.Options{Addr: rm.Address})
	defer promoted.Close()
	if n := promoted.Exists(ctx, "lost:49").Val(); n != 1 {
		t.Fatal("the promoted replica lost the records its primary lost")
	}
	old := redis.NewClient(&redis.Options{Addr: paddr})
	defer old.Close()
	poll.Until(t, 20*time.Second, "the old primary holding the records again", func() bool { return old.Exists(ctx, "lost:49").Val() == 1 })
}

// roomyPause gives a switchover a pause of 6 s, 3 s of it to catch up:
// room for pings under the race detector on a loaded machine.
func roomyPause(c *Config) { c.DownAfterMs = 3000 }

// switchoverGroup starts a primary and n replicas of it under one
// coordinator (roomyPause), and waits for the first record.
func switchoverGroup(t *testing.T, n int) (Member, []Member, *Coordinator) {
	_, pm := dataNode(t, "primary", "")
	members, replicas := []Member{pm}, []Member{}
	for range n {
		_, rm := dataNode(t, "replica", pm.Replication)
		members, replicas = append(members, rm), append(replicas, rm)
	}
	c := startCoordinator(t, []Group{{Name: "main", Members: members}}, roomyPause)
	poll.Until(t, 15*time.Second, "the first record", func() bool { return recordedPrimary(c, "main") == pm.Address })
	return pm, replicas, c
}

// replicasCaughtUp waits until each replica holds the primary's last record.
func replicasCaughtUp(t *testing.T, primary Member, replicas ...Member) {
	last := infoReplication(t, primary.Address)["wal_last_sequence"]
	poll.Until(t, 30*time.Second, "the replicas to catch up", func() bool {
		for _, r := range replicas {
			if infoReplication(t, r.Address)["wal_last_sequence"] != last {
				return false
			}
		}
		return true
	})
}
