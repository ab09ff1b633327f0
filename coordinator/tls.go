package coordinator

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/ruvio/ruvio/ruvio/tlsconf"
)

// TLS of the coordinator port and of the coordinator's dials.
//
// With tls_cert and tls_key the coordinator port takes only TLS: the Raft
// calls and the client API alike. The port asks clients for no
// certificate; the secret is what admits another coordinator or a client,
// and TLS hides it. This coordinator then dials the other coordinators
// with TLS too, verifying their certificates against tls_ca.
//
// With node_tls the member addresses are the data nodes' TLS addresses
// (their tls_port): the coordinator dials them with TLS, verifies them
// against tls_ca, and shows its own certificate to a node that asks for
// one. The certificate a dial verifies must name the host dialed.
//
// The files are read again on the handshake after they change on disk
// (package tlsconf).

// tlsFiles names the configured PEM files.
func (c *Config) tlsFiles() tlsconf.Files {
	return tlsconf.Files{Cert: c.TLSCert, Key: c.TLSKey, CA: c.TLSCA}
}

// portTLS is whether the coordinator port, and the dials to the other
// coordinators, use TLS.
func (c *Config) portTLS() bool { return c.TLSCert != "" }

func (c *Config) tlsProblems() []string {
	var ps []string
	if c.TLSCert != "" && c.TLSKey == "" {
		ps = append(ps, "tls_cert: set without tls_key (set both or neither)")
	}
	if c.TLSKey != "" && c.TLSCert == "" {
		ps = append(ps, "tls_key: set without tls_cert (set both or neither)")
	}
	uses := c.TLSCert != "" || c.TLSKey != "" || c.NodeTLS
	if uses && c.TLSCA == "" {
		ps = append(ps, "tls_ca: required with tls_cert, tls_key or node_tls (the CA that vouches for the other coordinators' and the data nodes' certificates)")
	}
	if !uses && c.TLSCA != "" {
		ps = append(ps, "tls_ca: set without tls_cert and tls_key or node_tls, so nothing would use it")
	}
	if c.NodeTLS && c.clustered() {
		ps = append(ps, "node_tls: not supported with groups sharing the slots (shards set): the cluster map names members by their plain client addresses")
	}
	if c.TLSCert != "" && c.TLSKey != "" {
		if err := tlsconf.Check(tlsconf.Files{Cert: c.TLSCert, Key: c.TLSKey}); err != nil {
			ps = append(ps, fmt.Sprintf("tls_cert, tls_key: %v", err))
		}
	}
	if c.TLSCA != "" {
		if err := tlsconf.Check(tlsconf.Files{CA: c.TLSCA}); err != nil {
			ps = append(ps, fmt.Sprintf("tls_ca: %v", err))
		}
	}
	return ps
}

// loadTLS reads the TLS files when any TLS setting is on.
func (c *Coordinator) loadTLS() error {
	if !c.cfg.portTLS() && !c.cfg.NodeTLS {
		return nil
	}
	store, err := tlsconf.Load(c.cfg.tlsFiles(), c.log)
	if err != nil {
		return err
	}
	c.tls = store
	return nil
}

// listenTLS wraps the coordinator port's listener when the port is on TLS.
func (c *Coordinator) listenTLS(ln net.Listener) net.Listener {
	if !c.cfg.portTLS() {
		return ln
	}
	return tlsconf.NewListener(ln, c.tls.ServerConfig(tlsconf.AuthNo), c.log)
}

// dialTLS connects to addr and completes a TLS handshake within timeout,
// verifying that the certificate names addr's host. toNode marks a dial to
// a data node, where a request for a client certificate this coordinator
// does not have is logged.
func (c *Coordinator) dialTLS(ctx context.Context, addr string, timeout time.Duration, toNode bool) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cfg := c.tls.ClientConfig(host)
	if toNode && c.cfg.TLSCert == "" {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if c.noCertWarn.allow(time.Now()) {
				c.log.Warn("a data node asks for a client certificate and this coordinator has none: set tls_cert and tls_key, or the node refuses the connection when it requires one",
					"member", addr)
			}
			return &tls.Certificate{}, nil
		}
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
	}
	return tc, nil
}
