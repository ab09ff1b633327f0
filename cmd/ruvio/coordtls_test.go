package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// tlsGroup is two data-node processes that require a client certificate
// on their TLS ports, and three coordinators with TLS on their port and
// node_tls watching them (secret "s3cret").
type tlsGroup struct {
	procs []*proc
	// addrs are the nodes' TLS addresses, the members' addresses; repls
	// their replication listeners.
	addrs, repls []string
	cs           []*coord
	// ca, cert and key are the files every process and client uses.
	ca, cert, key string
}

// With tlsOnly the nodes open no plain port (port = 0) and replicate over
// TLS (replication.tls): nothing they serve travels in clear text.
func startTLSGroup(t *testing.T, tlsOnly bool) *tlsGroup {
	t.Helper()
	ca := tlstest.NewCA(t, "test CA")
	cert, key := ca.Issue("ruvio", "127.0.0.1").Write(t, t.TempDir())
	g := &tlsGroup{ca: ca.File, cert: cert, key: key}
	var members []string
	var primaryRepl string
	for i := 0; i < 2; i++ {
		repl := "127.0.0.1:" + strconv.Itoa(freePort(t, 1))
		tlsAddr := "127.0.0.1:" + strconv.Itoa(freePort(t, 1))
		env := []string{"RUVIO_REPLICATION_LISTEN=" + repl, "RUVIO_REPLICATION_ROLE=primary"}
		if i > 0 {
			env = []string{"RUVIO_REPLICATION_LISTEN=" + repl, "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + primaryRepl}
		}
		_, tport, _ := net.SplitHostPort(tlsAddr)
		env = append(env, "RUVIO_TLS_PORT="+tport, "RUVIO_TLS_CERT="+cert, "RUVIO_TLS_KEY="+key,
			"RUVIO_TLS_CLIENT_CA="+ca.File, "RUVIO_TLS_CLIENT_AUTH=yes")
		if i == 0 {
			primaryRepl = repl
		}
		port := strconv.Itoa(freePort(t, 1))
		var ping *redis.Options
		if tlsOnly {
			port = "0"
			env = append(env, "RUVIO_REPLICATION_TLS=true")
			ping = &redis.Options{Addr: tlsAddr, TLSConfig: g.clientTLS(t)}
		}
		g.procs = append(g.procs, startNodeAnswering(t, t.TempDir(), env, ping, "--durability", "always", "--port", port))
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", tlsAddr, repl))
		g.addrs, g.repls = append(g.addrs, tlsAddr), append(g.repls, repl)
	}
	extra := fmt.Sprintf("secret = \"s3cret\"\ntls_cert = %q\ntls_key = %q\ntls_ca = %q\nnode_tls = true\n", cert, key, ca.File)
	g.cs = startCoordinatorsVia(t, 3, "[[groups]]\nname = \"main\"\nmembers = ["+strings.Join(members, ", ")+"]\n", extra, nil)
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, g.cs)
		}
	})
	return g
}

