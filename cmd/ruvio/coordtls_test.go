package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
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
	// addrs are the nodes' TLS addresses, the members' addresses.
	addrs []string
	cs    []*coord
	// ca, cert and key are the files every process and client uses.
	ca, cert, key string
}

func startTLSGroup(t *testing.T) *tlsGroup {
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
		g.procs = append(g.procs, startNodeIn(t, t.TempDir(), env, "--durability", "always", "--port", strconv.Itoa(freePort(t, 1))))
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", tlsAddr, repl))
		g.addrs = append(g.addrs, tlsAddr)
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
	g := startTLSGroup(t)
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

// redis-py's Sentinel client, dialling the TLS coordinators with the
// secret and the TLS data nodes with a client certificate, writes through
// the primary they name and follows the failover when it is killed.
func TestRedisPySentinelOverTLSFollowsAFailover(t *testing.T) {
	python := redisPy(t)
	g := startTLSGroup(t)
	poll.Until(t, 30*time.Second, "every coordinator naming the first primary", g.everyone(t, g.addrs[0]))
	var addrs []string
	for _, c := range g.cs {
		addrs = append(addrs, c.addr)
	}
	env := []string{"SENTINEL_PASSWORD=s3cret", "TLS_CA=" + g.ca, "TLS_CERT=" + g.cert, "TLS_KEY=" + g.key}
	followWithRedisPy(t, python, addrs, env, g.addrs[0], func() { g.procs[0].cmd.Process.Signal(syscall.SIGKILL) })
}
