package local

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Cluster is a topology running as local processes. Besides
// topology.Coordinated it offers NodeAddrs and Proxy for links other than
// client -> node.
type Cluster struct {
	log     *slog.Logger
	workDir string
	topo    topology.Topology
	// nodes and order are fixed after Start.
	nodes map[string]*node
	order []string
	// password authenticates replicas to primaries.
	password string

	// stopped is set first thing in Close, so a Restart racing Close
	// cannot leave a process behind.
	stopped atomic.Bool

	// mu guards the proxy registries, the cut set and taken.
	mu      sync.Mutex
	proxies map[proxyKey]*Proxy
	// routes are the replication proxies, one set per link.
	routes map[topology.Link]*route
	cuts   map[topology.Link]bool
	// slow are the degraded links (Degrade).
	slow map[topology.Link]topology.Netem
	// taken are the addresses handed to nodes and replication proxies,
	// so that no two of them, nor a node that is down, share a port.
	taken  map[string]bool
	closed bool
	// inbound are the data nodes' shared addresses in a topology with
	// coordinators, handoff the per-link proxies they hand connections
	// to (see inbound.go).
	inbound map[inboundKey]*inbound
	handoff map[proxyKey]*Proxy
	// secret authenticates clients and coordinators to coordinators.
	secret string
	// tlsFiles are the run's CA and certificate in a topology on TLS
	// (nil otherwise); clientTLS is what the harness dials with.
	tlsFiles  *topology.TLSFiles
	clientTLS *tls.Config
	// serveWG counts the inbound accept loops.
	serveWG   sync.WaitGroup
	ownerWarn sync.Once
}

var (
	_ topology.Coordinated = (*Cluster)(nil)
	_ topology.Degrader    = (*Cluster)(nil)
)

// proxyKey names one proxy: a link carries one proxy per target address
// (a node with two shards has two client -> node proxies).
type proxyKey struct {
	link   topology.Link
	target string
}

// Backend returns "local".
func (c *Cluster) Backend() string { return Name }

// Addr is the proxied address of the node's shard 0, or "" for an unknown
// node.
func (c *Cluster) Addr(name string) string {
	if n := c.nodes[name]; n != nil && len(n.clientAddrs) > 0 {
		return n.clientAddrs[0]
	}
	return ""
}

// ShardAddrs are the proxied addresses of every shard of the node, shard 0
// first.
func (c *Cluster) ShardAddrs(name string) []string {
	if n := c.nodes[name]; n != nil {
		return slices.Clone(n.clientAddrs)
	}
	return nil
}

// NodeAddrs are the node's real shard addresses, bypassing every proxy;
// a later topology hands them to peers only through Proxy.
func (c *Cluster) NodeAddrs(name string) []string {
	if n := c.nodes[name]; n != nil {
		return n.addrs()
	}
	return nil
}

// Proxy returns the listen address of the proxy on link from -> to that
// forwards to target, creating it on first use. Connections that from
// opens towards to must dial this address for Cut to reach them: Cut of
// {from, to} stops the proxy's Forward direction, Cut of {to, from} its
// Backward (reply) direction. A proxy created while its link is cut starts
// cut.
func (c *Cluster) Proxy(from, to, target string) (string, error) {
	if err := c.checkLink(topology.Link{From: from, To: to}); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", errors.New("local cluster is closed")
	}
	key := proxyKey{link: topology.Link{From: from, To: to}, target: target}
	if p := c.proxies[key]; p != nil {
		return p.Addr(), nil
	}
	p, err := NewProxy(c.log.With("link", from+"->"+to), "127.0.0.1:0", target)
	if err != nil {
		return "", err
	}
	if c.cuts[key.link] {
		p.Cut(Forward)
	}
	if c.cuts[topology.Link{From: to, To: from}] {
		p.Cut(Backward)
	}
	c.applySlowLocked(key.link, p)
	c.proxies[key] = p
	return p.Addr(), nil
}

// eachProxyLocked calls f with every proxy and its link; c.mu is held.
func (c *Cluster) eachProxyLocked(f func(topology.Link, *Proxy)) {
	for key, p := range c.proxies {
		f(key.link, p)
	}
	for link, r := range c.routes {
		for _, p := range r.proxies {
			f(link, p)
		}
	}
	for key, p := range c.handoff {
		f(key.link, p)
	}
}

// checkLink accepts links between two different known members.
func (c *Cluster) checkLink(l topology.Link) error {
	known := func(s string) bool { return s == topology.Client || c.nodes[s] != nil }
	if !known(l.From) || !known(l.To) || l.From == l.To {
		return fmt.Errorf("local backend: no link %s -> %s in this topology", l.From, l.To)
	}
	return nil
}

func (c *Cluster) node(name string) (*node, error) {
	n := c.nodes[name]
	if n == nil {
		return nil, fmt.Errorf("local backend: no node %q", name)
	}
	return n, nil
}

// Kill sends SIGKILL to the node's process and waits for it to exit. A
// node that is not running is left alone.
func (c *Cluster) Kill(ctx context.Context, name string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.killLocked(ctx)
}

// Restart starts a node that is not running with its original command
// line, on its data, and returns once it answers PING again (the time
// recovery takes is part of the fault). A running node is left alone.
func (c *Cluster) Restart(ctx context.Context, name string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.stopped.Load() {
		return errors.New("local cluster is closed")
	}
	if n.running() {
		return nil
	}
	if err := n.startLocked(); err != nil {
		return err
	}
	if err := n.waitReadyLocked(ctx); err != nil {
		// Leave the node in a known state: down.
		if kerr := n.killLocked(context.WithoutCancel(ctx)); kerr != nil {
			err = errors.Join(err, kerr)
		}
		return err
	}
	return nil
}