// clientTLS is what a client dials the group's processes with.
func (g *tlsGroup) clientTLS(t *testing.T) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(g.ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	pair, err := tls.LoadX509KeyPair(g.cert, g.key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
}

// primaryAt is the primary coordinator c names over TLS ("" when it
// does not answer).
func (g *tlsGroup) primaryAt(t *testing.T, c *coord) string {
	cl := redis.NewClient(&redis.Options{Addr: c.addr, Password: "s3cret", TLSConfig: g.clientTLS(t), MaxRetries: -1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
	defer cl.Close()
	v, err := cl.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "main").StringSlice()
	if err != nil || len(v) != 2 {
		return ""
	}
	return net.JoinHostPort(v[0], v[1])
}

// everyone says whether every coordinator names want.
func (g *tlsGroup) everyone(t *testing.T, want string) func() bool {
	return func() bool {
		for _, c := range g.cs {
			if g.primaryAt(t, c) != want {
				return false
			}
		}
		return true
	}
}

// Three coordinator processes with TLS on their port and node_tls agree on
// the primary of two data-node processes that require a client
// certificate on their TLS ports, refuse a clear-text client, and fail
// the group over when the primary is killed.
func TestCoordinatorsOverTLSFailOverTLSNodes(t *testing.T) {
	g := startTLSGroup(t, false)
	ctx := context.Background()
	ctls := g.clientTLS(t)
	cs, procs, addrs := g.cs, g.procs, g.addrs
	poll.Until(t, 30*time.Second, "every coordinator naming the first primary", g.everyone(t, addrs[0]))
	if err := cs[0].client("s3cret").Ping(ctx).Err(); err == nil {
		t.Fatal("a clear-text client was served on a TLS coordinator port")
	}

	procs[0].cmd.Process.Signal(syscall.SIGKILL)
	<-procs[0].done
	poll.Until(t, 30*time.Second, "every coordinator naming the replica", g.everyone(t, addrs[1]))
	node := redis.NewClient(&redis.Options{Addr: addrs[1], TLSConfig: ctls})
	defer node.Close()
	poll.Until(t, 10*time.Second, "writes on the new primary over TLS", func() bool { return node.Set(ctx, "after", "1", 0).Err() == nil })
}

// Data nodes that take clients on TLS only (port = 0) and replicate over
// TLS: the replica follows the primary, three coordinators with node_tls
// agree on the primary and fail the group over when it is killed.
func TestTLSOnlyNodesReplicateAndFailOver(t *testing.T) {
	g := startTLSGroup(t, true)
	ctx := context.Background()
	ctls := g.clientTLS(t)
	procs, addrs := g.procs, g.addrs
	var nodes []*redis.Client
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a, TLSConfig: ctls})
		defer c.Close()
		nodes = append(nodes, c)
		if info := c.Info(ctx, "server").Val(); !strings.Contains(info, "tcp_port:0\r\n") {
			t.Fatalf("%s does not say it opened no plain port:\n%s", a, info)
		}
		// Cluster-aware clients are sent to the TLS ports.
		_, port, _ := net.SplitHostPort(a)
		shards, err := c.ClusterShards(ctx).Result()
		if err != nil || len(shards) != 1 || len(shards[0].Nodes) != 1 || strconv.FormatInt(shards[0].Nodes[0].Port, 10) != port {
			t.Fatalf("%s: CLUSTER SHARDS = %+v, %v; want its own TLS port", a, shards, err)
		}
	}
	for i, p := range procs {
		_, tlsPort, _ := net.SplitHostPort(addrs[i])
		_, replPort, _ := net.SplitHostPort(g.repls[i])
		got := listeningPorts(t, p.cmd.Process.Pid)
		if want := []string{tlsPort, replPort}; !slices.Equal(got, want) && !slices.Equal(got, []string{replPort, tlsPort}) {
			t.Fatalf("node %d listens on ports %v, want its TLS and replication ports %v only", i, got, want)
		}
	}
	poll.Until(t, 30*time.Second, "every coordinator naming the first primary", g.everyone(t, addrs[0]))
	if err := nodes[0].Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the write on the replica", func() bool { return nodes[1].Get(ctx, "before").Val() == "1" })

	procs[0].cmd.Process.Signal(syscall.SIGKILL)
	<-procs[0].done
	poll.Until(t, 30*time.Second, "every coordinator naming the replica", g.everyone(t, addrs[1]))
	poll.Until(t, 10*time.Second, "writes on the new primary over TLS", func() bool { return nodes[1].Set(ctx, "after", "1", 0).Err() == nil })
	if got := nodes[1].Get(ctx, "before").Val(); got != "1" {
		t.Fatalf("the write before the failover reads %q on the new primary", got)
	}
	if !strings.Contains(procs[1].logs.String(), "tls_only=true") {
		t.Fatalf("the node did not log that it takes TLS clients only:\n%s", procs[1].logs.String())
	}
}

// listeningPorts are the TCP ports process pid listens on: the sockets in
// LISTEN state (0A) of /proc/net/tcp and tcp6 whose inodes the process
// holds a descriptor on.
func listeningPorts(t *testing.T, pid int) []string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, fd := range fds {
		if link, err := os.Readlink(dir + "/" + fd.Name()); err == nil && strings.HasPrefix(link, "socket:[") {
			held[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var ports []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st ... inode (the tenth field)
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !held[f[9]] {
				continue
			}
			hex := f[1][strings.LastIndexByte(f[1], ':')+1:]
			port, err := strconv.ParseUint(hex, 16, 16)
			if err != nil {
				t.Fatal(err)
			}
			ports = append(ports, strconv.FormatUint(port, 10))
		}
	}
	return ports
}

// redis-py's Sentinel client, dialling the TLS coordinators with the
// secret and the TLS data nodes with a client certificate, writes through
// the primary they name and follows the failover when it is killed.
func TestRedisPySentinelOverTLSFollowsAFailover(t *testing.T) {
	python := redisPy(t)
	g := startTLSGroup(t, false)
	poll.Until(t, 30*time.Second, "every coordinator naming the first primary", g.everyone(t, g.addrs[0]))
	var addrs []string
	for _, c := range g.cs {
		addrs = append(addrs, c.addr)
	}
	env := []string{"SENTINEL_PASSWORD=s3cret", "TLS_CA=" + g.ca, "TLS_CERT=" + g.cert, "TLS_KEY=" + g.key}
	followWithRedisPy(t, python, addrs, env, g.addrs[0], func() { g.procs[0].cmd.Process.Signal(syscall.SIGKILL) })
}
