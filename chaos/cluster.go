// Package chaos runs scenarios: it starts a topology on a backend (Docker
// containers or local processes), drives a workload, injects faults on a
// schedule, and hands the history to the checkers and reports.
package chaos

import (
	"context"
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
	// Env is extra environment (RUVIO_* settings).
	Env map[string]string
}

// Topology is what a scenario starts.
type Topology struct {
	Nodes []NodeSpec
	// Shards per data node (default 1).
	Shards int
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

// Backend starts topologies.
type Backend interface {
	Name() string
	// Start brings up the topology with the ruvio binary at binary; it
	// returns when every node answers PING.
	Start(ctx context.Context, topo Topology, binary string, workDir string) (Cluster, error)
}

// ReadyTimeout bounds how long a backend waits for nodes to answer.
const ReadyTimeout = 30 * time.Second
