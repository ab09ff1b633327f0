package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/tlsconf"
)

// TLS on a data node. Plain and TLS clients can use one node at the same
// time: tls_port is a second set of client ports beside port, as Redis's
// tls-port sits beside its port, and shard i takes TLS clients on
// tls_port+i. Nothing else changes with TLS: the same commands, the same
// users, the same auth.
//
// tls_client_ca is the node's one CA bundle: it vouches for the
// certificates clients show (tls_client_auth) and, with replication.tls,
// for the primary's certificate a replica checks and the replica's
// certificate a primary asks for. Redis's tls-ca-cert-file serves both the
// same way.
//
// Every TLS key is fixed at start, since the listeners are opened once; the
// files themselves are read again on the next handshake after they change
// on disk (see package tlsconf).

// defaultTLSClientAuth is "no", unlike Redis's "yes": a node with a
// server certificate and no CA then starts and takes TLS clients, and asking
// clients for certificates is a choice made together with tls_client_ca.
const defaultTLSClientAuth = tlsconf.AuthNo

// tlsCAUsers says which settings make use of tls_client_ca, for the
// problem reported when it is missing.
func (c *Config) tlsCAUsers() []string {
	var users []string
	if c.TLSClientAuth != tlsconf.AuthNo && (c.TLSPort != 0 || c.Replication.TLS) {
		users = append(users, "tls_client_auth = "+strconv.Quote(c.TLSClientAuth))
	}
	if c.Replication.TLS {
		users = append(users, "replication.tls = true")
	}
	return users
}

// TLSFiles returns the node's certificate, key and CA files for package
// tlsconf.
func (c *Config) TLSFiles() tlsconf.Files {
	return tlsconf.Files{Cert: c.TLSCert, Key: c.TLSKey, CA: c.TLSClientCA}
}

// TLSEnabled says whether the node opens TLS client ports.
func (c *Config) TLSEnabled() bool { return c.TLSPort != 0 }

// TLSOnly says whether the node takes clients on its TLS ports only
// (port = 0).
func (c *Config) TLSOnly() bool { return c.Port == 0 && c.TLSPort != 0 }

// BasePort is the client port the node's other ports and its identity
// count from: port, or tls_port on a node that takes TLS clients only.
// The replication listener's default is BasePort + 20000, a replica
// announces it, and the cluster node IDs derive from it.
func (c *Config) BasePort() int {
	if c.TLSOnly() {
		return c.TLSPort
	}
	return c.Port
}

// validateTLS checks the TLS keys together: what needs what, and that the
// files named load. Every problem is reported, each under its key.
func (c *Config) validateTLS() []Problem {
	var ps []Problem
	quoted := strconv.Quote
	if c.TLSPort >= 1 && c.TLSPort <= maxPort && c.Shards >= 1 && c.Shards <= maxShards {
		if last := c.TLSPort + c.Shards - 1; last > maxPort {
			ps = append(ps, Problem{Key: "tls_port", Value: strconv.Itoa(c.TLSPort),
				Msg: fmt.Sprintf("with shards = %d the last shard would take TLS clients on port %d; tls_port + shards - 1 must be at most %d",
					c.Shards, last, maxPort)})
		} else if c.Port != 0 && c.TLSPort <= c.Port+c.Shards-1 && c.Port <= last {
			ps = append(ps, Problem{Key: "tls_port", Value: strconv.Itoa(c.TLSPort),
				Msg: fmt.Sprintf("the TLS ports %d-%d overlap the client ports %d-%d", c.TLSPort, last, c.Port, c.Port+c.Shards-1)})
		}
	}
	switch {
	case c.TLSCert != "" && c.TLSKey == "":
		ps = append(ps, Problem{Key: "tls_key", Value: `""`, Msg: "must name the key of tls_cert"})
	case c.TLSCert == "" && c.TLSKey != "":
		ps = append(ps, Problem{Key: "tls_cert", Value: `""`, Msg: "must name the certificate of tls_key"})
	case c.TLSCert == "" && c.TLSPort != 0:
		ps = append(ps, Problem{Key: "tls_cert", Value: `""`, Msg: "must name the node's certificate (with tls_key) when tls_port is set"})
	case c.TLSCert == "" && c.Replication.TLS:
		ps = append(ps, Problem{Key: "tls_cert", Value: `""`,
			Msg: "must name the node's certificate (with tls_key) when replication.tls is on: the replication listener shows it"})
	}
	if c.TLSCert != "" && c.TLSKey != "" {
		if err := tlsconf.Check(tlsconf.Files{Cert: c.TLSCert, Key: c.TLSKey}); err != nil {
			ps = append(ps, Problem{Key: "tls_cert", Value: quoted(c.TLSCert), Msg: "does not load: " + err.Error()})
		}
	}
	if c.TLSClientCA != "" {
		if err := tlsconf.Check(tlsconf.Files{CA: c.TLSClientCA}); err != nil {
			ps = append(ps, Problem{Key: "tls_client_ca", Value: quoted(c.TLSClientCA), Msg: "does not load: " + err.Error()})
		}
	} else if users := c.tlsCAUsers(); len(users) > 0 {
		ps = append(ps, Problem{Key: "tls_client_ca", Value: `""`,
			Msg: "must name a CA bundle (PEM) with " + strings.Join(users, " and ")})
	}
	return ps
}

// tlsAuthField is tls_client_auth.
func tlsAuthField() field {
	f := enumField("tls_client_auth", "tls-client-auth", func(c *Config) *string { return &c.TLSClientAuth }, tlsconf.AuthModes)
	return f.alias("tls-auth-clients")
}
