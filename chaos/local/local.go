// Package local is the chaos backend that runs a topology as processes on
// this machine, every link through a fault Proxy: no Docker, no root.
package local

// This package is the chaos backend that runs a topology as processes on
// this machine: node i listens on 127.0.0.<i+2> (or on 127.0.0.1 with its
// own ports where only that address exists), and every link a scenario may
// cut goes through a fault Proxy, so partitions work without Docker or root.
// It is what `go test` and machines without a Docker engine use.
//
// Faults map to the process and the proxies: Kill is SIGKILL, Restart runs
// the same command line on the same data directory, Pause/Resume are
// SIGSTOP/SIGCONT (the kernel keeps accepting connections to a stopped
// process: that is not a partition), SetClock rewrites the file named by
// RUVIO_FAKETIME_FILE, which the node's clock package re-reads, and
// Cut/Heal act on the proxies (see Proxy for what a cut looks like and the
// limits of one-way cuts on TCP streams).
//
// Replication: in a topology where nodes follow others (NodeSpec.ReplicaOf)
// every data node gets a replication listener on its own address and
// consecutive free ports, a password, and its client address to announce;
// a replica dials its primary through a proxy of the link replica ->
// primary (one per shard, on consecutive ports, as the data node derives
// shard i's port from the base), so Cut reaches the replication streams
// too. ReplAddrFrom hands out the same kind of proxy for REPLICAOF at run
// time.
//
// Coordinators (NodeSpec.Role "coordinator") run as processes with a
// coordinator.toml the backend writes; they reach each other through a
// proxy per link and the data nodes at shared inbound addresses that still
// cut per link (see inbound.go for why and how).
//
// Limit: the workload reaches a node through Addr, the proxy of shard 0
// (ShardAddrs lists one proxy per shard). A cluster-aware client that asks
// CLUSTER SLOTS or follows MOVED learns the node's real ports and bypasses
// the proxies, so its traffic is not cut. Workloads must dial the proxied
// addresses only.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Name is the backend's name in flags and summaries.
const Name = "local"

// backend starts local clusters.
type backend struct{ log *slog.Logger }

// New returns the local backend. log receives the harness's own events
// (starts, kills, cuts); the nodes log to <workDir>/<name>.log.
func New(log *slog.Logger) topology.Backend {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &backend{log: log.With("backend", Name)}
}

// Name returns "local".
func (b *backend) Name() string { return Name }

// ownedEnv are the settings the backend decides per node; the scenario may
// not set them, and inherited values are dropped because the node's
// configuration lets the environment override flags.
var ownedEnv = []string{"RUVIO_BIND", "RUVIO_PORT", "RUVIO_SHARDS", "RUVIO_DATA_DIR", "RUVIO_FAKETIME", "RUVIO_FAKETIME_FILE"}

// bindRetries is how many times Start picks new ports for a node whose
// ports another program took between the probe and the node's bind.
const bindRetries = 3

