package coordinator

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/lease"
)

// respNode is a fake data node speaking RESP: answer decides each
// command's raw reply ("" never answers), and every command is kept.
type respNode struct {
	ln     net.Listener
	answer func(args []string) string
	mu     sync.Mutex
	got    []string
}

func newRespNode(t *testing.T, addr string, answer func(args []string) string) *respNode {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	n := &respNode{ln: ln, answer: answer}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go n.serve(nc)
		}
	}()
	return n
}

func (n *respNode) serve(nc net.Conn) {
	defer nc.Close()
	r := bufio.NewReader(nc)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		count, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
		args := make([]string, 0, count)
		for range count {
			if _, err := r.ReadString('\n'); err != nil { // $len
				return
			}
			arg, err := r.ReadString('\n')
			if err != nil {
				return
			}
			args = append(args, strings.TrimRight(arg, "\r\n"))
		}
		if len(args) > 0 && strings.EqualFold(args[0], "HELLO") {
			nc.Write([]byte("-ERR unknown command 'HELLO'\r\n"))
			continue
		}
		n.mu.Lock()
		n.got = append(n.got, strings.ToUpper(strings.Join(args, " ")))
		answer := n.answer
		n.mu.Unlock()
		if reply := answer(args); reply != "" {
			nc.Write([]byte(reply))
		}
	}
}

func (n *respNode) commands() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

func (n *respNode) addr() string { return n.ln.Addr().String() }

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// leaseNode answers BEGIN with token 7 and GRANT with OK.
func leaseNode(args []string) string {
	if len(args) >= 3 && strings.EqualFold(args[2], "BEGIN") {
		return ":7\r\n"
	}
	return "+OK\r\n"
}

// testRaft is an in-memory Raft whose configuration records voters (ids),
// for what reads the record of who the coordinators are.
func testRaft(t *testing.T, voters ...int) *raft.Raft {
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(strconv.Itoa(voters[0]))
	conf.Logger = nil
	conf.LogOutput = discard{}
	store := raft.NewInmemStore()
	snaps := raft.NewInmemSnapshotStore()
	_, trans := raft.NewInmemTransport(raft.ServerAddress("127.0.0.1:1"))
	var servers []raft.Server
	for _, id := range voters {
		servers = append(servers, raft.Server{ID: raft.ServerID(strconv.Itoa(id)), Address: raft.ServerAddress(fmt.Sprintf("127.0.0.1:%d", id))})
	}
	if err := raft.BootstrapCluster(conf, store, store, snaps, trans, raft.Configuration{Servers: servers}); err != nil {
		t.Fatal(err)
	}
	r, err := raft.NewRaft(conf, &raft.MockFSM{}, store, store, snaps, trans)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Shutdown().Error() })
	return r
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// leaseCoordinator is a coordinator with the lease on (2000 ms, 10 %:
// 2645 ms stretched), three recorded voters, and clocks tests move.
func leaseCoordinator(t *testing.T) (*Coordinator, *twoClocks) {
	clocks := &twoClocks{}
	clocks.mono.Store(int64(10 * time.Hour))
	old := clock.Default
	clock.Default = clocks
	t.Cleanup(func() { clock.Default = old })
	cfg := DefaultConfig()
	cfg.ID, cfg.PrimaryLeaseMs = 1, 2000
	c := &Coordinator{cfg: cfg, log: quiet(), leases: newLeaseBook(), raft: testRaft(t, 1, 2, 3)}
	return c, clocks
}

