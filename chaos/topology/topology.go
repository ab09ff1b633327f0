// Package topology is the seam between the chaos harness and its backends:
// the nodes a scenario starts, and the running Cluster the faults act on.
package topology

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"
)

// NodeSpec is one process of a topology.
type NodeSpec struct {
	// Name is unique in the topology: "n1", "n2", "c1" ...
	Name string
	// Role is "node" (a data node) or "coordinator".
	Role string
	// Args are the arguments after the binary name, e.g.
	// ["server", "--durability", "always"]. The backend adds the address,
	// port and data directory flags itself.
	Args []string
	// Env is extra environment (RUVIO_* settings). The replication
	// settings (ReplicationEnvKeys) are the backend's, not the scenario's.
	Env map[string]string
	// ReplicaOf names the data node this one follows at start; "" for
	// none. A node that another names is started as the primary of its
	// group. The backend fills in the [replication] settings of both.
	ReplicaOf string
	// Group names the cluster group of a data node in a topology whose
	// groups share the hash slots (Topology.Groups); "" otherwise.
	Group string
}

// Topology is what a scenario starts.
type Topology struct {
	Nodes []NodeSpec
	// Shards per data node (default 1).
	Shards int
	// Coordination is the coordinators' settings when Nodes has some.
	Coordination CoordinatorSettings
	// Groups, when set, make the topology several groups sharing the
	// hash slots (see groups.go): every data node names its group, every
	// node starts with the same cluster_topology file, and the
	// coordinators watch every group.
	Groups []ClusterGroup
	// System is the software the topology runs: SystemRuvio ("", the
	// default) or SystemRedis, whose data nodes are redis-server
	// processes (each NodeSpec.Args line a redis.conf directive) and
	// whose coordinators are Sentinels (down-after-milliseconds from
	// Coordination.DownAfterMs, quorum a majority, Sentinel's defaults
	// otherwise).
	System string
	// TLS puts every link of a ruvio topology on TLS: the data nodes'
	// client ports (Cluster.Addr names their TLS ports; the plain ones
	// stay open but nothing dials them), replication, the coordinators'
	// port and the coordinators' dials of the data nodes. The backend
	// makes a CA and certificates per run (TLSFiles) and its clusters
	// offer TLSCluster.
	TLS bool
}

// TLSCluster is what a cluster of a TLS topology offers: the
// configuration every client of the harness dials its nodes and
// coordinators with.
type TLSCluster interface {
	TLSConfig() *tls.Config
}

// ClientTLS is c's client TLS configuration, nil when c's topology is not
// on TLS.
func ClientTLS(c Cluster) *tls.Config {
	if t, ok := c.(TLSCluster); ok {
		return t.TLSConfig()
	}
	return nil
}

// Systems a topology can run.
const (
	SystemRuvio = ""
	SystemRedis = "redis"
)

// Netem is a degraded link: every chunk of traffic is held Delay plus up
// to Jitter more, and LossPercent of them are lost (on a byte stream:
// held one more retransmission timeout, as TCP's recovery of a lost
// packet shows to the application).
type Netem struct {
	Delay, Jitter time.Duration
	LossPercent   float64
}

// String says the degradation in tc netem's words.
func (n Netem) String() string {
	return fmt.Sprintf("delay %s %s loss %g%%", n.Delay, n.Jitter, n.LossPercent)
}

// Degrader is what a backend's clusters offer to slow links down rather
// than cut them: Degrade applies n to each directed link (in addition to
// those already degraded) until Heal, which restores every link.
type Degrader interface {
	Degrade(ctx context.Context, links []Link, n Netem) error
}

// Replication roles at start, as RUVIO_REPLICATION_ROLE spells them.
const (
	RolePrimary = "primary"
	RoleReplica = "replica"
)

// Replicated reports whether any node of t follows another.
func (t Topology) Replicated() bool {
	for _, n := range t.Nodes {
		if n.ReplicaOf != "" {
			return true
		}
	}
	return false
}

// ReplicationRole is the role node starts in: RoleReplica when it follows
// a node, RolePrimary when another follows it, "" otherwise.
func (t Topology) ReplicationRole(node string) string {
	for _, n := range t.Nodes {
		if n.Name == node && n.ReplicaOf != "" {
			return RoleReplica
		}
	}
	for _, n := range t.Nodes {
		if n.ReplicaOf == node {
			return RolePrimary
		}
	}
	return ""
}

// Primary is the first node of t that starts as a primary, "" when t is
// not replicated.
func (t Topology) Primary() string {
	for _, n := range t.Nodes {
		if t.ReplicationRole(n.Name) == RolePrimary {
			return n.Name
		}
	}
	return ""
}

