package local

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/coordinator"
)

// Coordinators and the addresses they share.
//
// The coordinators' Raft record names a group's primary by the member
// address their configuration lists, so every coordinator must know a
// data node by the same address: a proxy per link, each on its own port,
// cannot serve them. Instead each data node of a topology with
// coordinators gets two inbound address sets on the harness's proxy host,
// one for its client ports and one for its replication ports (a port per
// shard, consecutive, as the node derives shard i's port from the base).
// Every member reaches the node there: the coordinators through their
// configuration, the replicas through RUVIO_REPLICATION_PRIMARY and
// REPLICAOF, a Sentinel client through what the coordinators answer.
// An inbound listener tells which member opened a connection by the
// process that holds its other end (socketOwner), and hands it to the
// proxy of that link, so Cut of {member, node} acts on exactly that
// member's connections, as an iptables rule on its source address would.
// Connections of no member's process are the harness's: topology.Client.
//
// Coordinators reach each other through a proxy per link (Proxy), which
// their configuration allows: peers list how each one reaches the others.

// inbound is one node's shared address set for one kind of port.
type inbound struct {
	node string
	lns  []net.Listener
	base int

	mu      sync.Mutex
	targets []string
}

func (ib *inbound) addr() string { return net.JoinHostPort(proxyHost, strconv.Itoa(ib.base)) }

func (ib *inbound) target(shard int) string {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return ib.targets[shard]
}

// inboundKey names an inbound set: the node and whether it leads to its
// replication ports.
type inboundKey struct {
	node string
	repl bool
}

// coordinated says whether the topology runs coordinators.
func (c *Cluster) coordinated() bool { return len(c.topo.Coordinators()) > 0 }

// newInbound opens node n's inbound set towards targets and starts
// serving it.
func (c *Cluster) newInbound(n *node, repl bool, targets []string) error {
	var lastErr error
	for range routeAttempts {
		c.mu.Lock()
		base, err := freePorts(proxyHost, len(targets), c.taken)
		if err != nil {
			c.mu.Unlock()
			return err
		}
		ib := &inbound{node: n.spec.Name, base: base, targets: append([]string(nil), targets...)}
		for i := range targets {
			ln, err := net.Listen("tcp", net.JoinHostPort(proxyHost, strconv.Itoa(base+i)))
			if err != nil {
				lastErr = err
				break
			}
			ib.lns = append(ib.lns, ln)
		}
		if len(ib.lns) < len(targets) {
			for _, ln := range ib.lns {
				ln.Close()
			}
			c.mu.Unlock()
			continue
		}
		for i := range targets {
			c.taken[net.JoinHostPort(proxyHost, strconv.Itoa(base+i))] = true
		}
		c.inbound[inboundKey{node: n.spec.Name, repl: repl}] = ib
		c.mu.Unlock()
		for i, ln := range ib.lns {
			c.serveWG.Add(1)
			go c.serveInbound(ib, i, ln)
		}
		return nil
	}
	return fmt.Errorf("local backend: inbound addresses of %s: %w", n.spec.Name, lastErr)
}

// serveInbound accepts on one shard's listener of ib until it closes.
func (c *Cluster) serveInbound(ib *inbound, shard int, ln net.Listener) {
	defer c.serveWG.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			c.log.Warn("inbound accept failed", "node", ib.node, "err", err)
			continue
		}
		from := c.member(conn)
		if from == ib.node {
			// A node reaching itself through its own address: no link
			// to cut, but the proxy machinery wants two ends.
			from = topology.Client
		}
		p, err := c.handoffProxy(topology.Link{From: from, To: ib.node}, ib.target(shard))
		if err != nil {
			conn.Close()
			continue
		}
		p.admit(conn)
	}
}

// member names the member whose process opened conn, topology.Client for
// any other (the harness's own clients).
func (c *Cluster) member(conn net.Conn) string {
	pids := make(map[int]string, len(c.order))
	for _, name := range c.order {
		if pid := c.nodes[name].pid.Load(); pid != 0 {
			pids[int(pid)] = name
		}
	}
	name, err := socketOwner(conn, pids)
	if err != nil {
		c.ownerWarn.Do(func() {
			c.log.Warn("cannot tell which member opened a connection; counting it as the harness's", "err", err)
		})
	}
	if name == "" {
		return topology.Client
	}
	return name
}

// handoffProxy returns the listener-less proxy of link towards target,
// making it (cut as the link is) on first use.
func (c *Cluster) handoffProxy(link topology.Link, target string) (*Proxy, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("local cluster is closed")
	}
	key := proxyKey{link: link, target: target}
	if p := c.handoff[key]; p != nil {
		return p, nil
	}
	p := newHandoffProxy(c.log.With("link", link.From+"->"+link.To, "inbound", true), target)
	if c.cuts[link] {
		p.Cut(Forward)
	}
	if c.cuts[topology.Link{From: link.To, To: link.From}] {
		p.Cut(Backward)
	}
	c.applySlowLocked(link, p)
	c.handoff[key] = p
	return p, nil
}

// MemberAddr is the address every coordinator knows data node name by,
// its inbound client address; "" without coordinators.
func (c *Cluster) MemberAddr(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ib := c.inbound[inboundKey{node: name}]; ib != nil {
		return ib.addr()
	}
	return ""
}

// memberReplAddr is node name's inbound replication address.
func (c *Cluster) memberReplAddr(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ib := c.inbound[inboundKey{node: name, repl: true}]; ib != nil {
		return ib.addr()
	}
	return ""
}

// CoordinatorSecret is what clients AUTH with on the coordinators.
func (c *Cluster) CoordinatorSecret() string { return c.secret }

// writeCoordinatorConfig writes coordinator n's coordinator.toml: it
// listens on its own address, reaches the other coordinators through a
// proxy per link and the data nodes at their inbound addresses.
func (c *Cluster) writeCoordinatorConfig(n *node) error {
	l := topology.CoordinatorLayout{Listen: n.addrs()[0], DataDir: n.dataDir, Secret: c.secret,
		Peers: map[string]string{}, Members: map[string]coordinator.Member{}, TLS: c.tlsFiles}
	for _, name := range c.topo.Coordinators() {
		if name == n.spec.Name {
			l.Peers[name] = n.addrs()[0]
			continue
		}
		addr, err := c.Proxy(n.spec.Name, name, c.nodes[name].addrs()[0])
		if err != nil {
			return err
		}
		l.Peers[name] = addr
	}
	for _, name := range c.topo.DataNodes() {
		l.Members[name] = coordinator.Member{Address: c.MemberAddr(name), Replication: c.memberReplAddr(name)}
	}
	b, err := c.topo.CoordinatorTOML(n.spec.Name, l)
	if err != nil {
		return fmt.Errorf("local backend: %w", err)
	}
	return writeFileAtomic(n.configPath, b)
}

// retargetTo points every proxy and inbound address leading to old at
// now, after Start had to move a node to other ports.
func (c *Cluster) retargetTo(old, now []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	to := map[string]string{}
	for i := range old {
		if i < len(now) {
			to[old[i]] = now[i]
		}
	}
	c.eachProxyLocked(func(_ topology.Link, p *Proxy) {
		if t, ok := to[p.Target()]; ok {
			p.Retarget(t)
		}
	})
	for _, ib := range c.inbound {
		ib.mu.Lock()
		for i, t := range ib.targets {
			if nt, ok := to[t]; ok {
				ib.targets[i] = nt
			}
		}
		ib.mu.Unlock()
	}
}
