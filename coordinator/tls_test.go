package coordinator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// tlsDataNode starts an in-process data node with a TLS port whose
// certificate names 127.0.0.1, treating client certificates as auth says.
// The member's address is its TLS port: what node_tls dials.
func tlsDataNode(t *testing.T, ca *tlstest.CA, auth, role, primary string) (*server.Server, Member) {
	addr, repl := freeAddr(t), freeAddr(t)
	s := startDataNode(t, addr, repl, role, primary, quiet(), func(cfg *config.Config) {
		_, tport, _ := net.SplitHostPort(freeAddr(t))
		cfg.TLSPort, _ = strconv.Atoi(tport)
		cfg.TLSCert, cfg.TLSKey = ca.Issue("node", "127.0.0.1").Write(t, t.TempDir())
		cfg.TLSClientCA, cfg.TLSClientAuth = ca.File, auth
	})
	return s, Member{Address: s.TLSAddr(0), Replication: repl}
}

// clientTLS is what a client of the TLS coordinators and data nodes uses:
// the test CA, and a certificate for nodes that require one.
func clientTLS(t *testing.T, ca *tlstest.CA) *tls.Config {
	certPath, keyPath := ca.Issue("client", "127.0.0.1").Write(t, t.TempDir())
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
}

// Three coordinators with TLS on their port and node_tls agree on a
// primary, over Raft on TLS, by pinging data nodes that require a client
// certificate on their TLS ports; they fail the group over when the
// primary stops, and a go-redis FailoverClient that reaches them and the
// nodes only through TLS follows. The port refuses clear text, and the
// secret is still asked for.
func TestTLSCoordinatorsAgreeAndFailOver(t *testing.T) {
	ctx := context.Background()
	ca := tlstest.NewCA(t, "test CA")
	ps, pm := tlsDataNode(t, ca, "yes", "primary", "")
	_, rm := tlsDataNode(t, ca, "yes", "replica", pm.Replication)
	addrs := []string{freeAddr(t), freeAddr(t), freeAddr(t)}
	var peers []string
	for i, a := range addrs {
		peers = append(peers, strconv.Itoa(i+1)+"@"+a)
	}
	var cs []*Coordinator
	for i, a := range addrs {
		cert, key := ca.Issue("coordinator "+strconv.Itoa(i+1), "127.0.0.1").Write(t, t.TempDir())
		cs = append(cs, startCoordinator(t, []Group{{Name: "main", Members: []Member{pm, rm}}}, func(c *Config) {
			c.ID, c.Listen, c.Peers, c.Secret = i+1, a, peers, "s3cret"
			c.TLSCert, c.TLSKey, c.TLSCA, c.NodeTLS = cert, key, ca.File, true
			c.DownAfterMs = 800
		}))
	}
	poll.Until(t, 30*time.Second, "every coordinator recording the primary", func() bool {
		for _, c := range cs {
			if recordedPrimary(c, "main") != pm.Address {
				return false
			}
		}
		return true
	})

	plain := redis.NewClient(&redis.Options{Addr: cs[0].Addr(), Password: "s3cret", MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second})
	defer plain.Close()
	if err := plain.Ping(ctx).Err(); err == nil {
		t.Fatal("a clear-text client was served on the TLS coordinator port")
	}
	ctls := clientTLS(t, ca)
	noAuth := redis.NewClient(&redis.Options{Addr: cs[0].Addr(), TLSConfig: ctls})
	defer noAuth.Close()
	if err := noAuth.Do(ctx, "SENTINEL", "MASTERS").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("a TLS client without the secret: %v", err)
	}

	var sentinels []string
	for _, c := range cs {
		sentinels = append(sentinels, c.Addr())
	}
	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "main", SentinelAddrs: sentinels, SentinelPassword: "s3cret",
		TLSConfig: ctls, MaxRetries: 20, MinRetryBackoff: 20 * time.Millisecond, MaxRetryBackoff: 100 * time.Millisecond})
	defer fc.Close()
	if err := fc.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	stop(ps)
	poll.Until(t, 30*time.Second, "every coordinator recording the replica as primary", func() bool {
		for _, c := range cs {
			if recordedPrimary(c, "main") != rm.Address {
				return false
			}
		}
		return true
	})
	poll.Until(t, 15*time.Second, "a write through the FailoverClient", func() bool { return fc.Set(ctx, "k", "after", 0).Err() == nil })
	direct := redis.NewClient(&redis.Options{Addr: rm.Address, TLSConfig: ctls})
	defer direct.Close()
	if v := direct.Get(ctx, "k").Val(); v != "after" {
		t.Fatalf("the write went elsewhere: %q", v)
	}
}