// CheckReplication rejects what the data node would refuse or a backend
// could not lay out: following an unknown node, a coordinator or itself,
// and chains (the data node refuses a replica of a replica), and
// replication settings in a node's Env, which the backends own.
func (t Topology) CheckReplication() error {
	kind := map[string]string{}
	for _, n := range t.Nodes {
		kind[n.Name] = n.Role
	}
	var errs []error
	for _, n := range t.Nodes {
		for _, k := range ReplicationEnvKeys {
			if _, ok := n.Env[k]; ok {
				errs = append(errs, fmt.Errorf("node %q sets %s, which the backend fills in from ReplicaOf", n.Name, k))
			}
		}
		if n.ReplicaOf == "" {
			continue
		}
		role, known := kind[n.ReplicaOf]
		switch {
		case n.Role == "coordinator":
			errs = append(errs, fmt.Errorf("coordinator %q cannot be a replica", n.Name))
		case n.ReplicaOf == n.Name:
			errs = append(errs, fmt.Errorf("node %q follows itself", n.Name))
		case !known:
			errs = append(errs, fmt.Errorf("node %q follows %q, which is not in the topology", n.Name, n.ReplicaOf))
		case role == "coordinator":
			errs = append(errs, fmt.Errorf("node %q follows coordinator %q", n.Name, n.ReplicaOf))
		case t.ReplicationRole(n.ReplicaOf) == RoleReplica:
			errs = append(errs, fmt.Errorf("node %q follows %q, itself a replica: chains are refused by the data node", n.Name, n.ReplicaOf))
		}
	}
	return errors.Join(errs...)
}

// ReplicationEnvKeys are the [replication] settings a backend fills in for
// every data node of a replicated topology.
var ReplicationEnvKeys = []string{
	"RUVIO_REPLICATION_ROLE", "RUVIO_REPLICATION_LISTEN", "RUVIO_REPLICATION_PRIMARY",
	"RUVIO_REPLICATION_PASSWORD", "RUVIO_REPLICATION_ANNOUNCE",
}

// ReplicationSettings are one node's [replication] settings as a backend
// computed them.
type ReplicationSettings struct {
	// Role is RolePrimary or RoleReplica.
	Role string
	// Listen is the node's replication base address (shard i on port+i).
	Listen string
	// Primary is what a replica dials to reach its primary's replication
	// base address; "" for a primary.
	Primary string
	// Password authenticates replicas; the data node requires one when
	// Listen is not a loopback address.
	Password string
	// Announce is the node's client address, which its primary reports.
	Announce string
}

// Env returns the settings as the node's environment.
func (r ReplicationSettings) Env() map[string]string {
	env := map[string]string{
		"RUVIO_REPLICATION_ROLE":     r.Role,
		"RUVIO_REPLICATION_LISTEN":   r.Listen,
		"RUVIO_REPLICATION_PASSWORD": r.Password,
		"RUVIO_REPLICATION_ANNOUNCE": r.Announce,
	}
	if r.Primary != "" {
		env["RUVIO_REPLICATION_PRIMARY"] = r.Primary
	}
	return env
}

// Client is the pseudo-node name of the workload's side of a link.
const Client = "client"

// Link is one direction of traffic between two topology members (or the
// Client): a partition drops traffic From -> To.
type Link struct{ From, To string }

// Cluster is a running topology on one backend. Every fault method is
// idempotent and safe to call from the nemesis goroutine while the
// workload runs.
type Cluster interface {
	// Backend names the backend: "docker" or "local".
	Backend() string
	// Addr is the address the workload dials to reach a node's shard 0
	// (through the fault proxy on the local backend).
	Addr(node string) string
	// Kill sends SIGKILL; Restart starts the node again on the same data.
	Kill(ctx context.Context, node string) error
	Restart(ctx context.Context, node string) error
	// Pause sends SIGSTOP, Resume SIGCONT. The kernel still accepts TCP
	// connections to a paused process: it is not a partition.
	Pause(ctx context.Context, node string) error
	Resume(ctx context.Context, node string) error
	// Cut drops traffic on the given directed links, in addition to those
	// already cut; Heal restores every link.
	Cut(ctx context.Context, links []Link) error
	Heal(ctx context.Context) error
	// SetClock skews a node's clock with a FAKETIME-style spec ("+0",
	// "-2s", "+0 x1.1", "+500ms x0.9"); "" resets it. It takes effect
	// while the node runs, through the clock package's spec file.
	SetClock(ctx context.Context, node, spec string) error
	// CollectLogs copies every node's log into dir as <node>.log.
	CollectLogs(ctx context.Context, dir string) error
	// Close stops everything the backend started and removes it.
	Close(ctx context.Context) error
}

// Replicated is what a backend's clusters offer besides Cluster so that
// the harness can act as an operator of a replicated group: read every
// shard's INFO replication, and name a node in REPLICAOF. Both backends
// implement it.
type Replicated interface {
	Cluster
	// ShardAddrs are the addresses the harness dials to reach each shard
	// of node, shard 0 (Addr) first.
	ShardAddrs(node string) []string
	// ReplAddr is node's replication base address as other nodes reach
	// it, bypassing any fault proxy (with coordinators: the address their
	// configuration names, which cuts still reach); "" when node does not
	// replicate.
	ReplAddr(node string) string
	// ReplAddrFrom is the address that from must name in REPLICAOF to
	// follow to, so that Cut of the links between them reaches the
	// replication stream: ReplAddr(to) where cuts act on the network
	// (docker), a proxy of the link from -> to where they act on proxies
	// (local).
	ReplAddrFrom(from, to string) (string, error)
}

// Backend starts topologies.
type Backend interface {
	Name() string
	// Start brings up the topology with the ruvio binary at binary; it
	// returns when every node answers PING.
	Start(ctx context.Context, topo Topology, binary string, workDir string) (Cluster, error)
}

// ReadyTimeout bounds how long a backend waits for nodes to answer.
const ReadyTimeout = 30 * time.Second
