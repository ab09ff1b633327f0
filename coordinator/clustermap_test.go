package coordinator

import (
	"os"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/topology"
)

func clusterConfig(groups ...Group) *Config {
	c := DefaultConfig()
	c.ID, c.Listen, c.Peers, c.Groups = 1, "127.0.0.1:26400", []string{"1@127.0.0.1:26400"}, groups
	return c
}

func grp(name string, shards int, slots []string, addrs ...string) Group {
	g := Group{Name: name, Shards: shards, Slots: slots}
	for _, a := range addrs {
		g.Members = append(g.Members, Member{Address: a, Replication: a})
	}
	return g
}

func TestClusterConfigProblems(t *testing.T) {
	cases := []struct {
		name   string
		groups []Group
		want   []string
	}{
		{"two groups", []Group{grp("a", 2, []string{"0-8191"}, "a1:1"), grp("b", 2, []string{"8192-16383"}, "b1:1")}, nil},
		{"no shards anywhere", []Group{grp("a", 0, nil, "a1:1"), grp("b", 0, nil, "b1:1")}, nil},
		{"an empty group", []Group{grp("a", 1, []string{"0-16383"}, "a1:1"), grp("b", 3, []string{}, "b1:1")}, nil},
		{"named shards", []Group{grp("a", 2, []string{"0-99@1", "100-16383@0"}, "a1:1")}, nil},
		{"shards on one group only", []Group{grp("a", 2, []string{"0-16383"}, "a1:1"), grp("b", 0, nil, "b1:1")},
			[]string{"groups[1].shards: either every group sets shards or none does (b does not)"}},
		{"slots without shards", []Group{grp("a", 0, []string{"0-16383"}, "a1:1")}, []string{"groups[0].slots: a group with slots needs shards"}},
		{"every problem at once", []Group{grp("a", 2, []string{"0-100", "x", "200-300@5"}, "a1:1"), grp("b", 300, nil, "b1:1")},
			[]string{`groups[0].slots[1]: "x" is not first-last`, `names shard 5; the group has shards 0-1`, "groups[1].shards = 300: must be 1-256"}},
		{"gaps and overlaps", []Group{grp("a", 1, []string{"0-9000"}, "a1:1"), grp("b", 1, []string{"9000-16000"}, "b1:1")},
			[]string{`slot 9000 belongs to groups "a" and "b"`, "slots 16001-16383 belong to no group"}},
		{"member in two groups", []Group{grp("a", 1, []string{"0-8191"}, "x:1"), grp("b", 1, []string{"8192-16383"}, "x:1")},
			[]string{"groups[1].members: x:1 is also a member of a"}},
		{"mixed shard naming", []Group{grp("a", 2, []string{"0-99@0", "100-16383"}, "a1:1")}, []string{"either every range names its shard"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := clusterConfig(c.groups...).Validate()
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

func TestPlacementsSplitSlotsAcrossShards(t *testing.T) {
	c := clusterConfig(grp("a", 2, []string{"0-8191"}, "a1:1", "a2:1"), grp("b", 2, []string{"8192-16383"}, "b1:1"))
	if !c.clustered() {
		t.Fatal("not clustered")
	}
	ps := c.placements()
	if len(ps) != 2 || len(ps[0].Ranges) != 2 || ps[0].Ranges[1].First != 4096 || ps[0].Ranges[1].Shard != 1 || ps[0].Members[1] != "a2:1" {
		t.Fatalf("placements = %+v", ps)
	}
	if clusterConfig(grp("a", 0, nil, "a1:1")).clustered() {
		t.Error("a configuration without shards is clustered")
	}
}

// The two-group example in deploy/ is consistent: the coordinators' file
// describes the same first map as the data nodes' topology file.
func TestTwoGroupExampleMatchesItsTopologyFile(t *testing.T) {
	c, err := LoadConfig("../deploy/cluster-two-groups/coordinator.toml", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../deploy/cluster-two-groups/topology")
	if err != nil {
		t.Fatal(err)
	}
	file, err := topology.Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := rules.FirstMap(c.placements()).String(); got != file.String() {
		t.Errorf("coordinator.toml gives\n%s\nthe topology file\n%s", got, file)
	}
}
