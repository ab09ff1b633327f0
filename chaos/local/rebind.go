package local

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
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

// freeMetricsAddr is a loopback address for a node's metrics listener:
// a port free now, below the ephemeral range (freePorts) and recorded as
// taken, because the node binds it again at every restart and a port the
// kernel numbered itself could by then be an outgoing connection's.
func (c *Cluster) freeMetricsAddr() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	port, err := freePorts(proxyHost, 1, c.taken)
	if err != nil {
		return "", fmt.Errorf("local backend: a metrics port: %w", err)
	}
	addr := net.JoinHostPort(proxyHost, strconv.Itoa(port))
	c.taken[addr] = true
	return addr, nil
}
