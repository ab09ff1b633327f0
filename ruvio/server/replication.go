package server

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// A node is standalone, a primary or a replica, for all its shards at
// once; each shard replicates on its own connection (N-REPL-16). The
// primary side lives in repl_primary.go, the replica side in
// repl_replica.go, the commands in cmd_repl.go.

type nodeRole int

const (
	roleStandalone nodeRole = iota
	rolePrimary
	roleReplica
)

// replState is the node's replication role.
type replState struct {
	mu   sync.Mutex // serializes role changes
	role atomic.Int32
	// primary is the replication base address a replica follows; yield
	// says REPLICAOF ... YIELD named it.
	primary string
	yield   bool
	links   []*primaryLink
	// listeners accept replicas, one per shard, once the node has a role.
	listeners []net.Listener
	// fencedBy is the epoch of a replica that showed this primary was
	// replaced (N-REPL-10); 0 while it was not.
	fencedBy atomic.Uint64
}

func (r *replState) current() nodeRole { return nodeRole(r.role.Load()) }

// shardRepl is a shard's replication state.
type shardRepl struct {
	// backlog is created under Shard.mu when the shard first has (or
	// becomes) something replicas can read from; nil on a standalone node.
	backlog *backlog

	mu       sync.Mutex
	replicas map[*replicaConn]struct{}

	// loading is set while a replica shard loads a full copy.
	loading atomic.Bool
	// gate is the refusal writes get from the last 100 ms check
	// (min-replicas-to-write), or nil.
	gate atomic.Pointer[string]
	// committed is replication_committed_sequence.
	committed atomic.Uint64
	link      atomic.Pointer[primaryLink]
	// ackCh is closed (and dropped) when a replica's acknowledgement
	// moves forward, waking durable replies.
	ackMu sync.Mutex
	ackCh chan struct{}
}

// replHistory returns the shard's epoch history as the handshake
// carries it. Callers hold sh.mu.
func (sh *Shard) replHistory() []repl.EpochStart {
	h := make([]repl.EpochStart, len(sh.history))
	for i, s := range sh.history {
		h[i] = repl.EpochStart{Epoch: s.Epoch, FirstSeq: s.FirstSeq}
	}
	return h
}

// normalizeHistory makes the history begin at sequence 1: a log that
// never changed epoch, or whose first epoch was implicit, starts in
// epoch 1.
func (sh *Shard) normalizeHistory() {
	switch {
	case len(sh.history) > 0 && sh.history[0].FirstSeq <= 1:
	case len(sh.history) > 0 && sh.history[0].Epoch <= 1:
		sh.history[0].FirstSeq = 1
	default:
		sh.history = append([]snapshot.EpochStart{{Epoch: 1, FirstSeq: 1}}, sh.history...)
	}
}

// ensureBacklog creates the shard's backlog if needed. Caller holds sh.mu,
// so no record can slip between the log and the backlog's start.
func (sh *Shard) ensureBacklog(max int64) *backlog {
	if sh.repl.backlog == nil {
		sh.repl.backlog = newBacklog(sh.wlog().Last()+1, max)
	}
	return sh.repl.backlog
}

// forkEpoch starts epoch on the shard at its current position with a
// record that carries no effects, so the fork is in the log, on disk and
// in every replica's history (N-REPL-2).
func (sh *Shard) forkEpoch(epoch uint64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	next := sh.wlog().Last() + 1
	sh.noteEpoch(epoch, next)
	sh.appendAt(epoch, nil)
	sh.db.Replica = false
	sh.log.Info("new epoch", "shard", sh.ID, "epoch", epoch, "first_sequence", next)
}

// maxEpoch is the largest epoch any shard of the node has seen.
func (s *Server) maxEpoch() uint64 {
	var m uint64
	for _, sh := range s.shards {
		sh.mu.Lock()
		m = max(m, sh.epoch)
		for _, e := range sh.history {
			m = max(m, e.Epoch)
		}
		sh.mu.Unlock()
	}
	return m
}

