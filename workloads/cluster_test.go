package workloads

import (
	"context"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/reports/history"
)

// startClusterNode runs one data node that is the whole cluster: a map of
// one group, itself, owning every slot.
func startClusterNode(t *testing.T) *server {
	t.Helper()
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	file := filepath.Join(t.TempDir(), "topology")
	if err := os.WriteFile(file, []byte("version 1\ngroup a shards 1 members "+addr+" slots 0-16383\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--durability", "memory", "--data-dir", t.TempDir(), "--replication-listen", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	cmd.Env = append(os.Environ(), "RUVIO_CLUSTER_TOPOLOGY="+file, "RUVIO_CLUSTER_GROUP=a", "RUVIO_REPLICATION_ROLE=primary")
	s := &server{cmd: cmd, addr: addr, logs: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("node log:\n%s", s.logs.String())
		}
	})
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	poll.UntilNil(t, 20*time.Second, "the node answers CLUSTER SLOTS", func() error { return c.Do(context.Background(), "CLUSTER", "SLOTS").Err() })
	return s
}

// Durable cluster clients against a group with no replica: no write is
// acknowledged, each is answered NOREPLICAS within the node's wait (the
// client does not hold it, nor retry it), and every op names the node.
func TestClusterClientsDurableWithoutAReplica(t *testing.T) {
	srv := startClusterNode(t)
	rec := NewRecorder()
	for i, spec := range []Spec{
		{Kind: KindSet, Clients: 2, Keys: 4, Durable: 1, Via: ViaCluster, KeyPrefix: "s:"},
		{Kind: KindRegister, Clients: 2, Keys: 3, Durable: 1, Via: ViaCluster, KeyPrefix: "r:"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		err := Run(ctx, spec, func() []string { return []string{srv.addr} }, rec, rand.New(rand.NewPCG(uint64(i), 1)))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	ops := rec.History().Ops
	if len(ops) == 0 {
		t.Fatal("no op")
	}
	for _, op := range ops {
		took := time.Duration(op.T1 - op.T0)
		if op.Node != srv.addr || took > 2*DefaultTimeout {
			t.Fatalf("op %+v took %v on %q", op, took, op.Node)
		}
		if (op.F == history.FAdd || op.F == history.FWrite) && op.Type == history.OK {
			t.Fatalf("write acknowledged without a replica: %+v", op)
		}
	}
	t.Logf("%d ops, none held past its timeouts", len(ops))
}

// Cluster clients made from one seed list each keep a copy of it: go-redis
// appends the nodes it learns to the list it was given, so clients sharing
// a slice with room to spare would write into the same array (a data race
// between workers, seen as one under -race during a slot move's failover).
func TestClusterConnsKeepTheirOwnSeeds(t *testing.T) {
	srv := startClusterNode(t)
	_, port, err := net.SplitHostPort(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	// The node calls itself 127.0.0.1, so a client seeded with localhost
	// learns an address its seeds lack.
	seeds := make([]string, 1, 8)
	seeds[0] = "localhost:" + port
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := newClusterConn(seeds, Spec{Timeout: DefaultTimeout})
			defer c.close()
			if err := c.rdb.Set(ctx, "seed:"+strconv.Itoa(i), "v", 0).Err(); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if spare := seeds[1:cap(seeds)]; slices.ContainsFunc(spare, func(s string) bool { return s != "" }) {
		t.Fatalf("a cluster client wrote into its seeds' array: %q", spare)
	}
}
