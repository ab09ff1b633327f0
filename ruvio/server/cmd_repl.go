package server

import (
	"bufio"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/repl"
)

// Replies of the write-safety gates, in Redis's words.
const (
	errNoReplicas = "NOREPLICAS Not enough good replicas to write."
	errReadOnly   = "READONLY You can't write against a read only replica."
	errLoading    = "LOADING Redis is loading the dataset in memory"
)

// cmdReplicaOf: REPLICAOF NO ONE | REPLICAOF host port [YIELD], for every
// shard of the node (N-REPL-2..5). host port is the primary's replication
// base address.
func cmdReplicaOf(c *conn, args [][]byte) {
	s := c.srv
	if len(args) == 3 && command.Eq(args[1], "no") && command.Eq(args[2], "one") {
		if err := s.becomePrimary(); err != nil {
			c.w.Error(err.Error())
			return
		}
		c.w.OK()
		return
	}
	yield := false
	if len(args) == 4 {
		if !command.Eq(args[3], "yield") {
			c.w.Error(command.ErrSyntax)
			return
		}
		yield = true
	}
	port, ok := command.ParseInt(args[2])
	if !ok || port < 1 || port > 65535 {
		c.w.Error("ERR Invalid master port")
		return
	}
	addr := net.JoinHostPort(string(args[1]), strconv.FormatInt(port, 10))
	if s.isOwnReplAddr(addr) {
		c.w.Error("ERR can't replicate from this node itself")
		return
	}
	if s.probeIsReplica(addr) {
		c.w.Error("ERR " + addr + " is a replica: a replica of a replica (a chain) is not supported; point REPLICAOF at its primary")
		return
	}
	wasReplica := s.repl.current() == roleReplica
	changed, err := s.becomeReplica(addr, yield)
	if changed && !wasReplica {
		// Like Sentinel's CLIENT KILL TYPE normal / pubsub on a demoted
		// primary: clients rely on losing their connections to leave it.
		s.dropClientsExcept(c)
	}
	switch {
	case err != nil:
		c.w.Error(err.Error())
	case !changed:
		c.w.Simple("OK Already connected to specified master")
	default:
		c.w.OK()
	}
}

// isOwnReplAddr reports whether addr is this node's own replication
// address.
func (s *Server) isOwnReplAddr(addr string) bool {
	own := s.ReplAddr(0)
	return own != "" && own == addr
}

// probeIsReplica asks the node at addr, briefly, whether it is a replica,
// so a chain is refused at once rather than failing in the background. A
// node that does not answer is not judged: the link retries on its own.
func (s *Server) probeIsReplica(addr string) bool {
	nc, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(time.Second))
	bw, br := bufio.NewWriter(nc), bufio.NewReader(nc)
	if pw := s.Config().Replication.Password; pw != "" {
		writeCommand(bw, "AUTH", pw)
	}
	writeCommand(bw, "RROLE")
	if bw.Flush() != nil {
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

func roleName(r nodeRole) string {
	switch r {
	case rolePrimary:
		return "primary"
	case roleReplica:
		return "replica"
	}
	return "standalone"
}

// cmdRole answers Redis's shapes for this connection's shard:
// ["master", offset, [[ip, port, offset], ...]] or
// ["slave", host, port, state, offset] (N-REPL-12).
func cmdRole(c *conn, args [][]byte) {
	s, sh := c.srv, c.shard
	if s.repl.current() == roleReplica {
		host, port := s.primaryHostPort()
		state := "connect"
		if l := sh.repl.link.Load(); l != nil {
			state = l.status()
		}
		c.w.Array(5)
		c.w.BulkString("slave")
		c.w.BulkString(host)
		c.w.Int(int64(port))
		c.w.BulkString(state)
		c.w.Int(int64(sh.wlog().Last()))
		return
	}
	reps := sh.replicaList()
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(int64(sh.wlog().Last()))
	c.w.Array(len(reps))
	for _, r := range reps {
		host, port, _ := net.SplitHostPort(r.announce)
		c.w.Array(3)
		c.w.BulkString(host)
		c.w.BulkString(port)
		c.w.BulkString(strconv.FormatUint(r.ack.Load(), 10))
	}
}

// primaryHostPort is the address REPLICAOF named, for ROLE and INFO.
func (s *Server) primaryHostPort() (string, int) {
	s.repl.mu.Lock()
	addr := s.repl.primary
	s.repl.mu.Unlock()
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	return host, p
}

// replicaList returns the shard's replicas in a stable order.
func (sh *Shard) replicaList() []*replicaConn {
	sh.repl.mu.Lock()
	out := make([]*replicaConn, 0, len(sh.repl.replicas))
	for rc := range sh.repl.replicas {
		out = append(out, rc)
	}
	sh.repl.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].announce < out[j].announce })
	return out
}

