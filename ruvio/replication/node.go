// Package replication streams each shard's records from a primary node
// to its replicas: the primary's listeners and streams, the replica's links, the backlog.
package replication

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// A node is standalone, a primary or a replica, for all its shards at
// once; each shard replicates on its own connection, shard i of a
// replica to shard i of its primary. The primary side lives in
// primary.go, the replica side in replica.go; which records to send, and
// which replication epochs to trust, ruvio/repl decides.

// Role is what a node is for replication.
type Role int32

// The roles.
const (
	Standalone Role = iota
	Primary
	Replica
)

// String is the role's name in RROLE and INFO's replication_role.
func (r Role) String() string {
	switch r {
	case Primary:
		return "primary"
	case Replica:
		return "replica"
	}
	return "standalone"
}

// Options is what a Node needs from the server around it.
type Options struct {
	// Config returns the current configuration.
	Config func() config.Config
	Log    *slog.Logger
	// RunID is the node's run ID, which its replicas present.
	RunID string
	// OnFollow runs when the node becomes a replica, before its links
	// start: a replica holds no lease grants, so a promotion waits for
	// new ones.
	OnFollow func()
}

// Node is a data node's replication role and the state of each of its
// shards' streams.
type Node struct {
	opts   Options
	log    *slog.Logger
	shards []*shard.Shard
	states []*ShardState

	mu   sync.Mutex // serializes role changes
	role atomic.Int32
	// primary is the replication base address a replica follows; yield
	// says REPLICAOF ... YIELD named it.
	primary string
	yield   bool
	links   []*Link
	// listeners accept replicas, one per shard, once the node has a role.
	listeners []net.Listener
	tls       tlsLinks // replication.tls (tls.go)
	// fencedBy is the replication epoch of a replica that showed this
	// primary was replaced; 0 while it was not.
	fencedBy atomic.Uint64
	// lost is how many records a replica holds that this primary lost
	// in a restart (repl.Behind), the most any replica showed; 0 while
	// none did. A primary that lost records takes no more writes.
	lost atomic.Uint64

	closing atomic.Bool
	wg      sync.WaitGroup // replica listeners and connections

	// loopTurns counts the event-loop turns in progress (EnterTurn).
	loopTurns atomic.Int32
	// reserved counts the bytes the shards' backlogs reserved and have
	// not written to yet (see backlog).
	reserved atomic.Int64
	// resizeMu makes ResizeBacklogs one at a time.
	resizeMu sync.Mutex
}

// New prepares replication for the node's shards; the node is standalone
// until Start or a role change.
func New(shards []*shard.Shard, opts Options) *Node {
	n := &Node{opts: opts, log: opts.Log, shards: shards}
	for _, sh := range shards {
		n.states = append(n.states, &ShardState{sh: sh, turns: &n.loopTurns, reserved: &n.reserved})
	}
	return n
}

// EnterTurn and LeaveTurn bracket a turn of an event loop, which serves
// every ready client and then yields, so that a stream to a replica sends
// what the turn appended in one write. A stream woken by a write outside
// a turn (a client with a goroutine of its own) yields once before it
// reads, letting the other ready clients append first; one woken in a
// turn does not, since yielding there would wait for the loop's next turn
// and double the lag.
func (n *Node) EnterTurn() { n.loopTurns.Add(1) }

// LeaveTurn ends what EnterTurn began.
func (n *Node) LeaveTurn() { n.loopTurns.Add(-1) }

// TurnsInProgress is how many event loops are in a turn now.
func (n *Node) TurnsInProgress() int { return int(n.loopTurns.Load()) }

// ReservedBytes is how many bytes the shards' backlogs reserved for
// frames and have not written to yet: allocated, but not used memory.
func (n *Node) ReservedBytes() int64 { return n.reserved.Load() }

// ResizeBacklogs bounds every shard's backlog at the configured
// backlog_bytes from now on, after CONFIG SET repl-backlog-size. It reads
// the configuration itself, so of two changes racing the last one made
// stands (one resize at a time: the one that reads last applies last); a
// backlog created later takes the configured size anyway.
func (n *Node) ResizeBacklogs() {
	n.resizeMu.Lock()
	defer n.resizeMu.Unlock()
	bytes := n.config().Replication.BacklogBytes
	for _, st := range n.states {
		if bl := st.backlog.Load(); bl != nil {
			bl.resize(bytes)
		}
	}
}

// Role is the node's current role.
func (n *Node) Role() Role { return Role(n.role.Load()) }

// FencedBy is the replication epoch of a replica that showed this primary
// was replaced, or 0.
func (n *Node) FencedBy() uint64 { return n.fencedBy.Load() }

// LostRecords is how many records a replica showed it holds that this
// primary lost in a restart (the most any replica showed), or 0: such a
// primary takes no writes until a replica is promoted or it is sent
// REPLICAOF NO ONE.
func (n *Node) LostRecords() uint64 { return n.lost.Load() }

