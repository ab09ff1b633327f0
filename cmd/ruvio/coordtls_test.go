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

// Three coordinator processes with TLS on their port and node_tls agree on
// the primary of two data-node processes that require a client
// certificate on their TLS ports, refuse a clear-text client, and fail
// the group over when the primary is killed.
func TestCoordinatorsOverTLSFailOverTLSNodes(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	cert, key := ca.Issue("ruvio", "127.0.0.1").Write(t, t.TempDir())
	var procs []*proc
	var addrs, members []string
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
		procs = append(procs, startNodeIn(t, t.TempDir(), env, "--durability", "always", "--port", strconv.Itoa(freePort(t, 1))))
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", tlsAddr, repl))
		addrs = append(addrs, tlsAddr)
	}
	extra := fmt.Sprintf("secret = \"s3cret\"\ntls_cert = %q\ntls_key = %q\ntls_ca = %q\nnode_tls = true\n", cert, key, ca.File)
	cs := startCoordinatorsVia(t, 3, "[[groups]]\nname = \"main\"\nmembers = ["+strings.Join(members, ", ")+"]\n", extra, nil)
	defer func() {
		if t.Failed() {
			dumpLogs(t, cs)
		}
	}()

	pem, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	ctls := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	ctx := context.Background()
	primaryAt := func(c *coord) string {
		cl := redis.NewClient(&redis.Options{Addr: c.addr, Password: "s3cret", TLSConfig: ctls, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
		defer cl.Close()
		v, err := cl.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "main").StringSlice()
		if err != nil || len(v) != 2 {
			return ""
		}
		return net.JoinHostPort(v[0], v[1])
	}
	everyone := func(want string) func() bool {
		return func() bool {
			for _, c := range cs {
				if primaryAt(c) != want {
					return false
				}
			}
			return true
		}
	}
	poll.Until(t, 30*time.Second, "every coordinator naming the first primary", everyone(addrs[0]))
	if err := cs[0].client("s3cret").Ping(ctx).Err(); err == nil {
		t.Fatal("a clear-text client was served on a TLS coordinator port")
	}

	procs[0].cmd.Process.Signal(syscall.SIGKILL)
	<-procs[0].done
	poll.Until(t, 30*time.Second, "every coordinator naming the replica", everyone(addrs[1]))
	node := redis.NewClient(&redis.Options{Addr: addrs[1], TLSConfig: ctls})
	defer node.Close()
	poll.Until(t, 10*time.Second, "writes on the new primary over TLS", func() bool { return node.Set(ctx, "after", "1", 0).Err() == nil })
}
