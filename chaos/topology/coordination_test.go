package topology

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/coordinator"
)

func coordinatedTopology() Topology {
	return Topology{Nodes: []NodeSpec{
		{Name: "n1", Role: RoleNode}, {Name: "n2", Role: RoleNode, ReplicaOf: "n1"}, {Name: "n3", Role: RoleNode, ReplicaOf: "n1"},
		{Name: "c1", Role: RoleCoordinator, Args: []string{"coordinator"}}, {Name: "c2", Role: RoleCoordinator},
		{Name: "c3", Role: RoleCoordinator},
	}, Coordination: CoordinatorSettings{DownAfterMs: 3000}}
}

// The file a backend writes is one the coordinator loads as meant: ids
// from the topology order, the scenario's timings over the defaults, every
// peer and member where the layout put them.
func TestCoordinatorTOMLLoads(t *testing.T) {
	topo := coordinatedTopology()
	if got := topo.Coordinators(); !reflect.DeepEqual(got, []string{"c1", "c2", "c3"}) {
		t.Fatalf("coordinators %v", got)
	}
	if got := topo.DataNodes(); !reflect.DeepEqual(got, []string{"n1", "n2", "n3"}) {
		t.Fatalf("data nodes %v", got)
	}
	l := CoordinatorLayout{Listen: "127.0.0.6:7000", DataDir: t.TempDir(), Secret: "s3cret",
		Peers:   map[string]string{"c1": "127.0.0.5:7000", "c2": "127.0.0.1:9001", "c3": "127.0.0.1:9002"},
		Members: map[string]coordinator.Member{}}
	for i, n := range []string{"n1", "n2", "n3"} {
		l.Members[n] = coordinator.Member{Address: "127.0.0.1:800" + string(rune('0'+i)), Replication: "127.0.0.1:900" + string(rune('0'+i))}
	}
	b, err := topo.CoordinatorTOML("c2", l)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "coordinator.toml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := coordinator.LoadConfig(path, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if cfg.ID != 2 || cfg.Listen != l.Listen || cfg.Secret != "s3cret" || cfg.PingIntervalMs != DefaultPingIntervalMs || cfg.DownAfterMs != 3000 {
		t.Fatalf("loaded %+v", cfg)
	}
	if want := []string{"1@127.0.0.5:7000", "2@127.0.0.1:9001", "3@127.0.0.1:9002"}; !reflect.DeepEqual(cfg.Peers, want) {
		t.Fatalf("peers %v, want %v", cfg.Peers, want)
	}
	if len(cfg.Groups) != 1 || cfg.Groups[0].Name != GroupName || !reflect.DeepEqual(cfg.Groups[0].Members,
		[]coordinator.Member{l.Members["n1"], l.Members["n2"], l.Members["n3"]}) {
		t.Fatalf("groups %+v", cfg.Groups)
	}
	// What the coordinator would refuse is refused here, naming the key.
	l.Listen = "0.0.0.0:7000"
	l.Secret = ""
	if _, err := topo.CoordinatorTOML("c2", l); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("a non-loopback listen without a secret: %v", err)
	}
	if _, err := topo.CoordinatorTOML("n1", l); err == nil {
		t.Fatal("a data node got a coordinator.toml")
	}
}

func TestCheckCoordinators(t *testing.T) {
	if err := coordinatedTopology().CheckCoordinators(); err != nil {
		t.Fatal(err)
	}
	alone := Topology{Nodes: []NodeSpec{{Name: "n1", Role: RoleNode}, {Name: "c1", Role: RoleCoordinator}}}
	if err := alone.CheckCoordinators(); err == nil {
		t.Fatal("coordinators without a replicated group accepted")
	}
	flags := coordinatedTopology()
	flags.Nodes[3].Args = []string{"coordinator", "--config", "x.toml"}
	if err := flags.CheckCoordinators(); err == nil {
		t.Fatal("a coordinator with its own command line accepted")
	}
}
