package docker

import (
	"crypto/tls"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/testcontainers/testcontainers-go"

	"github.com/ruvio/ruvio/chaos/topology"
)

// A topology on TLS (Topology.TLS) on Docker: the run's CA and one
// certificate naming every container's address on the run network are
// made on the host and copied into each container at tlsDir; the data
// nodes serve TLS on tlsPort + i beside their clear-text ports and
// replicate over TLS, the coordinators take TLS only on coordPort and
// dial the data nodes' TLS ports (node_tls), and the harness dials
// everything with TLS.

const (
	// tlsPort is shard 0's TLS port inside a data node's container.
	tlsPort = 6479
	// tlsDir holds the CA and the certificate inside every container.
	tlsDir = "/tls"
)

// inContainer are the TLS files' paths inside a container.
var inContainer = topology.TLSFiles{CA: tlsDir + "/ca.pem", Cert: tlsDir + "/node.pem", Key: tlsDir + "/node-key.pem"}

// makeTLS writes the run's CA and certificate under dir, naming every
// address in ips (and loopback, for a node dialling itself).
func (c *cluster) makeTLS(dir string, ips map[string]netip.Addr) error {
	hosts := []string{"127.0.0.1", "localhost"}
	for _, ip := range ips {
		hosts = append(hosts, ip.String())
	}
	tdir := filepath.Join(dir, "tls-"+c.runID)
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return fmt.Errorf("docker backend: tls dir: %w", err)
	}
	f, err := topology.WriteTLSFiles(tdir, hosts)
	if err != nil {
		return fmt.Errorf("docker backend: %w", err)
	}
	cfg, err := f.ClientConfig()
	if err != nil {
		return fmt.Errorf("docker backend: %w", err)
	}
	c.tlsFiles, c.clientTLS = &f, cfg
	return nil
}

// tlsContainerFiles are the files a container of a TLS run gets.
func (c *cluster) tlsContainerFiles() []testcontainers.ContainerFile {
	if c.tlsFiles == nil {
		return nil
	}
	return []testcontainers.ContainerFile{
		{HostFilePath: c.tlsFiles.CA, ContainerFilePath: inContainer.CA, FileMode: 0o644},
		{HostFilePath: c.tlsFiles.Cert, ContainerFilePath: inContainer.Cert, FileMode: 0o644},
		{HostFilePath: c.tlsFiles.Key, ContainerFilePath: inContainer.Key, FileMode: 0o600},
	}
}

// TLSConfig is what clients dial the cluster's nodes and coordinators
// with (topology.TLSCluster), nil when the topology is not on TLS.
func (c *cluster) TLSConfig() *tls.Config {
	if c.clientTLS == nil {
		return nil
	}
	return c.clientTLS.Clone()
}

// clientPort is shard 0's port the harness and the coordinators dial on
// a data node: its TLS port in a TLS run.
func (c *cluster) clientPort() int {
	if c.tlsFiles != nil {
		return tlsPort
	}
	return nodePort
}
