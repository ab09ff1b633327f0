package topology

import (
	"strings"
	"testing"
)

func TestReplicationRoles(t *testing.T) {
	topo := Topology{Nodes: []NodeSpec{
		{Name: "n1", Role: "node"}, {Name: "n2", Role: "node", ReplicaOf: "n1"},
		{Name: "n3", Role: "node", ReplicaOf: "n1"}, {Name: "n4", Role: "node"}, {Name: "c1", Role: "coordinator"},
	}}
	want := map[string]string{"n1": RolePrimary, "n2": RoleReplica, "n3": RoleReplica, "n4": "", "c1": ""}
	for node, role := range want {
		if got := topo.ReplicationRole(node); got != role {
			t.Errorf("%s: role %q, want %q", node, got, role)
		}
	}
	if !topo.Replicated() || topo.Primary() != "n1" || topo.CheckReplication() != nil {
		t.Errorf("replicated %v primary %q check %v", topo.Replicated(), topo.Primary(), topo.CheckReplication())
	}
	plain := Topology{Nodes: []NodeSpec{{Name: "n1", Role: "node"}}}
	if plain.Replicated() || plain.Primary() != "" || plain.CheckReplication() != nil {
		t.Error("a single node is taken for a replicated group")
	}
}

func TestCheckReplicationRejects(t *testing.T) {
	node := func(name, of string) NodeSpec { return NodeSpec{Name: name, Role: "node", ReplicaOf: of} }
	tests := map[string]struct {
		nodes []NodeSpec
		want  string
	}{
		"unknown primary": {[]NodeSpec{node("n1", ""), node("n2", "n9")}, `follows "n9", which is not in the topology`},
		"itself":          {[]NodeSpec{node("n1", "n1")}, "follows itself"},
		"chain":           {[]NodeSpec{node("n1", ""), node("n2", "n1"), node("n3", "n2")}, "chains are refused"},
		"coordinator primary": {[]NodeSpec{{Name: "c1", Role: "coordinator"}, node("n2", "c1")},
			`follows coordinator "c1"`},
		"coordinator replica": {[]NodeSpec{node("n1", ""), {Name: "c1", Role: "coordinator", ReplicaOf: "n1"}},
			"cannot be a replica"},
		"owned env": {[]NodeSpec{node("n1", ""), {Name: "n2", Role: "node", ReplicaOf: "n1",
			Env: map[string]string{"RUVIO_REPLICATION_PRIMARY": "x:1"}}}, "RUVIO_REPLICATION_PRIMARY"},
	}
	for name, tc := range tests {
		err := Topology{Nodes: tc.nodes}.CheckReplication()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
}

func TestReplicationSettingsEnv(t *testing.T) {
	env := ReplicationSettings{Role: RoleReplica, Listen: "0.0.0.0:26379", Primary: "10.0.0.2:26379",
		Password: "pw", Announce: "10.0.0.3:6379"}.Env()
	if len(env) != len(ReplicationEnvKeys) {
		t.Fatalf("env %v sets %d keys, want every one of %v", env, len(env), ReplicationEnvKeys)
	}
	for _, k := range ReplicationEnvKeys {
		if env[k] == "" {
			t.Errorf("%s unset", k)
		}
	}
	if _, ok := (ReplicationSettings{Role: RolePrimary}).Env()["RUVIO_REPLICATION_PRIMARY"]; ok {
		t.Error("a primary is given a primary to follow")
	}
}
