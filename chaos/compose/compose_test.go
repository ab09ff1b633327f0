package compose

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/poll"
)

func fileTopology() topology.Topology {
	var t topology.Topology
	for _, n := range []string{"ruvio-1", "ruvio-2", "ruvio-3"} {
		t.Nodes = append(t.Nodes, topology.NodeSpec{Name: n, Role: topology.RoleNode})
	}
	for _, n := range []string{"coordinator-1", "coordinator-2", "coordinator-3"} {
		t.Nodes = append(t.Nodes, topology.NodeSpec{Name: n, Role: topology.RoleCoordinator})
	}
	return t
}

func TestMatchTopology(t *testing.T) {
	services := []string{"coordinator-1", "coordinator-2", "coordinator-3", "ruvio-1", "ruvio-2", "ruvio-3"}
	if err := matchTopology(fileTopology(), services); err != nil {
		t.Fatalf("the file's own topology: %v", err)
	}
	missing := fileTopology()
	missing.Nodes = missing.Nodes[1:]
	extra := fileTopology()
	extra.Nodes = append(extra.Nodes, topology.NodeSpec{Name: "n4", Role: topology.RoleNode})
	wrongRole := fileTopology()
	wrongRole.Nodes[0].Role = topology.RoleCoordinator
	for name, tc := range map[string]struct {
		topo topology.Topology
		want string
	}{
		"a service left out":  {missing, `leaves out service "ruvio-1"`},
		"a node not in file":  {extra, `no service "n4"`},
		"a role that differs": {wrongRole, `service "ruvio-1" is a data node`},
	} {
		err := matchTopology(tc.topo, services)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// TestComposeFileFailsOver brings the repository's Compose file up, kills
// the primary container and waits for the coordinators to name another
// member, then restarts the old primary and waits for it to follow.
func TestComposeFileFailsOver(t *testing.T) {
	if testing.Short() {
		t.Skip("brings up six containers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := Available(ctx); err != nil {
		if os.Getenv("CHAOS_REQUIRE_DOCKER") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ruvio")
	build := exec.Command("go", "build", "-o", bin, "github.com/ruvio/ruvio/cmd/ruvio")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	started, err := b.Start(ctx, fileTopology(), bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	cl := started.(*cluster)
	defer func() {
		if err := cl.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	sentinel := redis.NewClient(&redis.Options{Addr: cl.Addr("coordinator-1"), Password: cl.CoordinatorSecret(), MaxRetries: -1})
	defer sentinel.Close()
	primary := func() string {
		addr, err := sentinel.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "main").StringSlice()
		if err != nil || len(addr) != 2 {
			return ""
		}
		return addr[0]
	}
	poll.Until(t, 30*time.Second, "the coordinators to name ruvio-1 primary", func() bool { return primary() == "ruvio-1" })
	if err := cl.Kill(ctx, "ruvio-1"); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, "a failover after ruvio-1 was killed", func() bool { p := primary(); return p != "" && p != "ruvio-1" })
	promoted := primary()
	// The host dials the promoted member by the name the coordinators
	// answer, through Dial.
	node := redis.NewClient(&redis.Options{Addr: cl.Dial(promoted + ":6379"), MaxRetries: -1})
	defer node.Close()
	poll.UntilNil(t, 10*time.Second, "a write on the promoted "+promoted, func() error { return node.Set(ctx, "after-failover", "1", 0).Err() })
	if err := cl.Restart(ctx, "ruvio-1"); err != nil {
		t.Fatal(err)
	}
	old := redis.NewClient(&redis.Options{Addr: cl.Addr("ruvio-1"), MaxRetries: -1})
	defer old.Close()
	poll.Until(t, 30*time.Second, "the restarted ruvio-1 to hold the promoted primary's write", func() bool {
		v, err := old.Get(ctx, "after-failover").Result()
		return err == nil && v == "1"
	})
	if role, err := old.Do(ctx, "ROLE").Slice(); err != nil || len(role) == 0 || role[0] != "slave" {
		t.Fatalf("the restarted ruvio-1 answers ROLE %v (%v), want a replica", role, err)
	}
}
