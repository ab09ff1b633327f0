package topology

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	clustermap "github.com/ruvio/ruvio/ruvio/topology"
)

// Several groups sharing the hash slots.
//
// A topology with Groups is a cluster of replicated groups: each data
// node names its group (NodeSpec.Group), one node of each group starts
// as its primary and the others follow it (ReplicaOf, inside the group),
// and every data node starts with the same cluster_topology file, the
// first cluster map (version 1), and its cluster_group. The backend
// writes the file with the members' addresses as the coordinators know
// them (Coordinated.MemberAddr) and sets ClusterEnvKeys; the
// coordinators get one [[groups]] table per group, with the topology's
// shards and the group's slots, so that their map and the file agree.

// ClusterGroup is one group of a clustered topology.
type ClusterGroup struct {
	// Name is the group's name in the map and its Sentinel service name.
	Name string
	// Slots are its ranges, as coordinator.toml and the cluster_topology
	// file spell them: "first-last", or "first-last@shard".
	Slots []string
}

// The cluster settings a backend fills in for every data node of a
// clustered topology.
const (
	EnvClusterTopology = "RUVIO_CLUSTER_TOPOLOGY"
	EnvClusterGroup    = "RUVIO_CLUSTER_GROUP"
)

// ClusterEnvKeys are the settings the backend owns in a clustered
// topology; a scenario may not set them.
var ClusterEnvKeys = []string{EnvClusterTopology, EnvClusterGroup}

// Clustered reports whether t's groups share the hash slots.
func (t Topology) Clustered() bool { return len(t.Groups) > 0 }

// GroupNames are the service names the coordinators answer for: the
// groups' names in a clustered topology, else GroupName alone.
func (t Topology) GroupNames() []string {
	if !t.Clustered() {
		return []string{GroupName}
	}
	out := make([]string, len(t.Groups))
	for i, g := range t.Groups {
		out[i] = g.Name
	}
	return out
}

// GroupMembers are the data nodes of group, the one that starts as its
// primary first, then the others in topology order. In a topology that
// is not clustered the group GroupName holds every data node.
func (t Topology) GroupMembers(group string) []string {
	var primary string
	var rest []string
	for _, n := range t.Nodes {
		if n.Role == RoleCoordinator || (t.Clustered() && n.Group != group) || (!t.Clustered() && group != GroupName) {
			continue
		}
		if primary == "" && n.ReplicaOf == "" {
			primary = n.Name
			continue
		}
		rest = append(rest, n.Name)
	}
	if primary == "" {
		return rest
	}
	return append([]string{primary}, rest...)
}

// GroupOf is the group of data node node: its Group in a clustered
// topology, GroupName otherwise; "" for a name that is no data node.
func (t Topology) GroupOf(node string) string {
	for _, n := range t.Nodes {
		if n.Name == node && n.Role != RoleCoordinator {
			if t.Clustered() {
				return n.Group
			}
			return GroupName
		}
	}
	return ""
}

// GroupTopology is the part of t one group is: its data nodes only, as a
// topology of one replicated group (what the harness's operator of a
// group watches).
func (t Topology) GroupTopology(group string) Topology {
	sub := Topology{Shards: t.Shards, Coordination: t.Coordination, System: t.System}
	members := t.GroupMembers(group)
	for _, n := range t.Nodes {
		if slices.Contains(members, n.Name) {
			sub.Nodes = append(sub.Nodes, n)
		}
	}
	return sub
}

// CheckGroups rejects a clustered topology the data nodes or the
// coordinators would refuse: groups unnamed or named twice, a data node
// of no group or of an unknown one, a group that does not have exactly
// one primary with every other member following it, and slots that do
// not make a map (every slot owned by exactly one group). A NodeSpec.Group
// outside a clustered topology is refused too.
func (t Topology) CheckGroups() error {
	var errs []error
	if !t.Clustered() {
		for _, n := range t.Nodes {
			if n.Group != "" {
				errs = append(errs, fmt.Errorf("node %q names group %q, but the topology has no Groups", n.Name, n.Group))
			}
		}
		return errors.Join(errs...)
	}
	for _, n := range t.Nodes {
		for _, k := range ClusterEnvKeys {
			if _, ok := n.Env[k]; ok {
				errs = append(errs, fmt.Errorf("node %q sets %s, which the backend fills in from Groups", n.Name, k))
			}
		}
	}
	known := map[string]bool{}
	for _, g := range t.Groups {
		switch {
		case g.Name == "" || strings.ContainsAny(g.Name, " \t\n#"):
			errs = append(errs, fmt.Errorf("group name %q: want a word", g.Name))
		case known[g.Name]:
			errs = append(errs, fmt.Errorf("group %q is listed twice", g.Name))
		}
		known[g.Name] = true
	}
	groupOf := map[string]string{}
	for _, n := range t.Nodes {
		if n.Role == RoleCoordinator {
			continue
		}
		groupOf[n.Name] = n.Group
		if !known[n.Group] {
			errs = append(errs, fmt.Errorf("data node %q names group %q, which is not in Groups", n.Name, n.Group))
		}
	}
	for _, g := range t.Groups {
		var primaries []string
		for _, n := range t.Nodes {
			if n.Role == RoleCoordinator || n.Group != g.Name {
				continue
			}
			if n.ReplicaOf == "" {
				primaries = append(primaries, n.Name)
			} else if groupOf[n.ReplicaOf] != g.Name {
				errs = append(errs, fmt.Errorf("node %q of group %s follows %q, which is not of its group", n.Name, g.Name, n.ReplicaOf))
			}
		}
		if len(primaries) != 1 {
			errs = append(errs, fmt.Errorf("group %s has %d nodes that follow no one (%v), want its one primary", g.Name, len(primaries), primaries))
		}
	}
	if len(errs) == 0 {
		// Distinct stand-in addresses: what is checked is the slots.
		fake := map[string]string{}
		for i, n := range t.DataNodes() {
			fake[n] = fmt.Sprintf("192.0.2.%d:6379", i+1)
		}
		if _, err := t.ClusterMap(func(n string) string { return fake[n] }); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ClusterMap is the cluster_topology file every data node starts with:
// version 1, one line per group with the topology's shards, its members'
// addresses as addr names them (the primary first) and its slots. It is
// checked with the data node's own parser, so slots that leave a slot
// unowned or owned twice fail here.
func (t Topology) ClusterMap(addr func(node string) string) ([]byte, error) {
	shards := max(t.Shards, 1)
	var b strings.Builder
	b.WriteString("# cluster_topology, written by the chaos harness\nversion 1\n")
	for _, g := range t.Groups {
		fmt.Fprintf(&b, "group %s shards %d members", g.Name, shards)
		for _, n := range t.GroupMembers(g.Name) {
			b.WriteString(" " + addr(n))
		}
		b.WriteString(" slots")
		for _, s := range g.Slots {
			b.WriteString(" " + s)
		}
		b.WriteString("\n")
	}
	if _, err := clustermap.Parse(b.String()); err != nil {
		return nil, fmt.Errorf("the topology's cluster map: %w", err)
	}
	return []byte(b.String()), nil
}

// ClusterEnv is the cluster settings of data node node when the backend
// put the cluster_topology file at path; nil in a topology that is not
// clustered.
func (t Topology) ClusterEnv(node, path string) map[string]string {
	if !t.Clustered() {
		return nil
	}
	return map[string]string{EnvClusterTopology: path, EnvClusterGroup: t.GroupOf(node)}
}
