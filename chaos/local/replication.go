package local

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/ruvio/ruvio/chaos/topology"
)

// route is the replication path of one link replica -> primary: a proxy
// per shard, listening on consecutive ports, because the replica dials
// shard i of its primary at the base port + i.
type route struct {
	base    int
	proxies []*Proxy
}

func (r *route) addr() string { return net.JoinHostPort(proxyHost, strconv.Itoa(r.base)) }

// proxyHost is where the harness's proxies listen.
const proxyHost = "127.0.0.1"

// routeAttempts bounds the tries at binding a route's ports, which are
// probed free and then bound, so another program may take one between.
const routeAttempts = 5

// ReplAddr is the node's real replication base address (shard i listens on
// its port + i), bypassing every proxy; with coordinators, its inbound
// replication address, which the coordinators' configuration names and
// which tells the links apart itself. "" for a node that does not
// replicate or is unknown.
func (c *Cluster) ReplAddr(name string) string {
	if c.coordinated() {
		// The coordinators name a member's replication address, the same
		// for every replica: the inbound one.
		return c.memberReplAddr(name)
	}
	if n := c.nodes[name]; n != nil {
		return n.replAddr()
	}
	return ""
}

// ReplAddrFrom is the address from must dial to follow to: with
// coordinators to's inbound replication address, otherwise a set of
// proxies of the link from -> to (one per shard), made on first use, so
// that Cut of {from, to} stops what the replica sends and Cut of {to,
// from} the stream its primary sends. A route made while its link is cut
// starts cut.
func (c *Cluster) ReplAddrFrom(from, to string) (string, error) {
	link := topology.Link{From: from, To: to}
	if err := c.checkLink(link); err != nil {
		return "", err
	}
	if from == topology.Client || to == topology.Client {
		return "", errors.New("local backend: the client does not replicate")
	}
	target := c.nodes[to]
	if target.replPort == 0 {
		return "", fmt.Errorf("local backend: node %s has no replication listener (the topology does not replicate)", to)
	}
	if c.coordinated() {
		// The inbound address tells the links apart itself.
		return c.memberReplAddr(to), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", errors.New("local cluster is closed")
	}
	if r := c.routes[link]; r != nil {
		return r.addr(), nil
	}
	var lastErr error
	for range routeAttempts {
		r, err := c.newRouteLocked(link, target.replAddrs())
		if err == nil {
			c.routes[link] = r
			return r.addr(), nil
		}
		lastErr = err
	}
	return "", fmt.Errorf("local backend: replication proxies for %s -> %s: %w", from, to, lastErr)
}

// newRouteLocked binds one proxy per target on consecutive free ports;
// c.mu is held.
func (c *Cluster) newRouteLocked(link topology.Link, targets []string) (*route, error) {
	base, err := freePorts(proxyHost, len(targets), c.taken)
	if err != nil {
		return nil, err
	}
	r := &route{base: base}
	for i, t := range targets {
		listen := net.JoinHostPort(proxyHost, strconv.Itoa(base+i))
		p, err := NewProxy(c.log.With("link", link.From+"->"+link.To, "replication", true), listen, t)
		if err != nil {
			for _, q := range r.proxies {
				q.Close()
			}
			return nil, err
		}
		if c.cuts[link] {
			p.Cut(Forward)
		}
		if c.cuts[topology.Link{From: link.To, To: link.From}] {
			p.Cut(Backward)
		}
		c.applySlowLocked(link, p)
		r.proxies = append(r.proxies, p)
	}
	for i := range targets {
		c.taken[net.JoinHostPort(proxyHost, strconv.Itoa(base+i))] = true
	}
	return r, nil
}

// newPassword returns a random replication password for one cluster.
func newPassword() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
