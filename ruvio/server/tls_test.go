package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/tlsconf"
	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// tlsFixture is a CA with a node certificate and a client certificate,
// written to files.
type tlsFixture struct {
	ca                    *tlstest.CA
	nodeCert, nodeKey     string
	clientCert, clientKey string
}

func newTLSFixture(t *testing.T) tlsFixture {
	ca := tlstest.NewCA(t, "test CA")
	f := tlsFixture{ca: ca}
	f.nodeCert, f.nodeKey = ca.Issue("node", "127.0.0.1", "localhost").Write(t, t.TempDir())
	f.clientCert, f.clientKey = ca.Issue("client").Write(t, t.TempDir())
	return f
}

// on turns TLS on with the node certificate and tls_client_auth = auth.
func (f tlsFixture) on(t *testing.T, auth string) func(*config.Config) {
	return func(c *config.Config) {
		c.TLSPort = freePorts(t, max(c.Shards, 1))
		c.TLSCert, c.TLSKey, c.TLSClientCA, c.TLSClientAuth = f.nodeCert, f.nodeKey, f.ca.File, auth
	}
}

// clientTLS is what a client trusting the CA uses; withCert adds the
// client certificate.
func (f tlsFixture) clientTLS(t *testing.T, withCert bool) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(f.ca.File)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	if withCert {
		c, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg
}

func tlsClient(t *testing.T, addr string, cfg *tls.Config) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: cfg, MaxRetries: -1, DialTimeout: 5 * time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// A client on a TLS port works as on the plain one, and both kinds of
// client see each other's writes; each is told the ports of its kind.
func TestTLSClientPort(t *testing.T) {
	ctx := context.Background()
	f := newTLSFixture(t)
	s := startServer(t, func(c *config.Config) { c.Shards = 2; f.on(t, tlsconf.AuthNo)(c) })
	cfg := s.Config()
	secure := tlsClient(t, s.TLSAddr(1), f.clientTLS(t, false))
	if err := secure.Set(ctx, "k", "over TLS", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := secure.Get(ctx, "k").Result(); err != nil || v != "over TLS" {
		t.Fatalf("GET over TLS = %q, %v", v, err)
	}
	plain := redis.NewClient(&redis.Options{Addr: s.Addr(1)})
	defer plain.Close()
	if v, err := plain.Get(ctx, "k").Result(); err != nil || v != "over TLS" {
		t.Fatalf("GET on the plain port = %q, %v", v, err)
	}
	// A plain client on the TLS port gets no answer in clear text.
	wrong := redis.NewClient(&redis.Options{Addr: s.TLSAddr(0), MaxRetries: -1, ReadTimeout: time.Second})
	defer wrong.Close()
	if err := wrong.Ping(ctx).Err(); err == nil {
		t.Fatal("a clear-text PING on the TLS port was answered")
	}
	for _, tc := range []struct {
		name   string
		client *redis.Client
		base   int
	}{{"TLS", secure, cfg.TLSPort}, {"plain", plain, cfg.Port}} {
		//lint:ignore SA1019 CLUSTER SLOTS is what go-redis ClusterClient reads
		slots, err := tc.client.ClusterSlots(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(slots) != 2 {
			t.Fatalf("%s: CLUSTER SLOTS = %v", tc.name, slots)
		}
		for i, sl := range slots {
			if want := "127.0.0.1:" + strconv.Itoa(tc.base+i); sl.Nodes[0].Addr != want {
				t.Errorf("%s: CLUSTER SLOTS shard %d at %s, want %s", tc.name, i, sl.Nodes[0].Addr, want)
			}
		}
	}
	// go-redis's cluster client follows those ports over TLS.
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.TLSAddr(0)}, TLSConfig: f.clientTLS(t, false)})
	defer cc.Close()
	for i := range 20 {
		k := "cluster:" + strconv.Itoa(i)
		if err := cc.Set(ctx, k, i, 0).Err(); err != nil {
			t.Fatalf("cluster client SET %s: %v", k, err)
		}
		if v, err := plain.Get(ctx, k).Result(); err != nil || v != strconv.Itoa(i) {
			t.Fatalf("%s read back on the plain port: %q %v", k, v, err)
		}
	}
}

