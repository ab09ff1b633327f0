package topology

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/BurntSushi/toml"

	"github.com/ruvio/ruvio/coordinator"
)

// Roles of a NodeSpec.
const (
	RoleNode        = "node"
	RoleCoordinator = "coordinator"
)

// GroupName is the Sentinel service name of the one replication group a
// topology with coordinators has: what clients ask the coordinators for.
const GroupName = "main"

// CoordinatorSettings are the coordinator.toml settings a scenario
// chooses; the backend adds ids, addresses, data directories and the
// secret. Zero values take the defaults below, those docs/figures.md
// is measured with.
type CoordinatorSettings struct {
	PingIntervalMs int
	DownAfterMs    int
	// PrimaryLeaseMs is primary_lease_ms (0: the lease is off) and
	// PrimaryLeaseDriftPercent primary_lease_drift_percent (0: the
	// coordinator's default, 10); see docs/lease.md. The data nodes need
	// RUVIO_PRIMARY_LEASE in their Env for the lease to gate writes.
	PrimaryLeaseMs           int
	PrimaryLeaseDriftPercent int
}

// The settings every figure is measured with unless its row says
// otherwise.
const (
	DefaultPingIntervalMs = 200
	DefaultDownAfterMs    = 1000
)

func (s CoordinatorSettings) withDefaults() CoordinatorSettings {
	if s.PingIntervalMs == 0 {
		s.PingIntervalMs = DefaultPingIntervalMs
	}
	if s.DownAfterMs == 0 {
		s.DownAfterMs = DefaultDownAfterMs
	}
	return s
}

// DownAfterMs is the down_after_ms t's coordinators run with (their
// Sentinels' down-after-milliseconds), 0 without coordinators.
func (t Topology) DownAfterMs() int {
	if len(t.Coordinators()) == 0 {
		return 0
	}
	return t.Coordination.withDefaults().DownAfterMs
}

// Coordinators are the names of t's coordinators in topology order.
func (t Topology) Coordinators() []string {
	var out []string
	for _, n := range t.Nodes {
		if n.Role == RoleCoordinator {
			out = append(out, n.Name)
		}
	}
	return out
}

// DataNodes are the names of t's data nodes in topology order.
func (t Topology) DataNodes() []string {
	var out []string
	for _, n := range t.Nodes {
		if n.Role != RoleCoordinator {
			out = append(out, n.Name)
		}
	}
	return out
}

// CoordinatorID is the id coordinator name has in coordinator.toml: its
// place among t's coordinators, from 1; 0 for a name that is not one.
func (t Topology) CoordinatorID(name string) int {
	for i, c := range t.Coordinators() {
		if c == name {
			return i + 1
		}
	}
	return 0
}

// CheckCoordinators rejects coordinators a backend could not configure:
// they watch the topology's one replicated group, so there must be one.
func (t Topology) CheckCoordinators() error {
	if len(t.Coordinators()) == 0 {
		return nil
	}
	var errs []error
	if !t.Replicated() {
		errs = append(errs, errors.New("coordinators need a replicated group to watch (a data node with ReplicaOf)"))
	}
	for _, n := range t.Nodes {
		if n.Role == RoleCoordinator && (len(n.Env) > 0 || len(n.Args) > 1 || len(n.Args) == 1 && n.Args[0] != "coordinator") {
			errs = append(errs, fmt.Errorf("coordinator %q: the backend writes its command line and coordinator.toml; set Topology.Coordination instead", n.Name))
		}
	}
	return errors.Join(errs...)
}

// CoordinatorLayout is where a backend put one coordinator and how it
// reaches everything else, the input of CoordinatorTOML.
type CoordinatorLayout struct {
	// Listen is the coordinator's own listen address; DataDir its Raft
	// directory.
	Listen, DataDir string
	// Peers maps every coordinator (itself included) to the address this
	// one dials to reach it: ids must agree between coordinators,
	// addresses may differ (a proxy per link).
	Peers map[string]string
	// Members maps every data node to its address and replication address
	// as the coordinators reach them. These must be the same strings in
	// every coordinator's file: the Raft record names the primary by
	// them.
	Members map[string]coordinator.Member
	// Secret authenticates clients and coordinators to each other.
	Secret string
	// TLS, when set, puts the coordinator's port on TLS and its dials of
	// the data nodes too (node_tls: Members then name TLS addresses).
	TLS *TLSFiles
	// TLSWritten, when set, are the paths the file names instead of TLS's:
	// where a container finds the same files. TLS's are the ones checked.
	TLSWritten *TLSFiles
}

