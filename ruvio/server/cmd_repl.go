package server

import (
	"fmt"
	"net"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/shard"
)

// The replication commands. The streams themselves are ruvio/replication;
// what to send and whom to trust, ruvio/repl.

// cmdReplicaOf: REPLICAOF NO ONE | REPLICAOF host port [YIELD], for every
// shard of the node. host port is the primary's replication base address.
func cmdReplicaOf(c *conn, args [][]byte) {
	s := c.srv
	if len(args) == 3 && command.Eq(args[1], "no") && command.Eq(args[2], "one") {
		if err := s.repl.BecomePrimary(); err != nil {
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
	if s.repl.IsOwnAddr(addr) {
		c.w.Error("ERR can't replicate from this node itself")
		return
	}
	if s.repl.ProbeIsReplica(addr) {
		c.w.Error("ERR " + addr + " is a replica: a replica of a replica (a chain) is not supported; point REPLICAOF at its primary")
		return
	}
	wasReplica := s.repl.Role() == replication.Replica
	changed, err := s.repl.BecomeReplica(addr, yield)
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

// cmdRuvioDetach: RUVIO DETACH. The replica stops following its primary
// on every shard and answers once each link has ended, but stays a
// read-only replica on its own epoch: the coordinators detach replicas
// this way before a promotion, so that the ones not promoted continue
// from their logs when pointed at the new primary.
func cmdRuvioDetach(c *conn, args [][]byte) {
	if err := c.srv.repl.Detach(); err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.OK()
}

// ReplAddr returns the address shard i accepts replicas on ("" when the
// node does not listen for them).
func (s *Server) ReplAddr(i int) string { return s.repl.ReplAddr(i) }

// cmdRole answers Redis's shapes for this connection's shard:
// ["master", offset, [[ip, port, offset], ...]] or
// ["slave", host, port, state, offset].
func cmdRole(c *conn, args [][]byte) {
	s, sh := c.srv, c.shard
	st := s.repl.Shard(sh.ID)
	if s.repl.Role() == replication.Replica {
		host, port := s.repl.PrimaryHostPort()
		state := "connect"
		if l := st.Link(); l != nil {
			state = l.Status()
		} else if s.repl.Detached() {
			state = "detached"
		}
		c.w.Array(5)
		c.w.BulkString("slave")
		c.w.BulkString(host)
		c.w.Int(int64(port))
		c.w.BulkString(state)
		c.w.Int(int64(sh.Last()))
		return
	}
	reps := st.Replicas()
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(int64(sh.Last()))
	c.w.Array(len(reps))
	for _, r := range reps {
		host, port, _ := net.SplitHostPort(r.Announce())
		c.w.Array(3)
		c.w.BulkString(host)
		c.w.BulkString(port)
		c.w.BulkString(strconv.FormatUint(r.Ack(), 10))
	}
}

// replicationInfo is INFO replication for one shard, with Redis's fields
// and the per-shard sequences the coordinators read.
func (s *Server) replicationInfo(sh *shard.Shard) [][2]string {
	// Read before the sequences: a write not in flight now either is in
	// them or will see a pause set before this read (pause.Enter).
	inFlight := s.pause.InFlight()
	now := clock.NowMs()
	st := s.repl.Shard(sh.ID)
	var out [][2]string
	role := s.repl.Role()
	if role == replication.Replica {
		host, port := s.repl.PrimaryHostPort()
		l := st.Link()
		status, lastIO, syncing, linkErr := "down", int64(-1), 0, ""
		if l != nil {
			if l.Status() == "connected" {
				status = "up"
			}
			if t := l.LastIO(); t > 0 {
				lastIO = (now - t) / 1000
			}
			if l.Status() == "sync" {
				syncing = 1
			}
			linkErr = l.Err()
		}
		out = append(out, kv("role", "slave"), kv("master_host", host), kv("master_port", port),
			kv("master_link_status", status), kv("master_last_io_seconds_ago", lastIO),
			kv("master_sync_in_progress", syncing), kv("slave_repl_offset", sh.Last()),
			kv("slave_read_only", 1), kv("replica_announced", 1),
			kv("replica_detached", boolInt(s.repl.Detached())))
		if l != nil {
			out = append(out, kv("master_epoch", l.PrimaryEpoch()), kv("full_copies", l.FullCopies()))
		}
		if linkErr != "" {
			out = append(out, kv("master_link_error", linkErr))
		}
	} else {
		out = append(out, kv("role", "master"))
	}
	reps := st.Replicas()
	out = append(out, kv("connected_slaves", len(reps)))
	for i, r := range reps {
		host, port, _ := net.SplitHostPort(r.Announce())
		lag := (now - r.AckAt()) / 1000
		out = append(out, kv(fmt.Sprintf("slave%d", i),
			fmt.Sprintf("ip=%s,port=%s,state=%s,offset=%d,lag=%d", host, port, r.State(), r.Ack(), lag)))
	}
	cfg := s.Config()
	ls := s.lease.check()
	out = append(out,
		kv("min_slaves_good_slaves", st.GoodReplicas(now, cfg.MinReplicasMaxLag)),
		kv("min_replicas_refusing", boolInt(s.gates[sh.ID].Load() != 0)),
		kv("replication_role", role.String()),
		kv("replication_fenced_by_epoch", s.repl.FencedBy()), kv("replication_lost_records", s.repl.LostRecords()),
		kv("writes_in_flight", inFlight),
		kv("primary_lease", yesNo(cfg.PrimaryLease)),
		kv("primary_lease_grants", ls.Grants), kv("primary_lease_remaining_ms", ls.Remaining.Milliseconds()),
		kv("master_failover_state", "no-failover"),
		kv("master_replid", s.runID), kv("master_repl_offset", sh.Last()))
	if active, size, first, n := st.BacklogStats(); active {
		out = append(out, kv("repl_backlog_active", 1), kv("repl_backlog_size", cfg.Replication.BacklogBytes),
			kv("repl_backlog_bytes", size), kv("repl_backlog_first_sequence", first), kv("repl_backlog_histlen", n))
	} else {
		out = append(out, kv("repl_backlog_active", 0))
	}
	replEpoch := sh.ReplicationEpoch()
	return append(out,
		kv("wal_first_sequence", sh.FirstLogged()),
		kv("epoch", replEpoch), kv("replication_history_id", sh.HistoryID()), kv("wal_last_sequence", sh.Last()),
		kv("wal_durable_sequence", sh.DurableSeq()),
		kv("replication_committed_sequence", st.Committed()))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
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
