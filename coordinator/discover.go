package coordinator

import (
	"context"
	"net"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/infotext"
)

// Replica discovery: the leader adds every replica the agreed
// primary lists in INFO replication that the group lacks, with its
// replication address from its own CONFIG GET replication-listen. It
// runs on its own task, so a replica that is slow to answer never delays
// a failover; one that cannot be read is tried again after 30 s.
//
// With node_tls it does not run: a primary lists its replicas' plain
// client addresses, and the members are named by their TLS addresses.

const discoverRetry = 30 * time.Second

func (c *Coordinator) discover() {
	if c.cfg.NodeTLS {
		return
	}
	t := time.NewTicker(max(c.pingInterval(), 200*time.Millisecond))
	defer t.Stop()
	failed := map[string]time.Time{}
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if !c.isLeader() || !c.ready() {
			continue
		}
		for _, g := range c.cfg.Groups {
			rec, _ := c.fsm.get(g.Name)
			if rec.Primary == "" {
				continue
			}
			p := c.prober(rec.Primary)
			if p == nil {
				continue
			}
			st := p.latest.Load()
			if !st.OK || len(st.Shards) == 0 {
				continue
			}
			for _, addr := range st.Shards[0].Replicas {
				if isKnownMember(rec, addr) || !retryDue(failed[addr], time.Now()) {
					continue
				}
				m, runID, err := c.readReplica(addr)
				if err != nil {
					failed[addr] = time.Now()
					c.log.Warn("cannot read a replica the primary lists; trying again in 30 s", "group", g.Name, "replica", addr, "err", err)
					continue
				}
				if c.sameRunID(rec, runID) || !c.confirmLeader() {
					continue
				}
				if err := c.propose(rules.Entry{Op: rules.OpAddMember, Group: g.Name, Member: &m}); err != nil {
					c.log.Warn("recording a discovered replica failed", "group", g.Name, "replica", addr, "err", err)
				}
			}
		}
	}
}

// retryDue reports whether a listed replica last failed to be read at
// failed (zero: never) is read again at now.
func retryDue(failed, now time.Time) bool { return now.Sub(failed) >= discoverRetry }

// isKnownMember reports whether addr is a member, or was forgotten: as
// written, or, when not, under a name that resolves to the same address.
// The names are resolved here, where the leader discovers addresses, and
// the comparison itself (rules.SameAddr) resolves nothing.
func isKnownMember(rec rules.Record, addr string) bool {
	known := append([]string(nil), rec.Forgotten...)
	for _, m := range rec.Members {
		known = append(known, m.Address)
	}
	if rules.AnySameAddr(known, addr) {
		return true
	}
	listed := resolve(addr)
	for _, k := range known {
		for _, r := range resolve(k) {
			if rules.AnySameAddr(listed, r) {
				return true
			}
		}
	}
	return false
}

// sameRunID reports whether a member already reports runID (the same
// node under another name).
func (c *Coordinator) sameRunID(rec rules.Record, runID string) bool {
	if runID == "" {
		return false
	}
	for _, m := range rec.Members {
		if p := c.prober(m.Address); p != nil && p.latest.Load().RunID == runID {
			return true
		}
	}
	return false
}

// resolve lists the ip:port addresses a host:port names (addr itself
// when its host does not resolve).
func resolve(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []string{addr}
	}
	ips, err := net.LookupHost(host)
	if err != nil || len(ips) == 0 {
		return []string{addr}
	}
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = net.JoinHostPort(ip, port)
	}
	return out
}

// readReplica asks a listed replica for its replication address and
// run_id. A replication address on every interface takes the listed host.
func (c *Coordinator) readReplica(addr string) (Member, string, error) {
	t := c.commandTimeout()
	cl := c.dialNode(addr, t, 1)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), t)
	defer cancel()
	listen, err := cl.ConfigGet(ctx, "replication-listen").Result()
	if err != nil {
		return Member{}, "", err
	}
	info, err := cl.Info(ctx, "server").Result()
	if err != nil {
		return Member{}, "", err
	}
	repl := listen["replication-listen"]
	host, port, err := net.SplitHostPort(repl)
	if err != nil {
		return Member{}, "", err
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		lh, _, _ := net.SplitHostPort(addr)
		repl = net.JoinHostPort(lh, port)
	}
	return Member{Address: addr, Replication: repl}, infotext.Parse(info)["run_id"], nil
}