// CoordinatorTOML is coordinator.toml for coordinator name laid out as l:
// the scenario's ping_interval_ms, down_after_ms and lease settings over
// the coordinator's defaults, one group GroupName whose members are the
// data nodes in topology order, or in a clustered topology one group per
// ClusterGroup with its members (the primary first), shards and slots. The file is checked with the coordinator's own
// Validate, so a layout it would refuse fails here, naming the key.
func (t Topology) CoordinatorTOML(name string, l CoordinatorLayout) ([]byte, error) {
	id := t.CoordinatorID(name)
	if id == 0 {
		return nil, fmt.Errorf("%q is not a coordinator of the topology", name)
	}
	s := t.Coordination.withDefaults()
	cfg := coordinator.DefaultConfig()
	cfg.ID, cfg.Listen, cfg.DataDir, cfg.Secret = id, l.Listen, l.DataDir, l.Secret
	cfg.PingIntervalMs, cfg.DownAfterMs = s.PingIntervalMs, s.DownAfterMs
	cfg.PrimaryLeaseMs = s.PrimaryLeaseMs
	if l.TLS != nil {
		cfg.TLSCert, cfg.TLSKey, cfg.TLSCA, cfg.NodeTLS = l.TLS.Cert, l.TLS.Key, l.TLS.CA, true
	}
	if s.PrimaryLeaseDriftPercent != 0 {
		cfg.PrimaryLeaseDriftPercent = s.PrimaryLeaseDriftPercent
	}
	for _, c := range t.Coordinators() {
		addr, ok := l.Peers[c]
		if !ok {
			return nil, fmt.Errorf("coordinator %s: no address for peer %s", name, c)
		}
		cfg.Peers = append(cfg.Peers, strconv.Itoa(t.CoordinatorID(c))+"@"+addr)
	}
	if !t.Clustered() {
		g := coordinator.Group{Name: GroupName}
		for _, n := range t.DataNodes() {
			m, ok := l.Members[n]
			if !ok {
				return nil, fmt.Errorf("coordinator %s: no address for member %s", name, n)
			}
			g.Members = append(g.Members, m)
		}
		cfg.Groups = []coordinator.Group{g}
	}
	for _, cg := range t.Groups {
		// The primary first, as in the nodes' cluster_topology file.
		g := coordinator.Group{Name: cg.Name, Shards: max(t.Shards, 1), Slots: append([]string{}, cg.Slots...)}
		for _, n := range t.GroupMembers(cg.Name) {
			m, ok := l.Members[n]
			if !ok {
				return nil, fmt.Errorf("coordinator %s: no address for member %s", name, n)
			}
			g.Members = append(g.Members, m)
		}
		cfg.Groups = append(cfg.Groups, g)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("coordinator %s: %w", name, err)
	}
	if l.TLS != nil && l.TLSWritten != nil {
		cfg.TLSCert, cfg.TLSKey, cfg.TLSCA = l.TLSWritten.Cert, l.TLSWritten.Key, l.TLSWritten.CA
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# coordinator.toml of %s, written by the chaos harness\n", name)
	if err := toml.NewEncoder(&b).Encode(cfg); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Coordinated is what a backend's clusters offer besides Replicated when
// their topology runs coordinators. Addr of a coordinator is where the
// harness reaches its client API (Sentinel commands, COORDINATOR).
type Coordinated interface {
	Replicated
	// CoordinatorSecret is what clients AUTH with on a coordinator.
	CoordinatorSecret() string
	// MemberAddr is the address the coordinators' configuration gives
	// data node node: what SENTINEL GET-MASTER-ADDR-BY-NAME answers when
	// it is the primary, and what a Sentinel client then dials.
	MemberAddr(node string) string
}