// Pause sends SIGSTOP and, on Linux, returns once every thread of the node
// is stopped (the signal is asynchronous: a node can otherwise answer a
// request after Pause returned). It fails with ErrNotRunning on a node
// that is down.
func (c *Cluster) Pause(ctx context.Context, name string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.paused && n.running() {
		return nil
	}
	if err := n.signalLocked(syscall.SIGSTOP); err != nil {
		return err
	}
	n.markLog("chaos-local: node paused (SIGSTOP)")
	c.log.Info("node paused", "node", name)
	return nil
}

// Resume sends SIGCONT. Resuming a node that is down does nothing: it is
// not paused.
func (c *Cluster) Resume(ctx context.Context, name string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.running() {
		return nil
	}
	if err := n.signalLocked(syscall.SIGCONT); err != nil {
		return err
	}
	n.markLog("chaos-local: node resumed (SIGCONT)")
	c.log.Info("node resumed", "node", name)
	return nil
}

// Cut drops traffic on each link, in addition to the links already cut.
// Links are checked first, so an unknown name changes nothing. A link
// that no connection uses yet (no proxy registered) is remembered and
// applies to proxies created later.
func (c *Cluster) Cut(ctx context.Context, links []topology.Link) error {
	for _, l := range links {
		if err := c.checkLink(l); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range links {
		c.cuts[l] = true
		back := topology.Link{From: l.To, To: l.From}
		hit := 0
		c.eachProxyLocked(func(link topology.Link, p *Proxy) {
			switch link {
			case l:
				p.Cut(Forward)
				hit++
			case back:
				p.Cut(Backward)
				hit++
			}
		})
		if hit == 0 {
			c.log.Warn("cut link carries no proxied connection yet", "from", l.From, "to", l.To)
		} else {
			c.log.Info("link cut", "from", l.From, "to", l.To, "proxies", hit)
		}
	}
	return nil
}

// Degrade slows each link down with n (see Proxy.Degrade): the proxies
// of link From -> To in their forward direction, those of To -> From in
// their reply direction; proxies made later on a slowed link start slow.
// Heal restores full speed.
func (c *Cluster) Degrade(ctx context.Context, links []topology.Link, n topology.Netem) error {
	for _, l := range links {
		if err := c.checkLink(l); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range links {
		c.slow[l] = n
		back := topology.Link{From: l.To, To: l.From}
		c.eachProxyLocked(func(link topology.Link, p *Proxy) {
			switch link {
			case l:
				p.Degrade(Forward, n)
			case back:
				p.Degrade(Backward, n)
			}
		})
	}
	c.log.Info("links slowed", "links", len(links), "netem", n.String())
	return nil
}

// applySlowLocked starts a new proxy of link slowed as its link is;
// c.mu is held.
func (c *Cluster) applySlowLocked(link topology.Link, p *Proxy) {
	if n, ok := c.slow[link]; ok {
		p.Degrade(Forward, n)
	}
	if n, ok := c.slow[topology.Link{From: link.To, To: link.From}]; ok {
		p.Degrade(Backward, n)
	}
}

// Heal restores every link; connections that lived through a cut are
// closed (see Proxy).
func (c *Cluster) Heal(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.cuts)
	clear(c.slow)
	c.eachProxyLocked(func(_ topology.Link, p *Proxy) { p.Heal() })
	c.log.Info("links healed")
	return nil
}

// SetClock writes spec to the node's clock file (atomically, by rename),
// which the node's clock package re-reads every 100 ms; "" removes the
// skew. The file outlives restarts, as a machine's clock would. Whether
// spec parses is the clock package's call.
func (c *Cluster) SetClock(ctx context.Context, name, spec string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	if strings.ContainsAny(spec, "\n\r") {
		return fmt.Errorf("local backend: clock spec %q spans lines", spec)
	}
	if err := writeFileAtomic(n.clockPath, []byte(spec)); err != nil {
		return fmt.Errorf("node %s: clock: %w", name, err)
	}
	n.markLog("chaos-local: clock skew set", "spec", spec)
	c.log.Info("clock set", "node", name, "spec", spec)
	return nil
}

// CollectLogs copies every node's log into dir as <node>.log.
func (c *Cluster) CollectLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("collect logs: %w", err)
	}
	var errs []error
	for _, name := range c.order {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("collect logs: %w", err)
		}
		n := c.nodes[name]
		if err := copyFile(n.logPath, filepath.Join(dir, name+".log")); err != nil {
			errs = append(errs, fmt.Errorf("collect logs of %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Close kills every node still running (paused ones too) and closes every
// proxy. The work directory stays, for the logs and data. It is
// idempotent.
func (c *Cluster) Close(ctx context.Context) error {
	c.stopped.Store(true)
	var errs []error
	for _, name := range c.order {
		n := c.nodes[name]
		n.mu.Lock()
		if err := n.killLocked(ctx); err != nil {
			errs = append(errs, err)
		}
		n.mu.Unlock()
	}
	c.mu.Lock()
	c.closed = true
	for _, ib := range c.inbound {
		for _, ln := range ib.lns {
			ln.Close()
		}
	}
	c.inbound = make(map[inboundKey]*inbound)
	c.mu.Unlock()
	// No accept loop may hand a connection to a proxy after this.
	c.serveWG.Wait()
	c.mu.Lock()
	var proxies []*Proxy
	c.eachProxyLocked(func(_ topology.Link, p *Proxy) { proxies = append(proxies, p) })
	c.proxies = make(map[proxyKey]*Proxy)
	c.routes = make(map[topology.Link]*route)
	c.handoff = make(map[proxyKey]*Proxy)
	c.mu.Unlock()
	for _, p := range proxies {
		if err := p.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