// noteLost records that a replica holds lost records this primary lost.
func (n *Node) noteLost(shard int, lost uint64, replica string) {
	for {
		old := n.lost.Load()
		if lost <= old {
			return
		}
		if n.lost.CompareAndSwap(old, lost) {
			n.log.Warn("a replica holds records this primary lost in a restart: it takes no more writes until a replica is promoted or it is sent REPLICAOF NO ONE",
				"shard", shard, "records", lost, "replica", replica)
			return
		}
	}
}

// Shard is shard i's replication state.
func (n *Node) Shard(i int) *ShardState { return n.states[i] }

// Loading reports whether a shard of the node is loading a full copy.
func (n *Node) Loading() bool {
	for _, st := range n.states {
		if st.loading.Load() {
			return true
		}
	}
	return false
}

func (n *Node) config() config.Config { return n.opts.Config() }

// ErrClosing answers a role change that comes once the node is closing.
var ErrClosing = errors.New("ERR the server is shutting down")

// BecomePrimary makes the node a primary (REPLICAOF NO ONE). A node that
// is already a primary, and was not replaced, keeps its replication
// epoch; otherwise every shard forks a new one.
func (n *Node) BecomePrimary() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closing.Load() {
		return ErrClosing
	}
	if n.Role() == Primary && n.fencedBy.Load() == 0 && n.lost.Load() == 0 {
		return nil
	}
	if err := n.openListeners(); err != nil {
		return err
	}
	n.stopLinks()
	// A fenced primary has seen its replacement's epoch through the
	// replica that showed it: the new epoch goes above that too, so two
	// primaries never write in one epoch (fencing tokens carry it).
	seen := n.fencedBy.Load()
	for _, sh := range n.shards {
		seen = max(seen, sh.LatestReplicationEpoch())
	}
	replEpoch := repl.NextEpoch(seen)
	// Only a primary that refused a replica for records it lost is told
	// to go on without them; any other fork (the coordinators correcting
	// a recorded primary that answers as a replica, or is fenced) keeps a
	// memory shard's forgotten stretches.
	forget := n.lost.Load() != 0
	for _, sh := range n.shards {
		sh.ForkReplicationEpoch(replEpoch, forget)
	}
	n.primary, n.yield = "", false
	n.fencedBy.Store(0)
	n.lost.Store(0)
	n.role.Store(int32(Primary))
	n.log.Info("MASTER MODE enabled", "epoch", replEpoch)
	return nil
}

// BecomeReplica makes the node follow the primary whose replication base
// address is addr. It reports whether anything changed.
func (n *Node) BecomeReplica(addr string, yield bool) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closing.Load() {
		// Close set closing before it took the lock to stop the links:
		// links started now would outlive it.
		return false, ErrClosing
	}
	if n.Role() == Replica && n.primary == addr && n.yield == yield {
		return false, nil
	}
	if err := n.openListeners(); err != nil {
		return false, err
	}
	n.stopLinks()
	n.role.Store(int32(Replica))
	n.primary, n.yield = addr, yield
	if n.opts.OnFollow != nil {
		n.opts.OnFollow()
	}
	n.fencedBy.Store(0)
	n.lost.Store(0)
	// Replicas of this node would now form a chain: let them go.
	backlogBytes := n.config().Replication.BacklogBytes
	for _, st := range n.states {
		st.dropReplicas()
		st.sh.Lock()
		st.sh.SetReplicaLocked(true)
		st.ensureBacklogLocked(backlogBytes)
		st.sh.Unlock()
	}
	host, port, _ := net.SplitHostPort(addr)
	base, _ := strconv.Atoi(port)
	for _, st := range n.states {
		l := newLink(n, st, net.JoinHostPort(host, strconv.Itoa(base+st.sh.ID)), yield)
		n.links = append(n.links, l)
		st.link.Store(l)
		go l.run()
	}
	n.log.Info("REPLICAOF: following a primary", "primary", addr, "yield", yield)
	return true, nil
}

// ErrNotReplica is RUVIO DETACH's answer on a node that follows no primary.
var ErrNotReplica = errors.New("ERR RUVIO DETACH: this node is not a replica (it is a primary or standalone): there is nothing to detach from")

// Detach stops every shard's link to the primary and waits until each has
// ended (RUVIO DETACH): once it returns no record of that primary is
// applied or acknowledged. Unlike BecomePrimary the node stays a
// read-only replica, forks no epoch and writes nothing to its log, so a
// later REPLICAOF naming a primary whose history continues its own
// continues from its log rather than taking a full copy. A detached node
// follows no primary ("" for PrimaryHostPort). Detaching a detached node
// does nothing; a node that is not a replica answers ErrNotReplica.
func (n *Node) Detach() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Role() != Replica {
		return ErrNotReplica
	}
	if n.primary == "" {
		return nil
	}
	old := n.primary
	n.stopLinks()
	n.primary, n.yield = "", false
	n.log.Info("RUVIO DETACH: stopped following the primary, still a read-only replica", "primary", old)
	return nil
}

