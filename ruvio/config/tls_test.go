package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

func TestValidateTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	dir := t.TempDir()
	cert, key := ca.Issue("node", "127.0.0.1").Write(t, dir)
	garbage := filepath.Join(dir, "garbage.pem")
	tlstest.WriteFile(t, garbage, []byte("garbage"))
	missing := filepath.Join(dir, "missing.pem")
	on := func(c *Config) { c.TLSPort, c.TLSCert, c.TLSKey = 7379, cert, key }

	tests := []struct {
		name   string
		change func(*Config)
		want   []string // one substring per problem, in order; nil means valid
	}{
		{"off", func(*Config) {}, nil},
		{"port with cert and key", on, nil},
		{"cert and key without port", func(c *Config) { c.TLSCert, c.TLSKey = cert, key }, nil},
		{"port without cert", func(c *Config) { c.TLSPort = 7379 },
			[]string{`tls_cert = "": must name the node's certificate (with tls_key) when tls_port is set`}},
		{"cert without key", func(c *Config) { on(c); c.TLSKey = "" }, []string{`tls_key = "": must name the key of tls_cert`}},
		{"key without cert", func(c *Config) { on(c); c.TLSCert = "" }, []string{`tls_cert = "": must name the certificate of tls_key`}},
		{"unreadable cert", func(c *Config) { on(c); c.TLSCert = missing }, []string{`tls_cert = "` + missing + `": does not load`}},
		{"garbage key", func(c *Config) { on(c); c.TLSKey = garbage }, []string{`tls_cert = "` + cert + `": does not load`}},
		{"unreadable CA", func(c *Config) { on(c); c.TLSClientCA = missing }, []string{`tls_client_ca = "` + missing + `": does not load`}},
		{"garbage CA", func(c *Config) { on(c); c.TLSClientCA = garbage }, []string{"holds no PEM certificate"}},
		{"client auth yes with CA", func(c *Config) { on(c); c.TLSClientAuth, c.TLSClientCA = "yes", ca.File }, nil},
		{"client auth yes without CA", func(c *Config) { on(c); c.TLSClientAuth = "yes" },
			[]string{`tls_client_ca = "": must name a CA bundle (PEM) with tls_client_auth = "yes"`}},
		{"client auth optional without CA", func(c *Config) { on(c); c.TLSClientAuth = "optional" },
			[]string{`tls_client_ca = "": must name a CA bundle (PEM) with tls_client_auth = "optional"`}},
		// Client auth without a TLS port or replication TLS asks nobody.
		{"client auth yes with TLS off", func(c *Config) { c.TLSClientAuth = "yes" }, nil},
		{"client auth unknown", func(c *Config) { c.TLSClientAuth = "sometimes" },
			[]string{`tls_client_auth = "sometimes": must be one of the following: no, optional, yes`}},
		{"replication TLS", func(c *Config) { c.Replication.TLS, c.TLSCert, c.TLSKey, c.TLSClientCA = true, cert, key, ca.File }, nil},
		{"replication TLS alone", func(c *Config) { c.Replication.TLS = true }, []string{
			`tls_cert = "": must name the node's certificate (with tls_key) when replication.tls is on`,
			`tls_client_ca = "": must name a CA bundle (PEM) with replication.tls = true`}},
		{"port range past 65535", func(c *Config) { on(c); c.TLSPort, c.Shards = 65534, 3 },
			[]string{"tls_port = 65534: with shards = 3 the last shard would take TLS clients on port 65536"}},
		{"port out of range", func(c *Config) { on(c); c.TLSPort = 70000 }, []string{"tls_port = 70000: must be between 0 and 65535"}},
		{"overlaps client ports", func(c *Config) { on(c); c.TLSPort, c.Shards = 6380, 2 },
			[]string{"tls_port = 6380: the TLS ports 6380-6381 overlap the client ports 6379-6380"}},
		// port = 0 takes TLS clients only: no plain ports to overlap.
		{"TLS only", func(c *Config) { on(c); c.Port, c.TLSPort, c.Shards = 0, 1, 4 }, nil},
		{"port 0 without a TLS port", func(c *Config) { c.Port = 0 },
			[]string{"port = 0: 0 opens no plain client port, which leaves no port at all without tls_port"}},
		{"everything at once", func(c *Config) {
			c.TLSPort, c.TLSKey, c.TLSClientCA, c.TLSClientAuth, c.Replication.TLS = 6379, garbage, missing, "yes", true
		}, []string{
			"tls_port = 6379: the TLS ports 6379-6379 overlap",
			`tls_cert = "": must name the certificate of tls_key`,
			`tls_client_ca = "` + missing + `": does not load`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.change(c)
			err := c.Validate()
			var got []string
			var ve *ValidationError
			if errors.As(err, &ve) {
				for _, p := range ve.Problems {
					got = append(got, p.String())
				}
			} else if err != nil {
				t.Fatalf("Validate() = %v, want a *ValidationError", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// A node that takes TLS clients only counts its replication listener and
// identity from its TLS port; any other from its plain port.
func TestBasePort(t *testing.T) {
	c := Default()
	c.Bind = "10.0.0.5"
	if c.TLSOnly() || c.BasePort() != 6379 || c.ReplicationListen() != "10.0.0.5:26379" {
		t.Fatalf("plain node: TLSOnly %v, BasePort %d, replication %q", c.TLSOnly(), c.BasePort(), c.ReplicationListen())
	}
	c.TLSPort = 7000
	if c.TLSOnly() || c.BasePort() != 6379 {
		t.Fatalf("TLS beside plain: TLSOnly %v, BasePort %d", c.TLSOnly(), c.BasePort())
	}
	c.Port = 0
	if !c.TLSOnly() || c.BasePort() != 7000 || c.ReplicationListen() != "10.0.0.5:27000" {
		t.Fatalf("TLS only: TLSOnly %v, BasePort %d, replication %q", c.TLSOnly(), c.BasePort(), c.ReplicationListen())
	}
}

// Redis's names for the TLS parameters answer CONFIG GET as ruvio's do,
// and none of them can change at run time.
func TestTLSParams(t *testing.T) {
	c := Default()
	c.TLSPort, c.TLSCert, c.TLSKey, c.TLSClientCA, c.TLSClientAuth, c.Replication.TLS = 7379, "/c.pem", "/k.pem", "/ca.pem", "yes", true
	want := map[string]string{
		"tls-port": "7379", "tls-cert": "/c.pem", "tls-cert-file": "/c.pem", "tls-key": "/k.pem", "tls-key-file": "/k.pem",
		"tls-client-ca": "/ca.pem", "tls-ca-cert-file": "/ca.pem", "tls-client-auth": "yes", "tls-auth-clients": "yes",
		"replication-tls": "yes", "tls-replication": "yes",
	}
	for name, v := range want {
		got := c.GetParams(strings.ToUpper(name))
		if !slices.Equal(got, [][2]string{{name, v}}) {
			t.Errorf("CONFIG GET %s = %v, want %s", name, got, v)
		}
		if err := c.SetParam(name, v); err == nil || !strings.Contains(err.Error(), "can't set immutable config") {
			t.Errorf("CONFIG SET %s = %v, want immutable", name, err)
		}
	}
}

// The TLS rules stated once more, independently: with files that load,
// Validate finds a TLS problem exactly when the certificate and key are
// not set together, TLS is in use without a certificate, or a CA is needed
// and missing.
func TestValidateTLSRulesProperty(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	cert, key := ca.Issue("node", "127.0.0.1").Write(t, t.TempDir())
	rapid.Check(t, func(rt *rapid.T) {
		c := Default()
		port := rapid.Bool().Draw(rt, "tls_port")
		hasCert := rapid.Bool().Draw(rt, "tls_cert")
		hasKey := rapid.Bool().Draw(rt, "tls_key")
		hasCA := rapid.Bool().Draw(rt, "tls_client_ca")
		c.TLSClientAuth = rapid.SampledFrom([]string{"no", "optional", "yes"}).Draw(rt, "tls_client_auth")
		c.Replication.TLS = rapid.Bool().Draw(rt, "replication.tls")
		if port {
			c.TLSPort = 16379
		}
		if hasCert {
			c.TLSCert = cert
		}
		if hasKey {
			c.TLSKey = key
		}
		if hasCA {
			c.TLSClientCA = ca.File
		}
		inUse := port || c.Replication.TLS
		wantProblem := hasCert != hasKey ||
			(inUse && !hasCert) ||
			(!hasCA && (c.Replication.TLS || (inUse && c.TLSClientAuth != "no")))
		err := c.Validate()
		if (err != nil) != wantProblem {
			rt.Fatalf("Validate() = %v, want a problem: %v", err, wantProblem)
		}
	})
}