// A coordinator that answered that its grant ended grants nothing more
// until the leader confirms the member: a renewal already between BEGIN
// and GRANT when it answered sends no GRANT, and none follows until a
// confirmation.
func TestAnEndedAnswerIsAPromiseToGrantNothingUntilConfirmed(t *testing.T) {
	c, clocks := leaseCoordinator(t)
	node := newRespNode(t, "127.0.0.1:0", leaseNode)
	cl := redis.NewClient(&redis.Options{Addr: node.addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { cl.Close() })
	rec := rules.Record{Primary: "a:1", GroupEpoch: 3}
	k := [2]string{"main", "a:1"}
	c.leases.confirmed[k] = true
	c.grantOnce(cl, "main", rec)
	if got := strings.Join(node.commands(), "|"); got != "RUVIO LEASE BEGIN|RUVIO LEASE GRANT 7 1 3 3 2000" {
		t.Fatalf("a confirmed renewal: %q", got)
	}
	if c.leaseEnded("main", "a:1") {
		t.Fatal("a grant just made has not ended")
	}
	clocks.mono.Add(int64(lease.Stretched(2*time.Second, 10)))
	if !c.leaseEnded("main", "a:1") {
		t.Fatal("the stretched lease passed")
	}
	before := len(node.commands())
	c.grantOnce(cl, "main", rec)
	if got := node.commands()[before:]; len(got) != 1 || got[0] != "RUVIO LEASE BEGIN" {
		t.Fatalf("after answering ended, a renewal sent %q", got)
	}
	if c.leases.granted[k] != 10*time.Hour {
		t.Fatal("a renewal that kept the promise was counted as a grant")
	}
	// The leader confirmed the member again: renewals resume.
	c.leases.confirmed[k] = true
	c.grantOnce(cl, "main", rec)
	if got := node.commands(); got[len(got)-1] != "RUVIO LEASE GRANT 7 1 3 3 2000" {
		t.Fatalf("after the confirmation: %q", got)
	}
}

// A coordinator that just started counts every lease as granted at its
// start: it does not answer ended before the stretched lease has passed
// since then, though it never granted anything.
func TestLeasesCountAsGrantedAtTheCoordinatorsStart(t *testing.T) {
	c, clocks := leaseCoordinator(t)
	stretched := lease.Stretched(2*time.Second, 10)
	clocks.mono.Add(int64(stretched - time.Millisecond))
	if c.leaseEnded("main", "a:1") {
		t.Fatal("ended before the stretched lease passed since the start: a grant made before a restart may still run")
	}
	clocks.mono.Add(int64(time.Millisecond))
	if !c.leaseEnded("main", "a:1") {
		t.Fatal("the stretched lease passed since the start")
	}
}

// Each of BEGIN and GRANT waits at most 1 s for its answer: a primary that
// accepts the connection and never answers holds a renewal for that long
// only, and a BEGIN never answered counts as no grant.
func TestAGrantWaitsAtMostOneSecondForTheNode(t *testing.T) {
	c, _ := leaseCoordinator(t)
	node := newRespNode(t, "127.0.0.1:0", func([]string) string { return "" })
	// No timeouts of its own: only the grant's wait bounds it.
	cl := redis.NewClient(&redis.Options{Addr: node.addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1, ReadTimeout: -1, WriteTimeout: -1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { cl.Close() })
	k := [2]string{"main", "a:1"}
	c.leases.confirmed[k] = true
	done := make(chan struct{})
	go func() {
		c.grantOnce(cl, "main", rules.Record{Primary: "a:1", GroupEpoch: 3})
		close(done)
	}()
	poll.Until(t, 10*time.Second, "a renewal to a silent primary gives up", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	if _, ok := c.leases.granted[k]; ok {
		t.Fatal("a BEGIN never answered was counted as a grant")
	}
	// GRANT never answered: counted as granted (it may have been taken).
	node.mu.Lock()
	node.answer = func(args []string) string {
		if len(args) > 2 && strings.EqualFold(args[2], "BEGIN") {
			return ":7\r\n"
		}
		return ""
	}
	node.mu.Unlock()
	c.grantOnce(cl, "main", rules.Record{Primary: "a:1", GroupEpoch: 3})
	if _, ok := c.leases.granted[k]; !ok {
		t.Fatal("a GRANT whose answer was lost was not counted as granted")
	}
}

// Majorities count the recorded coordinators, not the peers list: a
// record of 5 voters with peers naming 3, and a record of 3 with peers
// naming 5.
func TestVotersAreTheRecordedCoordinatorsNotThePeers(t *testing.T) {
	five := &Coordinator{cfg: DefaultConfig(), raft: testRaft(t, 1, 2, 3, 4, 5),
		peers: []Peer{{ID: 1, Addr: "127.0.0.1:1"}, {ID: 2, Addr: "127.0.0.1:2"}, {ID: 3, Addr: "127.0.0.1:3"}}}
	if got := five.voterIDs(); fmt.Sprint(got) != "[1 2 3 4 5]" || five.voters() != 5 {
		t.Fatalf("5 recorded, 3 peers: voters %v", got)
	}
	o := rules.Observation{Voters: five.voterIDs(), Silent: map[int]bool{1: true, 2: true}, Ended: map[int]bool{1: true, 2: true}}
	if d := rules.Failover(o); d.Outcome != rules.Stay {
		t.Fatalf("2 of 5 recorded voters failed over: %+v", d)
	}
	three := &Coordinator{cfg: DefaultConfig(), raft: testRaft(t, 1, 2, 3)}
	for id := 1; id <= 5; id++ {
		three.peers = append(three.peers, Peer{ID: id, Addr: fmt.Sprintf("127.0.0.1:%d", id)})
	}
	if got := three.voterIDs(); fmt.Sprint(got) != "[1 2 3]" || three.voters() != 3 {
		t.Fatalf("3 recorded, 5 peers: voters %v", got)
	}
	o.Voters = three.voterIDs()
	if d := rules.Failover(o); d.Outcome == rules.Stay {
		t.Fatalf("2 of 3 recorded voters did not fail over: %+v", d)
	}
}

// CONFIRM is answered only once the failover the leader is deciding for
// the group is recorded: it waits for the group's lock, and then answers
// from the new record.
func TestConfirmWaitsForTheFailoverBeingDecided(t *testing.T) {
	_, a := dataNode(t, "primary", "")
	_, b := dataNode(t, "replica", a.Replication)
	c := oneCoordinator(t, a, b)
	poll.Until(t, 20*time.Second, "the first primary recorded and confirmed", func() bool {
		return c.confirmPrimary("main", a.Address)
	})
	l := c.groupLock("main")
	l.Lock()
	answer := make(chan bool, 1)
	go func() { answer <- c.confirmPrimary("main", a.Address) }()
	poll.Stays(t, 300*time.Millisecond, "CONFIRM waits while a failover is decided", func() bool { return len(answer) == 0 })
	rec, _ := c.fsm.get("main")
	if err := c.propose(rules.Entry{Op: rules.OpPrimary, Group: "main", Primary: b.Address, GroupEpoch: rec.GroupEpoch + 1}); err != nil {
		l.Unlock()
		t.Fatal(err)
	}
	l.Unlock()
	if <-answer {
		t.Fatal("CONFIRM named the old primary after the failover being decided was recorded")
	}
}

// FORCE is refused while the primary still answers the leader, with the
// record unchanged.
func TestForceIsRefusedWhileThePrimaryAnswers(t *testing.T) {
	_, a := dataNode(t, "primary", "")
	_, b := dataNode(t, "replica", a.Replication)
	c := oneCoordinator(t, a, b)
	poll.Until(t, 20*time.Second, "the first primary recorded and heard", func() bool {
		rec, _ := c.fsm.get("main")
		return rec.Primary == a.Address && !c.silent(a.Address) && c.prober(b.Address).latest.Load().OK
	})
	before, _ := c.fsm.get("main")
	_, err := c.force("main")
	if err == nil || !strings.Contains(err.Error(), "still answers this leader") {
		t.Fatalf("FORCE while the primary answers: %v", err)
	}
	if after, _ := c.fsm.get("main"); after.Primary != a.Address || after.GroupEpoch != before.GroupEpoch {
		t.Fatalf("the record moved: %+v -> %+v", before, after)
	}
}

// nodeAnswers answers a prober's pings as a two-shard primary.
func nodeAnswers(args []string) string {
	cmd := strings.ToUpper(strings.Join(args, " "))
	switch {
	case cmd == "CONFIG GET SHARDS":
		return "*2\r\n" + bulk("shards") + bulk("2")
	case cmd == "INFO SERVER":
		return bulk("# Server\r\nrun_id:abc\r\n")
	case cmd == "ROLE":
		return "*3\r\n" + bulk("master") + ":0\r\n*0\r\n"
	case cmd == "INFO REPLICATION":
		return bulk("# Replication\r\nrole:master\r\nwal_durable_sequence:5\r\n")
	}
	return "-ERR unknown command\r\n"
}

// A member is heard only when all its shards answer: with shard 1 down
// its ping is not OK and its last heard time does not move, so a primary
// with one shard down goes silent like a dead one (and rules then fail it
// over, and promote no replica in that state); once shard 1 answers it
// is heard again.
func TestAMemberIsHeardOnlyWhenEveryShardAnswers(t *testing.T) {
	var shard0 *respNode
	var shard1 string
	for range 50 {
		n := newRespNode(t, "127.0.0.1:0", nodeAnswers)
		next := shardAddr(n.addr(), 1)
		if ln, err := net.Listen("tcp", next); err == nil {
			ln.Close()
			shard0, shard1 = n, next
			break
		}
	}
	if shard0 == nil {
		t.Fatal("no two adjacent free ports")
	}
	cfg := DefaultConfig()
	cfg.PingIntervalMs, cfg.DownAfterMs = 50, 1000
	c := &Coordinator{cfg: cfg, log: quiet(), start: time.Now()}
	p := newProber(c, Member{Address: shard0.addr(), Replication: "127.0.0.1:1"})
	t.Cleanup(p.close)
	c.probers = map[string]*prober{shard0.addr(): p}
	st := p.probe()
	if st.OK || !strings.Contains(st.Err, "shard 1") || p.heard.Load() != 0 || st.Role() != "" {
		t.Fatalf("shard 1 down: %+v, heard %d", st, p.heard.Load())
	}
	newRespNode(t, shard1, nodeAnswers)
	st = p.probe()
	if !st.OK || p.heard.Load() == 0 || len(st.Shards) != 2 || st.Shards[1].WalDurable != 5 {
		t.Fatalf("every shard answers: %+v", st)
	}
}

// With unclean_failover the coordinator promotes the best replica even
// when it lacks the committed records, and the record says the promotion
// was unclean (the committed values dropped, kept as stale); without it,
// nothing is promoted.
func TestUncleanFailoverPromotesAReplicaLackingCommittedRecords(t *testing.T) {
	for _, unclean := range []bool{false, true} {
		a := newFakeMember(t, "master", "a")
		b := newFakeMember(t, "slave", "b")
		a.set(func(f *fakeMember) { f.durable, f.committed = 50, 50 })
		c := startCoordinator(t, []Group{{Name: "main", Members: []Member{a.member(), b.member()}}},
			func(cfg *Config) { cfg.UncleanFailover = unclean })
		poll.Until(t, 20*time.Second, "committed 50 recorded", func() bool {
			rec, _ := c.fsm.get("main")
			return rec.Primary == a.addr() && len(rec.Committed) == 1 && rec.Committed[0] == 50
		})
		a.set(func(f *fakeMember) { f.silent = true })
		if !unclean {
			poll.Stays(t, 3*time.Second, "no clean failover to a replica lacking records", func() bool { return recordedPrimary(c, "main") == a.addr() })
			continue
		}
		poll.Until(t, 10*time.Second, "b promoted", func() bool { return recordedPrimary(c, "main") == b.addr() })
		rec, _ := c.fsm.get("main")
		if rec.Committed != nil || fmt.Sprint(rec.Stale) != "[50]" {
			t.Fatalf("the unclean promotion is not recorded as such: %+v", rec)
		}
	}
}
