package local

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ruvio/ruvio/chaos/topology"
)

// makeTLS writes the run's CA and certificate into dir/tls. The
// certificate names every address a link dials: the proxies' and inbound
// addresses on proxyHost, and each node's own loopback address (the
// coordinators' listen addresses, which they also name themselves by).
// A TCP proxy passes TLS through untouched, so the name checked is that
// of the proxy, not the node behind it.
func (c *Cluster) makeTLS(dir string) error {
	hosts := []string{proxyHost, "localhost"}
	for i := range c.topo.Nodes {
		if ip := loopbackIP(i, canBind); ip != proxyHost {
			hosts = append(hosts, ip)
		}
	}
	tdir := filepath.Join(dir, "tls")
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return fmt.Errorf("local backend: tls dir: %w", err)
	}
	f, err := topology.WriteTLSFiles(tdir, hosts)
	if err != nil {
		return fmt.Errorf("local backend: %w", err)
	}
	cfg, err := f.ClientConfig()
	if err != nil {
		return fmt.Errorf("local backend: %w", err)
	}
	c.tlsFiles, c.clientTLS = &f, cfg
	return nil
}

// TLSConfig is what clients dial the cluster's nodes and coordinators
// with (topology.TLSCluster), nil when the topology is not on TLS.
func (c *Cluster) TLSConfig() *tls.Config {
	if c.clientTLS == nil {
		return nil
	}
	return c.clientTLS.Clone()
}
