package local

import (
	"fmt"
	"net"
	"path/filepath"
)

// SetBinary makes the next start of a node run binary, with settings
// (RUVIO_ variables) added to its environment, overriding those it had:
// how the upgrade procedures restart a node on a new release.
func (c *Cluster) SetBinary(name, binary string, settings map[string]string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return fmt.Errorf("local backend: binary: %w", err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.redis {
		return fmt.Errorf("local backend: %s runs Redis, not ruvio", name)
	}
	n.binary = abs
	// os/exec keeps the last of duplicate variables.
	for k, v := range settings {
		n.env = append(n.env, k+"="+v)
	}
	return nil
}

// MetricsAddr is where a data node serves /metrics ("" for a coordinator
// or a Redis process).
func (c *Cluster) MetricsAddr(name string) string {
	n, err := c.node(name)
	if err != nil || n.redis {
		return ""
	}
	if p := n.metricsAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// freeLoopbackAddr is a loopback address with a port free right now.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("local backend: a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
