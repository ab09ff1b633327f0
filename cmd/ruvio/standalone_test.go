package main

import (
	"context"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// freeClientPortWithReplication returns a client port whose derived
// replication port (port + 20000) is free too.
func freeClientPortWithReplication(t *testing.T) int {
	t.Helper()
	for range 100 {
		p := freePort(t, 1)
		if p+20000 > 65535 {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+20000))
		if err != nil {
			continue
		}
		l.Close()
		return p
	}
	t.Fatal("no client port with a free replication port")
	return 0
}

// A node started without a replication role is a writer, and like a Redis
// master it accepts a replica that names its replication address.
func TestAStandaloneWriterAcceptsReplicas(t *testing.T) {
	ctx := context.Background()
	port := freeClientPortWithReplication(t)
	primary := startNode(t, "--port", strconv.Itoa(port))
	// The replica listens for replicas of its own too (a replica is
	// refused when its own replication address cannot be used).
	replica := startNode(t, "--port", strconv.Itoa(freeClientPortWithReplication(t)))
	listen := do(t, primary, "CONFIG", "GET", "replication-listen").(map[any]any)["replication-listen"]
	if listen != "127.0.0.1:"+strconv.Itoa(port+20000) {
		t.Fatalf("CONFIG GET replication-listen = %v", listen)
	}
	do(t, primary, "SET", "before", "1")
	host, rport, _ := net.SplitHostPort(listen.(string))
	if got := do(t, replica, "REPLICAOF", host, rport); got != "OK" {
		t.Fatalf("REPLICAOF answered %v", got)
	}
	do(t, primary, "SET", "after", "2")
	rc := redis.NewClient(&redis.Options{Addr: replica.addr(), MaxRetries: -1})
	defer rc.Close()
	poll.Until(t, 20*time.Second, "both keys on the replica", func() bool {
		a, _ := rc.Get(ctx, "before").Result()
		b, _ := rc.Get(ctx, "after").Result()
		return a == "1" && b == "2"
	})
	if info := replInfo(t, primary.addr()); info["connected_slaves"] != "1" {
		t.Fatalf("the primary counts %q replicas, want 1\n%s", info["connected_slaves"], primary.logs.String())
	}
}

// A node whose derived replication ports would run past 65535 starts and
// serves clients, says at start what to set, and never reports an
// address that cannot exist.
func TestANodeWhoseReplicationPortsCannotExistSaysSoAtStart(t *testing.T) {
	// freePort draws from below 45535; probe the top of the range here.
	port := 0
	for p := 65535 - rand.IntN(1000); p > 45535 && port == 0; p-- {
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			l.Close()
			port = p
		}
	}
	if port == 0 {
		t.Fatal("no free port above 45535")
	}
	p := startNode(t, "--port", strconv.Itoa(port))
	if got := do(t, p, "SET", "k", "v"); got != "OK" {
		t.Fatalf("SET answered %v", got)
	}
	if listen := do(t, p, "CONFIG", "GET", "replication-listen").(map[any]any)["replication-listen"]; listen != "" {
		t.Fatalf("CONFIG GET replication-listen = %q, an address that cannot exist", listen)
	}
	poll.Until(t, 5*time.Second, "the warning at start", func() bool {
		logs := p.logs.String()
		return strings.Contains(logs, "not accepting replicas") && strings.Contains(logs, "set replication.listen")
	})
}
