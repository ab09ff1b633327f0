package docker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/poll"
)

// A topology on TLS runs on Docker as on local processes: the data nodes
// serve TLS ports (and refuse clear text there), the replica follows its
// primary over TLS, and the coordinators, TLS-only, record the primary
// by its TLS address.
func TestTLSGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	node := func(name, of string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleNode, ReplicaOf: of, Args: []string{"server", "--durability", "always"}}
	}
	coord := func(name string) topology.NodeSpec {
		return topology.NodeSpec{Name: name, Role: topology.RoleCoordinator, Args: []string{"coordinator"}}
	}
	cl := start(t, ctx, topology.Topology{TLS: true, Nodes: []topology.NodeSpec{node("n1", ""), node("n2", "n1"),
		coord("c1"), coord("c2"), coord("c3")}})
	cfg := topology.ClientTLS(cl)
	if cfg == nil {
		t.Fatal("a TLS cluster offers no client TLS configuration")
	}
	if !strings.HasSuffix(cl.Addr("n1"), fmt.Sprintf(":%d", tlsPort)) || cl.MemberAddr("n1") != cl.Addr("n1") {
		t.Fatalf("n1's address %q, member address %q: want its TLS port %d", cl.Addr("n1"), cl.MemberAddr("n1"), tlsPort)
	}
	if err := topology.Ping(ctx, cl.Addr("n1"), "", nil); err == nil {
		t.Fatal("a clear-text PING was answered on n1's TLS port")
	}
	primary := redis.NewClient(&redis.Options{Addr: cl.Addr("n1"), TLSConfig: cfg, MaxRetries: -1, DialTimeout: time.Second})
	defer primary.Close()
	replica := redis.NewClient(&redis.Options{Addr: cl.Addr("n2"), TLSConfig: cfg, MaxRetries: -1, DialTimeout: time.Second})
	defer replica.Close()
	if err := primary.Set(ctx, "k", "over tls", 0).Err(); err != nil {
		t.Fatalf("SET over TLS: %v", err)
	}
	poll.Until(t, 20*time.Second, "the replica to hold the write", func() bool {
		v, err := replica.Get(ctx, "k").Result()
		return err == nil && v == "over tls"
	})
	for _, c := range []string{"c1", "c2", "c3"} {
		co := redis.NewClient(&redis.Options{Addr: cl.Addr(c), Password: cl.CoordinatorSecret(), TLSConfig: cfg, MaxRetries: -1,
			DialTimeout: time.Second, ReadTimeout: time.Second, Protocol: 2, DisableIdentity: true})
		poll.Until(t, 20*time.Second, c+" to name n1's TLS address as the primary", func() bool {
			v, err := co.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", topology.GroupName).StringSlice()
			return err == nil && len(v) == 2 && v[0]+":"+v[1] == cl.Addr("n1")
		})
		co.Close()
	}
	if err := topology.Ping(ctx, cl.Addr("c1"), cl.CoordinatorSecret(), nil); err == nil {
		t.Fatal("a clear-text client was served on a TLS coordinator port")
	}
}