// With tls_client_auth = yes a client without a certificate is refused;
// with optional it is let in, and a certificate shown is still checked.
func TestTLSClientAuth(t *testing.T) {
	ctx := context.Background()
	f := newTLSFixture(t)
	stranger := tlstest.NewCA(t, "stranger CA")
	sc, sk := stranger.Issue("stranger").Write(t, t.TempDir())
	foreign := f.clientTLS(t, false)
	fc, err := tls.LoadX509KeyPair(sc, sk)
	if err != nil {
		t.Fatal(err)
	}
	// Shown whatever CAs the node names: crypto/tls would otherwise leave
	// out a certificate of a CA the node does not ask for.
	foreign.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &fc, nil }
	tests := []struct {
		auth   string
		client *tls.Config
		ok     bool
	}{
		{tlsconf.AuthYes, f.clientTLS(t, false), false},
		{tlsconf.AuthYes, f.clientTLS(t, true), true},
		{tlsconf.AuthYes, foreign, false},
		{tlsconf.AuthOptional, f.clientTLS(t, false), true},
		{tlsconf.AuthOptional, foreign, false},
	}
	servers := map[string]*Server{}
	for i, tc := range tests {
		s := servers[tc.auth]
		if s == nil {
			s = startServer(t, f.on(t, tc.auth))
			servers[tc.auth] = s
		}
		err := tlsClient(t, s.TLSAddr(0), tc.client).Ping(ctx).Err()
		if (err == nil) != tc.ok {
			t.Errorf("case %d (auth %s): PING error %v, want success %v", i, tc.auth, err, tc.ok)
		}
	}
}

// A certificate replaced on disk is what the next connection is shown,
// without a restart; connections already open keep working.
func TestTLSCertificateRotation(t *testing.T) {
	ctx := context.Background()
	f := newTLSFixture(t)
	s := startServer(t, f.on(t, tlsconf.AuthNo))
	serial := func() string {
		t.Helper()
		nc, err := tls.Dial("tcp", s.TLSAddr(0), f.clientTLS(t, false))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		return nc.ConnectionState().PeerCertificates[0].SerialNumber.String()
	}
	open := tlsClient(t, s.TLSAddr(0), f.clientTLS(t, false))
	if err := open.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	before := serial()
	next := f.ca.Issue("node", "127.0.0.1")
	tlstest.WriteFile(t, f.nodeCert, next.CertPEM)
	tlstest.WriteFile(t, f.nodeKey, next.KeyPEM)
	if got := serial(); got != next.Serial.String() || got == before {
		t.Fatalf("after rotation the node shows serial %s, want %s (was %s)", got, next.Serial, before)
	}
	// A broken replacement keeps the rotated certificate in force.
	tlstest.WriteFile(t, f.nodeCert, []byte("half written"))
	if got := serial(); got != next.Serial.String() {
		t.Fatalf("after a broken replacement the node shows serial %s, want %s", got, next.Serial)
	}
	if err := open.Ping(ctx).Err(); err != nil {
		t.Fatalf("connection opened before the rotation: %v", err)
	}
}

// A replica follows its primary over TLS, each showing its certificate
// (tls_client_auth = yes on the primary's replication listener).
func TestTLSReplication(t *testing.T) {
	ctx := context.Background()
	f := newTLSFixture(t)
	secure := func(c *config.Config) {
		c.Replication.TLS = true
		c.TLSCert, c.TLSKey, c.TLSClientCA, c.TLSClientAuth = f.nodeCert, f.nodeKey, f.ca.File, tlsconf.AuthYes
	}
	p := newNode(t, "primary", 2, func(c *config.Config) { asPrimary(c); secure(c) }).start()
	mixedWrites(t, p, "before:", 100)
	r := newNode(t, "replica", 2, func(c *config.Config) { asReplicaOf(p)(c); secure(c) }).start()
	mixedWrites(t, p, "during:", 100)
	caughtUp(t, p, r)
	if v, err := r.client(0).Get(ctx, "during:0").Result(); err != nil || v != "0" {
		t.Fatalf("read on the replica: %q %v", v, err)
	}

	// A replica that dials in clear text gets nowhere, and says so.
	plain := newNode(t, "plain replica", 2, asReplicaOf(p)).start()
	poll.Until(t, 10*time.Second, "the clear-text replica to report its failed link", func() bool {
		info := plain.info(0)
		return info["master_link_status"] == "down" && info["master_link_error"] != ""
	})
	if got := plain.info(0)["wal_last_sequence"]; got == p.info(0)["wal_last_sequence"] {
		t.Fatalf("the clear-text replica reached the primary's sequence %s", got)
	}

	// A replica on TLS that trusts the primary but shows a certificate of
	// another CA is refused: the primary asks for one tls_client_ca vouches
	// for.
	stranger := tlstest.NewCA(t, "stranger CA")
	sc, sk := stranger.Issue("stranger", "127.0.0.1").Write(t, t.TempDir())
	foreign := newNode(t, "foreign replica", 2, func(c *config.Config) {
		asReplicaOf(p)(c)
		secure(c)
		c.TLSCert, c.TLSKey = sc, sk
	}).start()
	poll.Until(t, 10*time.Second, "the replica with a foreign certificate to report its failed link", func() bool {
		info := foreign.info(0)
		return info["master_link_status"] == "down" && strings.Contains(info["master_link_error"], "certificate")
	})
}