// Detached reports whether the node is a replica that follows no primary
// (RUVIO DETACH).
func (n *Node) Detached() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.Role() == Replica && n.primary == ""
}

// stopLinks ends the replica links and waits for them. Caller holds n.mu.
func (n *Node) stopLinks() {
	for _, l := range n.links {
		l.stop()
	}
	n.links = nil
	for _, st := range n.states {
		st.link.Store(nil)
		st.loading.Store(false)
	}
}

// openListeners starts listening for replicas, shard i on the base port
// + i, unless already listening. Caller holds n.mu.
func (n *Node) openListeners() error {
	if n.listeners != nil {
		return nil
	}
	cfg := n.config()
	if err := cfg.CheckReplicationListen(); err != nil {
		return fmt.Errorf("ERR cannot accept replicas: %v", err)
	}
	host, port, err := net.SplitHostPort(cfg.ReplicationListen())
	if err != nil {
		return err
	}
	base, _ := strconv.Atoi(port)
	wrap, err := n.listenerWrap()
	if err != nil {
		return fmt.Errorf("ERR cannot accept replicas: %v", err)
	}
	var lns []net.Listener
	for i := range n.shards {
		p := base
		if base != 0 {
			p = base + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return fmt.Errorf("ERR cannot listen for replicas on %s: %v", net.JoinHostPort(host, strconv.Itoa(p)), err)
		}
		lns = append(lns, wrap(ln))
	}
	n.listeners = lns
	for i, ln := range lns {
		n.wg.Add(1)
		go n.acceptReplicas(ln, n.states[i])
	}
	n.log.Info("listening for replicas", "addr", cfg.ReplicationListen(), "shards", len(lns))
	return nil
}

// ReplAddr returns the address shard i accepts replicas on ("" when the
// node does not listen for them).
func (n *Node) ReplAddr(i int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if i >= len(n.listeners) {
		return ""
	}
	return n.listeners[i].Addr().String()
}

// IsOwnAddr reports whether addr is this node's own replication address.
func (n *Node) IsOwnAddr(addr string) bool {
	own := n.ReplAddr(0)
	return own != "" && own == addr
}

// PrimaryHostPort is the address REPLICAOF named, for ROLE and INFO.
func (n *Node) PrimaryHostPort() (string, int) {
	n.mu.Lock()
	addr := n.primary
	n.mu.Unlock()
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	return host, p
}

// Close stops links, listeners and replica connections at shutdown; Wait
// then waits for the connections' goroutines.
func (n *Node) Close() {
	n.closing.Store(true)
	n.mu.Lock()
	n.stopLinks()
	for _, ln := range n.listeners {
		ln.Close()
	}
	n.mu.Unlock()
	for _, st := range n.states {
		st.dropReplicas()
	}
}

// Wait blocks until every replica listener and connection has ended.
func (n *Node) Wait() { n.wg.Wait() }

// Start applies the configured role at start-up.
func (n *Node) Start() error {
	cfg := n.config()
	switch cfg.Replication.Role {
	case "primary":
		n.mu.Lock()
		defer n.mu.Unlock()
		if err := n.openListeners(); err != nil {
			return err
		}
		for _, st := range n.states {
			st.sh.Lock()
			st.ensureBacklogLocked(cfg.Replication.BacklogBytes)
			st.sh.Unlock()
		}
		n.role.Store(int32(Primary))
	case "replica":
		_, err := n.BecomeReplica(cfg.Replication.Primary, false)
		return err
	default:
		// A node without a role is a writer, and a writer accepts
		// replicas, as every Redis master does. When its replication
		// address cannot be used it still serves clients, and says at
		// start what to set.
		n.mu.Lock()
		defer n.mu.Unlock()
		if err := n.openListeners(); err != nil {
			n.log.Warn("not accepting replicas", "reason", strings.TrimPrefix(err.Error(), "ERR "))
		}
	}
	return nil
}

// ProbeIsReplica asks the node at addr, briefly, whether it is a replica,
// so a chain is refused at once rather than failing in the background. A
// node that does not answer is not judged: the link retries on its own.
func (n *Node) ProbeIsReplica(addr string) bool {
	nc, err := n.dialBriefly(addr)
	if err != nil {
		return false
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(time.Second))
	w, br := resp.NewWriter(nc), bufio.NewReader(nc)
	if pw := n.config().Replication.Password; pw != "" {
		writeCommand(w, "AUTH", pw)
	}
	writeCommand(w, "RROLE")
	if w.Flush() != nil {
		return false
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return false
		}
		switch strings.TrimSpace(line) {
		case "+replica":
			return true
		case "+primary", "+standalone":
			return false
		}
	}
}

// writeCommand buffers args as a RESP command in w.
func writeCommand(w *resp.Writer, args ...string) {
	w.Array(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
}