// replicationInfo is INFO replication for one shard, with Redis's fields
// and the per-shard sequences the coordinators read (N-REPL-14, 15).
func (s *Server) replicationInfo(sh *Shard) [][2]string {
	now := clock.NowMs()
	var out [][2]string
	role := s.repl.current()
	if role == roleReplica {
		host, port := s.primaryHostPort()
		l := sh.repl.link.Load()
		status, lastIO, syncing, linkErr := "down", int64(-1), 0, ""
		if l != nil {
			if l.status() == "connected" {
				status = "up"
			}
			if t := l.lastIO.Load(); t > 0 {
				lastIO = (now - t) / 1000
			}
			if l.status() == "sync" {
				syncing = 1
			}
			linkErr = l.err()
		}
		out = append(out, kv("role", "slave"), kv("master_host", host), kv("master_port", port),
			kv("master_link_status", status), kv("master_last_io_seconds_ago", lastIO),
			kv("master_sync_in_progress", syncing), kv("slave_repl_offset", sh.wlog().Last()),
			kv("slave_read_only", 1), kv("replica_announced", 1))
		if l != nil {
			out = append(out, kv("master_epoch", l.primaryEpoch.Load()), kv("full_copies", l.fullCopies.Load()))
		}
		if linkErr != "" {
			out = append(out, kv("master_link_error", linkErr))
		}
	} else {
		out = append(out, kv("role", "master"))
	}
	reps := sh.replicaList()
	out = append(out, kv("connected_slaves", len(reps)))
	for i, r := range reps {
		host, port, _ := net.SplitHostPort(r.announce)
		lag := (now - r.ackAt.Load()) / 1000
		out = append(out, kv(fmt.Sprintf("slave%d", i),
			fmt.Sprintf("ip=%s,port=%s,state=%s,offset=%d,lag=%d", host, port, *r.state.Load(), r.ack.Load(), lag)))
	}
	cfg := s.Config()
	gate := sh.repl.gate.Load()
	ls := s.lease.check()
	out = append(out,
		kv("min_slaves_good_slaves", sh.goodReplicas(now, cfg.MinReplicasMaxLag)),
		kv("min_replicas_refusing", boolInt(gate != nil)),
		kv("replication_role", roleName(role)),
		kv("replication_fenced_by_epoch", s.repl.fencedBy.Load()),
		kv("primary_lease", yesNo(cfg.PrimaryLease)),
		kv("primary_lease_grants", ls.Grants), kv("primary_lease_remaining_ms", ls.Remaining.Milliseconds()),
		kv("master_failover_state", "no-failover"),
		kv("master_replid", s.runID), kv("master_repl_offset", sh.wlog().Last()))
	sh.mu.Lock()
	bl := sh.repl.backlog
	sh.mu.Unlock()
	if bl != nil {
		size, first, n := bl.stats()
		out = append(out, kv("repl_backlog_active", 1), kv("repl_backlog_size", cfg.Replication.BacklogBytes),
			kv("repl_backlog_bytes", size), kv("repl_backlog_first_sequence", first), kv("repl_backlog_histlen", n))
	} else {
		out = append(out, kv("repl_backlog_active", 0))
	}
	sh.mu.Lock()
	epoch := sh.epoch
	sh.mu.Unlock()
	log := sh.wlog()
	return append(out,
		kv("wal_first_sequence", log.First()),
		kv("epoch", epoch), kv("wal_last_sequence", log.Last()),
		kv("wal_durable_sequence", sh.durableSeq()),
		kv("replication_committed_sequence", sh.repl.committed.Load()))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// eachOnline calls fn for each replica of the shard that is streaming,
// under the shard's replica lock: no copy and no sort, for the checks that
// run on every tick and every durable reply.
func (sh *Shard) eachOnline(fn func(r *replicaConn)) {
	sh.repl.mu.Lock()
	defer sh.repl.mu.Unlock()
	for r := range sh.repl.replicas {
		if *r.state.Load() == "online" {
			fn(r)
		}
	}
}

// ackTimes appends to buf the last acknowledgement time (Unix ms) of each
// streaming replica.
func (sh *Shard) ackTimes(buf []int64) []int64 {
	sh.eachOnline(func(r *replicaConn) { buf = append(buf, r.ackAt.Load()) })
	return buf
}

// goodReplicas counts the shard's streaming replicas that acknowledged
// within maxLag seconds.
func (sh *Shard) goodReplicas(now int64, maxLag int) int {
	return repl.GoodReplicas(sh.ackTimes(nil), now, maxLag)
}

// gateTicker runs the write-safety checks every 100 ms, whatever hz is
// (N-GATE-2).
func (s *Server) gateTicker() {
	defer s.wg.Done()
	t := time.NewTicker(repl.GateInterval)
	defer t.Stop()
	// A replica whose acknowledgements stopped ages past the lag between
	// two ticks; an extra check at that instant makes the refusal begin
	// right when the lag runs out rather than up to a tick later.
	extra := time.NewTimer(time.Hour)
	defer extra.Stop()
	for {
		select {
		case <-s.tickStop:
			return
		case <-t.C:
		case <-extra.C:
		}
		if at := s.checkGates(); at > 0 {
			if d := time.Duration(at-clock.NowMs()) * time.Millisecond; d < repl.GateInterval {
				extra.Reset(max(d, time.Millisecond))
			}
		}
	}
}

// checkGates sets each shard's write refusal and returns the next instant
// (Unix ms, 0: none) a good replica would stop counting.
func (s *Server) checkGates() int64 {
	cfg := s.Config()
	now := clock.NowMs()
	var next int64
	var acks []int64
	leaseOK := !cfg.PrimaryLease || s.lease.check().Holds
	for _, sh := range s.shards {
		acks = sh.ackTimes(acks[:0])
		var msg *string
		switch {
		case !leaseOK:
			m := errLeaseExpired
			msg = &m
		case repl.RefuseWrites(cfg.MinReplicasToWrite, repl.GoodReplicas(acks, now, cfg.MinReplicasMaxLag)):
			m := errNoReplicas
			msg = &m
		}
		sh.repl.gate.Store(msg)
		if cfg.MinReplicasToWrite > 0 {
			if at := repl.NextExpiry(acks, now, cfg.MinReplicasMaxLag); at > 0 && (next == 0 || at < next) {
				next = at
			}
		}
	}
	return next
}

// writeRefusal is what a write gets instead of running: READONLY on a
// replica or a primary that was replaced, NOREPLICAS while a shard it
// writes to has too few good replicas, or "" (N-GATE-1, 13).
func (s *Server) writeRefusal(run *command.Spec, args [][]byte) string {
	if run.Flags&command.Write == 0 {
		return ""
	}
	if s.repl.current() == roleReplica {
		return errReadOnly
	}
	if e := s.repl.fencedBy.Load(); e != 0 {
		return fmt.Sprintf("READONLY This primary was replaced: a replica follows epoch %d. It takes no more writes.", e)
	}
	idx := run.KeyIndexes(args)
	if len(idx) == 0 {
		for _, sh := range s.shards {
			if g := sh.repl.gate.Load(); g != nil {
				return *g
			}
		}
		return ""
	}
	for _, i := range idx {
		if g := s.shardFor(args[i]).repl.gate.Load(); g != nil {
			return *g
		}
	}
	return ""
}

// loading reports whether a shard of the node is loading a full copy.
func (s *Server) loading() bool {
	for _, sh := range s.shards {
		if sh.repl.loading.Load() {
			return true
		}
	}
	return false
}

// dropClientsExcept closes every client connection but c.
func (s *Server) dropClientsExcept(c *conn) {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	n := 0
	for _, o := range s.clients {
		if o != c {
			o.close()
			n++
		}
	}
	if n > 0 {
		s.log.Info("became a replica: closed client connections so clients find the primary", "clients", n)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