// redis-cli built with TLS talks to a TLS port as to a plain one.
func TestTLSRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	help, _ := exec.Command(cli, "--help").CombinedOutput()
	if !strings.Contains(string(help), "--cacert") {
		t.Skip("redis-cli built without TLS")
	}
	f := newTLSFixture(t)
	s := startServer(t, f.on(t, tlsconf.AuthYes))
	port := strconv.Itoa(s.Config().TLSPort)
	run := func(withCert bool, args ...string) (string, error) {
		base := []string{"-h", "127.0.0.1", "-p", port, "--tls", "--cacert", f.ca.File}
		if withCert {
			base = append(base, "--cert", f.clientCert, "--key", f.clientKey)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, cli, append(base, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := run(true, "SET", "cli", "tls"); err != nil || out != "OK" {
		t.Fatalf("redis-cli SET: %q %v", out, err)
	}
	if out, err := run(true, "GET", "cli"); err != nil || out != "tls" {
		t.Fatalf("redis-cli GET: %q %v", out, err)
	}
	if out, _ := run(false, "GET", "cli"); out == "tls" {
		t.Fatalf("redis-cli without a certificate read the key: %q", out)
	}
}

// shiftedFree finds d such that ports base+d .. base+d+n-1 are free for
// every base, for TLS ports at the same distance from each node's port.
func shiftedFree(t *testing.T, n int, bases ...int) int {
	t.Helper()
	for try := 0; try < 200; try++ {
		d := freePorts(t, n) - bases[0]
		ok := true
		for _, b := range bases[1:] {
			for i := 0; i < n && ok; i++ {
				p := b + d + i
				if p < 1024 || p > 65535 {
					ok = false
					break
				}
				ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
				if err != nil {
					ok = false
					break
				}
				ln.Close()
			}
		}
		if ok {
			return d
		}
	}
	t.Fatal("no free shifted ports")
	return 0
}

// With a cluster map, a client on a TLS port is sent to the other group's
// TLS ports: the other node's port plus this node's tls_port - port.
func TestTLSClusterMapNamesTLSPorts(t *testing.T) {
	ctx := context.Background()
	f := newTLSFixture(t)
	pa, pb := freePorts(t, 2), freePorts(t, 2)
	d := shiftedFree(t, 2, pa, pb)
	m := twoGroupMap(pa, pb)
	withTLS := func(port int) func(*config.Config) {
		return func(c *config.Config) {
			c.TLSPort = port + d
			c.TLSCert, c.TLSKey = f.nodeCert, f.nodeKey
		}
	}
	a, err := startClusterNode(t, pa, "a", m, "", withTLS(pa))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startClusterNode(t, pb, "b", m, "", withTLS(pb)); err != nil {
		t.Fatal(err)
	}
	secure := tlsClient(t, a.s.TLSAddr(0), f.clientTLS(t, false))
	kb1 := keyIn(12288, 16383, "b1-")
	want := "MOVED " + strconv.Itoa(slots.Of([]byte(kb1))) + " " + addr(pb+d+1)
	if err := secure.Get(ctx, kb1).Err(); err == nil || err.Error() != want {
		t.Fatalf("GET of b's shard-1 key over TLS: %v, want %s", err, want)
	}
	wantPlain := "MOVED " + strconv.Itoa(slots.Of([]byte(kb1))) + " " + addr(pb+1)
	if err := client(t, a.s, 0).Get(ctx, kb1).Err(); err == nil || err.Error() != wantPlain {
		t.Fatalf("GET of b's shard-1 key on the plain port: %v, want %s", err, wantPlain)
	}
	//lint:ignore SA1019 CLUSTER SLOTS is what go-redis ClusterClient reads
	slotsTLS, err := secure.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sl := range slotsTLS {
		got = append(got, sl.Nodes[0].Addr)
	}
	if w := []string{addr(pa + d), addr(pa + d + 1), addr(pb + d), addr(pb + d + 1)}; strings.Join(got, " ") != strings.Join(w, " ") {
		t.Fatalf("CLUSTER SLOTS primaries over TLS = %v, want %v", got, w)
	}
	// A cluster client that starts at a's TLS port writes to both groups.
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{a.s.TLSAddr(0)}, TLSConfig: f.clientTLS(t, false)})
	defer cc.Close()
	for _, k := range []string{keyIn(0, 4095, "a0-"), keyIn(8192, 12287, "b0-"), kb1} {
		if err := cc.Set(ctx, k, "v", 0).Err(); err != nil {
			t.Fatalf("cluster client SET %s over TLS: %v", k, err)
		}
	}
}
