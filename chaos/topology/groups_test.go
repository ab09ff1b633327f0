package topology

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/coordinator"
	clustermap "github.com/ruvio/ruvio/ruvio/topology"
)

// clustered is two groups of a primary and a replica, the replica of b
// listed before its primary, and one coordinator.
func clustered() Topology {
	return Topology{Shards: 2, Groups: []ClusterGroup{{Name: "a", Slots: []string{"0-8191"}}, {Name: "b", Slots: []string{"8192-16383"}}},
		Nodes: []NodeSpec{
			{Name: "n1", Role: RoleNode, Group: "a"}, {Name: "n2", Role: RoleNode, Group: "a", ReplicaOf: "n1"},
			{Name: "n4", Role: RoleNode, Group: "b", ReplicaOf: "n3"}, {Name: "n3", Role: RoleNode, Group: "b"},
			{Name: "c1", Role: RoleCoordinator, Args: []string{"coordinator"}},
		}}
}

func TestClusteredTopology(t *testing.T) {
	topo := clustered()
	if err := topo.CheckGroups(); err != nil {
		t.Fatal(err)
	}
	if got := topo.GroupMembers("b"); !reflect.DeepEqual(got, []string{"n3", "n4"}) {
		t.Fatalf("members of b %v, want the primary first", got)
	}
	if got := topo.GroupNames(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("group names %v", got)
	}
	if got := (Topology{}).GroupNames(); !reflect.DeepEqual(got, []string{GroupName}) {
		t.Fatalf("group names of one group %v", got)
	}
	if sub := topo.GroupTopology("b"); len(sub.Nodes) != 2 || sub.Primary() != "n3" || sub.Shards != 2 {
		t.Fatalf("b's topology %+v", sub)
	}
	addr := func(n string) string { return n + ":6379" }
	b, err := topo.ClusterMap(addr)
	if err != nil {
		t.Fatal(err)
	}
	want := "version 1\ngroup a shards 2 members n1:6379 n2:6379 slots 0-8191\ngroup b shards 2 members n3:6379 n4:6379 slots 8192-16383\n"
	if !strings.HasSuffix(string(b), want) {
		t.Fatalf("cluster map:\n%s\nwant it to end with:\n%s", b, want)
	}
	if env := topo.ClusterEnv("n4", "/t"); !reflect.DeepEqual(env, map[string]string{EnvClusterTopology: "/t", EnvClusterGroup: "b"}) {
		t.Fatalf("env %v", env)
	}
	if env := (Topology{}).ClusterEnv("n1", "/t"); env != nil {
		t.Fatalf("env of a topology of one group %v", env)
	}

	l := CoordinatorLayout{Listen: "127.0.0.1:7000", DataDir: t.TempDir(), Secret: "s", Peers: map[string]string{"c1": "127.0.0.1:7000"},
		Members: map[string]coordinator.Member{}}
	for _, n := range topo.DataNodes() {
		l.Members[n] = coordinator.Member{Address: addr(n), Replication: n + ":26379"}
	}
	toml, err := topo.CoordinatorTOML("c1", l)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "coordinator.toml")
	if err := os.WriteFile(path, toml, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := coordinator.LoadConfig(path, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, toml)
	}
	if len(cfg.Groups) != 2 || cfg.Groups[1].Name != "b" || cfg.Groups[1].Shards != 2 ||
		!reflect.DeepEqual(cfg.Groups[1].Slots, []string{"8192-16383"}) || cfg.Groups[1].Members[0].Address != "n3:6379" {
		t.Fatalf("groups %+v", cfg.Groups)
	}
}

func TestCheckGroupsRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Topology)
		want string
	}{
		{"unknown group", func(t *Topology) { t.Nodes[1].Group = "z" }, `names group "z"`},
		{"two primaries", func(t *Topology) { t.Nodes[1].ReplicaOf = "" }, "group a has 2 nodes that follow no one"},
		{"across groups", func(t *Topology) { t.Nodes[2].ReplicaOf = "n1" }, `follows "n1", which is not of its group`},
		{"a slot unowned", func(t *Topology) { t.Groups[1].Slots = []string{"8192-16000"} }, "cluster map"},
		{"a group twice", func(t *Topology) { t.Groups[1].Name = "a" }, `group "a" is listed twice`},
		{"owned env", func(t *Topology) { t.Nodes[0].Env = map[string]string{EnvClusterGroup: "a"} }, "RUVIO_CLUSTER_GROUP"},
		{"group without Groups", func(t *Topology) { t.Groups = nil }, "the topology has no Groups"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := clustered()
			tc.edit(&topo)
			err := topo.CheckGroups()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// A group listed with no slots (one that joins to be rebalanced into)
// is accepted, written as "slots" with nothing after it in the nodes'
// cluster_topology file and as slots = [] in coordinator.toml, and both
// load back as a group that owns nothing.
func TestEmptyGroup(t *testing.T) {
	topo := clustered()
	topo.Groups = append(topo.Groups, ClusterGroup{Name: "c"})
	topo.Nodes = append(topo.Nodes, NodeSpec{Name: "n5", Role: RoleNode, Group: "c"}, NodeSpec{Name: "n6", Role: RoleNode, Group: "c", ReplicaOf: "n5"})
	if err := topo.CheckGroups(); err != nil {
		t.Fatal(err)
	}
	addr := func(n string) string { return n + ":6379" }
	b, err := topo.ClusterMap(addr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "group c shards 2 members n5:6379 n6:6379 slots\n") {
		t.Fatalf("cluster map:\n%s", b)
	}
	m, err := clustermap.Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range m.Groups {
		if g.Name == "c" && len(g.Ranges) != 0 {
			t.Fatalf("c owns %v", g.Ranges)
		}
	}
	l := CoordinatorLayout{Listen: "127.0.0.1:7000", DataDir: t.TempDir(), Secret: "s", Peers: map[string]string{"c1": "127.0.0.1:7000"},
		Members: map[string]coordinator.Member{}}
	for _, n := range topo.DataNodes() {
		l.Members[n] = coordinator.Member{Address: addr(n), Replication: n + ":26379"}
	}
	toml, err := topo.CoordinatorTOML("c1", l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(toml), "Slots = []") && !strings.Contains(string(toml), "slots = []") {
		t.Fatalf("coordinator.toml does not list c with no slots:\n%s", toml)
	}
	path := filepath.Join(t.TempDir(), "coordinator.toml")
	if err := os.WriteFile(path, toml, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := coordinator.LoadConfig(path, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, toml)
	}
	if len(cfg.Groups) != 3 || cfg.Groups[2].Name != "c" || len(cfg.Groups[2].Slots) != 0 || len(cfg.Groups[2].Members) != 2 {
		t.Fatalf("groups %+v", cfg.Groups)
	}
}