// becomePrimary makes the node a primary (REPLICAOF NO ONE). A node that
// is already a primary, and was not replaced, keeps its epoch; otherwise
// every shard forks a new one.
func (s *Server) becomePrimary() error {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current() == rolePrimary && r.fencedBy.Load() == 0 {
		return nil
	}
	if err := s.openReplListeners(); err != nil {
		return err
	}
	s.stopLinks()
	epoch := repl.NextEpoch(s.maxEpoch())
	for _, sh := range s.shards {
		sh.forkEpoch(epoch)
	}
	r.primary, r.yield = "", false
	r.fencedBy.Store(0)
	r.role.Store(int32(rolePrimary))
	s.log.Info("MASTER MODE enabled", "epoch", epoch)
	return nil
}

// becomeReplica makes the node follow the primary whose replication base
// address is addr. It reports whether anything changed.
func (s *Server) becomeReplica(addr string, yield bool) (bool, error) {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current() == roleReplica && r.primary == addr && r.yield == yield {
		return false, nil
	}
	if err := s.openReplListeners(); err != nil {
		return false, err
	}
	s.stopLinks()
	r.role.Store(int32(roleReplica))
	r.primary, r.yield = addr, yield
	s.lease.clear() // a replica holds no grants; a promotion waits for new ones
	r.fencedBy.Store(0)
	// Replicas of this node would now form a chain: let them go.
	for _, sh := range s.shards {
		sh.dropReplicas()
		sh.mu.Lock()
		sh.db.Replica = true
		sh.ensureBacklog(s.Config().Replication.BacklogBytes)
		sh.mu.Unlock()
	}
	host, port, _ := net.SplitHostPort(addr)
	base, _ := strconv.Atoi(port)
	for _, sh := range s.shards {
		l := newPrimaryLink(s, sh, net.JoinHostPort(host, strconv.Itoa(base+sh.ID)), yield)
		r.links = append(r.links, l)
		sh.repl.link.Store(l)
		go l.run()
	}
	s.log.Info("REPLICAOF: following a primary", "primary", addr, "yield", yield)
	return true, nil
}

// stopLinks ends the replica links and waits for them. Caller holds
// repl.mu.
func (s *Server) stopLinks() {
	for _, l := range s.repl.links {
		l.stop()
	}
	s.repl.links = nil
	for _, sh := range s.shards {
		sh.repl.link.Store(nil)
		sh.repl.loading.Store(false)
	}
}

// openReplListeners starts listening for replicas, shard i on the base
// port + i, unless already listening. Caller holds repl.mu.
func (s *Server) openReplListeners() error {
	if s.repl.listeners != nil {
		return nil
	}
	cfg := s.Config()
	if err := cfg.CheckReplicationListen(); err != nil {
		return fmt.Errorf("ERR cannot accept replicas: %v", err)
	}
	host, port, err := net.SplitHostPort(cfg.ReplicationListen())
	if err != nil {
		return err
	}
	base, _ := strconv.Atoi(port)
	var lns []net.Listener
	for i := range s.shards {
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
		lns = append(lns, ln)
	}
	s.repl.listeners = lns
	for i, ln := range lns {
		s.wg.Add(1)
		go s.acceptReplicas(ln, s.shards[i])
	}
	s.log.Info("listening for replicas", "addr", cfg.ReplicationListen(), "shards", len(lns))
	return nil
}

// ReplAddr returns the address shard i accepts replicas on ("" when the
// node does not listen for them).
func (s *Server) ReplAddr(i int) string {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	if i >= len(s.repl.listeners) {
		return ""
	}
	return s.repl.listeners[i].Addr().String()
}

// closeReplication stops links, listeners and replica connections at
// shutdown.
func (s *Server) closeReplication() {
	s.repl.mu.Lock()
	s.stopLinks()
	for _, ln := range s.repl.listeners {
		ln.Close()
	}
	s.repl.mu.Unlock()
	for _, sh := range s.shards {
		sh.dropReplicas()
	}
}

// startReplication applies the configured role at start-up (N-CFG-3,
// N-CFG-4).
func (s *Server) startReplication() error {
	cfg := s.Config()
	switch cfg.Replication.Role {
	case "primary":
		s.repl.mu.Lock()
		defer s.repl.mu.Unlock()
		if err := s.openReplListeners(); err != nil {
			return err
		}
		for _, sh := range s.shards {
			sh.mu.Lock()
			sh.ensureBacklog(cfg.Replication.BacklogBytes)
			sh.mu.Unlock()
		}
		s.repl.role.Store(int32(rolePrimary))
	case "replica":
		_, err := s.becomeReplica(cfg.Replication.Primary, false)
		return err
	}
	return nil
}