// Start runs every node of topo with binary, under workDir (created if
// needed): node "n1" keeps its data in workDir/n1/data, its log in
// workDir/n1.log and its clock skew in workDir/n1.faketime. It returns
// once every shard of every node answers PING, within topology.ReadyTimeout.
// On failure everything started is stopped again.
func (b *backend) Start(ctx context.Context, topo topology.Topology, binary, workDir string) (topology.Cluster, error) {
	if err := validate(topo); err != nil {
		return nil, err
	}
	shards := topo.Shards
	if shards == 0 {
		shards = 1
	}
	bin, err := filepath.Abs(binary)
	if err != nil {
		return nil, fmt.Errorf("local backend: binary: %w", err)
	}
	if st, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("local backend: binary: %w", err)
	} else if st.IsDir() {
		return nil, fmt.Errorf("local backend: binary %s is a directory", bin)
	}
	dir, err := filepath.Abs(workDir)
	if err != nil {
		return nil, fmt.Errorf("local backend: work dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("local backend: work dir: %w", err)
	}

	c := &Cluster{
		log:      b.log,
		workDir:  dir,
		topo:     topo,
		nodes:    make(map[string]*node),
		proxies:  make(map[proxyKey]*Proxy),
		routes:   make(map[topology.Link]*route),
		cuts:     make(map[topology.Link]bool),
		slow:     make(map[topology.Link]topology.Netem),
		taken:    make(map[string]bool),
		password: newPassword(),
		inbound:  make(map[inboundKey]*inbound),
		handoff:  make(map[proxyKey]*Proxy),
	}
	if c.coordinated() {
		c.secret = newPassword()
	}
	if topo.TLS {
		if err := c.makeTLS(dir); err != nil {
			return nil, err
		}
	}
	for i, spec := range topo.Nodes {
		n, err := c.newNode(i, spec, shards, bin)
		if err != nil {
			c.Close(context.WithoutCancel(ctx))
			return nil, err
		}
		n.tls = c.clientTLS
		c.nodes[spec.Name] = n
		c.order = append(c.order, spec.Name)
	}
	if c.coordinated() {
		// Every member reaches a data node at its inbound addresses,
		// which the nodes' own environment names too.
		for _, name := range topo.DataNodes() {
			n := c.nodes[name]
			err := c.newInbound(n, false, n.addrs())
			if !n.redis {
				err = errors.Join(err, c.newInbound(n, true, n.replAddrs()))
			}
			if err != nil {
				c.Close(context.WithoutCancel(ctx))
				return nil, err
			}
		}
		if c.redisSystem() {
			// Sentinels find each other by what they announce, one
			// address each: their inbound ones.
			for _, name := range topo.Coordinators() {
				n := c.nodes[name]
				if err := c.newInbound(n, false, n.addrs()); err != nil {
					c.Close(context.WithoutCancel(ctx))
					return nil, err
				}
			}
		}
	}
	if topo.Clustered() {
		if err := c.writeClusterMap(); err != nil {
			c.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	// A replica's environment names a proxy to its primary, and a
	// coordinator's file every member's address, so every node's ports
	// are known before any environment is made.
	for _, name := range c.order {
		if err := c.prepare(c.nodes[name]); err != nil {
			c.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	// Start every process before waiting for any, so their recoveries
	// overlap.
	for _, name := range c.order {
		n := c.nodes[name]
		n.mu.Lock()
		err := n.startLocked()
		n.mu.Unlock()
		if err != nil {
			c.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	for _, name := range c.order {
		if err := c.awaitFirstStart(ctx, c.nodes[name]); err != nil {
			c.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	for _, name := range c.order {
		n := c.nodes[name]
		for _, target := range n.addrs() {
			addr, err := c.Proxy(topology.Client, name, target)
			if err != nil {
				c.Close(context.WithoutCancel(ctx))
				return nil, err
			}
			n.clientAddrs = append(n.clientAddrs, addr)
		}
	}
	c.log.Info("local cluster ready", "nodes", len(c.order), "shards", shards, "work_dir", dir)
	return c, nil
}

// validate rejects topologies the backend cannot lay out on disk.
func validate(topo topology.Topology) error {
	if len(topo.Nodes) == 0 {
		return errors.New("local backend: topology has no nodes")
	}
	if topo.Shards < 0 {
		return fmt.Errorf("local backend: shards = %d", topo.Shards)
	}
	seen := make(map[string]bool)
	for _, spec := range topo.Nodes {
		name := spec.Name
		switch {
		case name == "" || name == topology.Client || name == "." || name == "..":
			return fmt.Errorf("local backend: invalid node name %q", name)
		case strings.ContainsAny(name, `/\`+"\x00"):
			return fmt.Errorf("local backend: node name %q must not contain a path separator", name)
		case seen[name]:
			return fmt.Errorf("local backend: node %q appears twice", name)
		}
		seen[name] = true
		for _, k := range ownedEnv {
			if _, ok := spec.Env[k]; ok {
				return fmt.Errorf("local backend: node %q sets %s, which the backend owns", name, k)
			}
		}
	}
	if topo.TLS && topo.System == topology.SystemRedis {
		return errors.New("local backend: a topology on TLS runs ruvio only")
	}
	if err := errors.Join(topo.CheckReplication(), topo.CheckCoordinators(), topo.CheckGroups()); err != nil {
		return fmt.Errorf("local backend: %w", err)
	}
	return nil
}

// newNode lays out node i: address, ports, directories and clock file;
// setEnv makes its environment once every node has its ports.
func (c *Cluster) newNode(i int, spec topology.NodeSpec, shards int, bin string) (*node, error) {
	ns := shards
	if spec.Role == topology.RoleCoordinator {
		// A coordinator has one listener whatever the data nodes' shard
		// count.
		ns = 1
	}
	n := &node{
		spec:      spec,
		ip:        loopbackIP(i, canBind),
		shards:    ns,
		binary:    bin,
		dataDir:   filepath.Join(c.workDir, spec.Name, "data"),
		logPath:   filepath.Join(c.workDir, spec.Name+".log"),
		clockPath: filepath.Join(c.workDir, spec.Name+".faketime"),
		log:       c.log,
	}
	if spec.Role == topology.RoleCoordinator {
		n.configPath = filepath.Join(c.workDir, spec.Name, "coordinator.toml")
		n.secret = c.secret
	}
	if c.redisSystem() {
		rb, err := redisBinary()
		if err != nil {
			return nil, err
		}
		n.redis, n.binary = true, rb
		n.configPath = filepath.Join(c.workDir, spec.Name, "redis.conf")
		if spec.Role == topology.RoleCoordinator {
			n.configPath = filepath.Join(c.workDir, spec.Name, "sentinel.conf")
		}
	}
	if c.topo.Replicated() && spec.Role != topology.RoleCoordinator {
		// Every data node of a replicated group listens for replicas,
		// the replicas too: REPLICAOF NO ONE may promote any of them.
		n.role = c.topo.ReplicationRole(spec.Name)
		if n.role == "" {
			n.role = topology.RolePrimary
		}
	}
	if err := c.pickPorts(n); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(n.dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("node %s: data dir: %w", spec.Name, err)
	}
	// An empty file means no skew; a file left by an earlier run in the
	// same work dir is reset.
	if err := os.WriteFile(n.clockPath, nil, 0o644); err != nil {
		return nil, fmt.Errorf("node %s: clock file: %w", spec.Name, err)
	}
	return n, nil
}

// pickPorts gives n consecutive free ports for its shards (and as many for
// its replication listeners) and records them as taken.
func (c *Cluster) pickPorts(n *node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	port, err := freePorts(n.ip, n.shards, c.taken)
	if err != nil {
		return fmt.Errorf("node %s: %w", n.spec.Name, err)
	}
	n.port = port
	for _, a := range n.plainAddrs() {
		c.taken[a] = true
	}
	if c.tlsFiles != nil && !n.coordinator() && !n.redis {
		if n.tlsPort, err = freePorts(n.ip, n.shards, c.taken); err != nil {
			return fmt.Errorf("node %s: tls: %w", n.spec.Name, err)
		}
		for _, a := range n.addrs() {
			c.taken[a] = true
		}
	}
	if n.role == "" || n.redis {
		return nil
	}
	if n.replPort, err = freePorts(n.ip, n.shards, c.taken); err != nil {
		return fmt.Errorf("node %s: replication: %w", n.spec.Name, err)
	}
	for _, a := range n.replAddrs() {
		c.taken[a] = true
	}
	return nil
}

// prepare makes n's environment and, for a coordinator, its
// coordinator.toml.
func (c *Cluster) prepare(n *node) error {
	if n.redis {
		n.env = nodeEnv(os.Environ(), nil, n.clockPath)
		return c.writeRedisConfig(n)
	}
	if err := c.setEnv(n); err != nil {
		return err
	}
	if n.coordinator() {
		return c.writeCoordinatorConfig(n)
	}
	return nil
}

// setEnv makes n's environment: the scenario's settings, and in a
// replicated topology the [replication] ones, a replica's primary through
// the proxy of its link. With coordinators a node announces its inbound
// address, the one the coordinators know it by, so that they recognise
// the replicas its primary lists.
func (c *Cluster) setEnv(n *node) error {
	extra := n.spec.Env
	if env := c.topo.ClusterEnv(n.spec.Name, c.clusterMapPath()); env != nil && !n.coordinator() {
		extra = maps.Clone(extra)
		if extra == nil {
			extra = map[string]string{}
		}
		maps.Copy(extra, env)
	}
	if n.role != "" {
		rs := topology.ReplicationSettings{Role: n.role, Listen: n.replAddr(), Password: c.password, Announce: n.addrs()[0]}
		if c.coordinated() {
			rs.Announce = c.MemberAddr(n.spec.Name)
		}
		if n.role == topology.RoleReplica {
			addr, err := c.ReplAddrFrom(n.spec.Name, n.spec.ReplicaOf)
			if err != nil {
				return err
			}
			rs.Primary = addr
		}
		extra = maps.Clone(extra)
		if extra == nil {
			extra = map[string]string{}
		}
		maps.Copy(extra, rs.Env())
	}
	if !n.coordinator() {
		// Every data node serves its metrics, which the runner scrapes.
		addr, err := c.freeMetricsAddr()
		if err != nil {
			return err
		}
		extra = maps.Clone(extra)
		if extra == nil {
			extra = map[string]string{}
		}
		extra["RUVIO_METRICS_LISTEN"] = addr
		n.metricsAddr.Store(&addr)
		if c.tlsFiles != nil {
			maps.Copy(extra, c.tlsFiles.TLSEnv(n.tlsPort))
		}
	}
	n.env = nodeEnv(os.Environ(), extra, n.clockPath)
	return nil
}

// nodeEnv is the inherited environment without any RUVIO_* variable (so a
// developer's shell cannot silently change a scenario: the node lets the
// environment override its flags), then the scenario's settings in a
// stable order, then the clock file.
func nodeEnv(inherited []string, extra map[string]string, clockPath string) []string {
	env := make([]string, 0, len(inherited)+len(extra)+1)
	for _, kv := range inherited {
		if !strings.HasPrefix(kv, "RUVIO_") {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return append(env, "RUVIO_FAKETIME_FILE="+clockPath)
}

// awaitFirstStart waits for a node started by Start; if it could not bind
// because its ports were taken meanwhile, it tries new ports (and points
// its peers' proxies at them).
func (c *Cluster) awaitFirstStart(ctx context.Context, n *node) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	for attempt := 1; ; attempt++ {
		err := n.waitReadyLocked(ctx)
		if err == nil {
			return nil
		}
		if attempt >= bindRetries || n.running() || !strings.Contains(tail(n.logPath, 5), "address already in use") {
			return err
		}
		c.log.Warn("node ports taken, picking others", "node", n.spec.Name, "port", n.port)
		old := append(n.addrs(), n.replAddrs()...)
		if err := c.pickPorts(n); err != nil {
			return err
		}
		if err := c.prepare(n); err != nil {
			return err
		}
		c.retargetTo(old, append(n.addrs(), n.replAddrs()...))
		if err := n.startLocked(); err != nil {
			return err
		}
	}
}

// clusterMapPath is where a clustered topology's cluster_topology file
// is: one for every data node, as on machines that share it.
func (c *Cluster) clusterMapPath() string { return filepath.Join(c.workDir, "cluster_topology") }

// writeClusterMap writes the cluster_topology file of a clustered
// topology, naming each member by the address the coordinators know it
// by (its own shard 0 address when there are no coordinators).
func (c *Cluster) writeClusterMap() error {
	b, err := c.topo.ClusterMap(func(name string) string {
		if a := c.MemberAddr(name); a != "" {
			return a
		}
		return c.nodes[name].addrs()[0]
	})
	if err != nil {
		return fmt.Errorf("local backend: %w", err)
	}
	return writeFileAtomic(c.clusterMapPath(), b)
}
