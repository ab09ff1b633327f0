package coordinator

import (
	"context"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/infotext"
)

// Replica discovery (C-DISC): the leader adds every replica the agreed
// primary lists in INFO replication that the group lacks, with its
// replication address from its own CONFIG GET replication-listen. It
// runs on its own task, so a replica that is slow to answer never delays
// a failover; one that cannot be read is tried again after 30 s.

const discoverRetry = 30 * time.Second

func (c *Coordinator) discover() {
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
				if c.isKnownMember(rec, addr) || time.Since(failed[addr]) < discoverRetry {
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
				if err := c.propose(entry{Op: "add-member", Group: g.Name, Member: &m}); err != nil {
					c.log.Warn("recording a discovered replica failed", "group", g.Name, "replica", addr, "err", err)
				}
			}
		}
	}
}

// isKnownMember reports whether addr is a member, or was forgotten, under any
// name that resolves to the same address.
func (c *Coordinator) isKnownMember(rec Record, addr string) bool {
	for _, m := range rec.Members {
		if sameResolved(m.Address, addr) {
			return true
		}
	}
	for _, f := range rec.Forgotten {
		if sameResolved(f, addr) {
			return true
		}
	}
	return false
}

// sameRunID reports whether a member already reports runID (the same
// node under another name).
func (c *Coordinator) sameRunID(rec Record, runID string) bool {
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

// sameResolved compares two host:port addresses after resolving hosts.
func sameResolved(a, b string) bool {
	if a == b {
		return true
	}
	ah, ap, err1 := net.SplitHostPort(a)
	bh, bp, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil || ap != bp {
		return false
	}
	aa, _ := net.LookupHost(ah)
	bb, _ := net.LookupHost(bh)
	for _, x := range aa {
		for _, y := range bb {
			if x == y {
				return true
			}
		}
	}
	return false
}

// readReplica asks a listed replica for its replication address and
// run_id. A replication address on every interface takes the listed host.
func (c *Coordinator) readReplica(addr string) (Member, string, error) {
	user, pass := c.cfg.authArgs()
	t := c.commandTimeout()
	cl := redis.NewClient(&redis.Options{Addr: addr, Username: user, Password: pass, DialTimeout: t, ReadTimeout: t,
		MaxRetries: -1, Protocol: 2, DisableIdentity: true})
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