// A coordinator with node_tls but no certificate of its own cannot reach
// a data node that requires one, and says why.
func TestNodeTLSWithoutACertificateIsLogged(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	_, pm := tlsDataNode(t, ca, "yes", "primary", "")
	cfg := soloConfig(t)
	cfg.TLSCA, cfg.NodeTLS = ca.File, true
	cfg.Groups = []Group{{Name: "main", Members: []Member{pm}}}
	var logs lockedLog
	c := runCoordinator(t, cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	poll.Until(t, 10*time.Second, "the warning", func() bool {
		return strings.Contains(logs.String(), "a data node asks for a client certificate and this coordinator has none")
	})
	if st := c.prober(pm.Address).probe(); st.OK || !strings.Contains(st.Err, "certificate") {
		t.Fatalf("a ping without a client certificate: %+v", st)
	}
}

// Every bad TLS combination is reported at once, under its key.
func TestTLSConfigProblems(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	cert, key := ca.Issue("coordinator", "127.0.0.1").Write(t, t.TempDir())
	missing := filepath.Join(t.TempDir(), "missing.pem")
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		change func(*Config)
		want   []string
	}{
		{"off", func(*Config) {}, nil},
		{"port and nodes", func(c *Config) { c.TLSCert, c.TLSKey, c.TLSCA, c.NodeTLS = cert, key, ca.File, true }, nil},
		{"port only", func(c *Config) { c.TLSCert, c.TLSKey, c.TLSCA = cert, key, ca.File }, nil},
		{"nodes only, no certificate", func(c *Config) { c.TLSCA, c.NodeTLS = ca.File, true }, nil},
		{"cert without key", func(c *Config) { c.TLSCert, c.TLSCA = cert, ca.File }, []string{"tls_cert: set without tls_key"}},
		{"key without cert", func(c *Config) { c.TLSKey, c.TLSCA = key, ca.File }, []string{"tls_key: set without tls_cert"}},
		{"TLS without CA", func(c *Config) { c.TLSCert, c.TLSKey = cert, key }, []string{"tls_ca: required with tls_cert, tls_key or node_tls"}},
		{"node_tls without CA", func(c *Config) { c.NodeTLS = true }, []string{"tls_ca: required"}},
		{"node_tls with a cluster map", func(c *Config) {
			c.TLSCA, c.NodeTLS = ca.File, true
			c.Groups[0].Shards, c.Groups[0].Slots = 1, []string{"0-16383"}
		}, []string{"node_tls: not supported with groups sharing the slots"}},
		{"CA alone", func(c *Config) { c.TLSCA = ca.File }, []string{"tls_ca: set without tls_cert and tls_key or node_tls"}},
		{"a key that is not the certificate's", func(c *Config) { c.TLSCert, c.TLSKey, c.TLSCA = cert, garbage, ca.File },
			[]string{"tls_cert, tls_key: tls: certificate " + cert + " with key " + garbage}},
		{"everything at once", func(c *Config) { c.TLSCert, c.TLSCA, c.NodeTLS = missing, garbage, true },
			[]string{"tls_cert: set without tls_key", "tls_ca: tls: CA " + garbage + " holds no PEM certificate"}},
		{"unreadable files", func(c *Config) { c.TLSCert, c.TLSKey, c.TLSCA = missing, key, missing },
			[]string{"tls_cert, tls_key: tls: certificate " + missing, "tls_ca: tls: CA open " + missing}},
	}
	for _, tc := range cases {
		cfg := DefaultConfig()
		cfg.ID, cfg.Listen, cfg.Peers = 1, "127.0.0.1:26400", []string{"1@127.0.0.1:26400"}
		cfg.Groups = []Group{{Name: "main", Members: []Member{{Address: "127.0.0.1:7000", Replication: "127.0.0.1:7100"}}}}
		tc.change(cfg)
		err := cfg.Validate()
		if !checkProblems(t, tc.name, err, tc.want) {
			continue
		}
		if n := len(err.(*ConfigError).Problems); n != len(tc.want) {
			t.Errorf("%s: %d problems, want %d: %v", tc.name, n, len(tc.want), err)
		}
	}
}

// A certificate renewed on disk is what the coordinator port shows on the
// next handshake, without a restart.
func TestCoordinatorPortServesARenewedCertificate(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	_, pm := dataNode(t, "primary", "")
	dir := t.TempDir()
	first := ca.Issue("coordinator", "127.0.0.1")
	cert, key := first.Write(t, dir)
	c := startCoordinator(t, []Group{{Name: "main", Members: []Member{pm}}}, func(c *Config) {
		c.TLSCert, c.TLSKey, c.TLSCA = cert, key, ca.File
	})
	served := func() string {
		conn, err := tls.Dial("tcp", c.Addr(), clientTLS(t, ca))
		if err != nil {
			return "dial: " + err.Error()
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
	}
	if got := served(); got != first.Serial.String() {
		t.Fatalf("served %s, want serial %s", got, first.Serial)
	}
	second := ca.Issue("coordinator renewed", "127.0.0.1")
	second.Write(t, dir)
	poll.Until(t, 10*time.Second, "the renewed certificate", func() bool { return served() == second.Serial.String() })
}
