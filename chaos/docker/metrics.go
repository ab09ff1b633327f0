package docker

import (
	"net"
	"strconv"
)

// metricsPort is where a data node's container serves /metrics.
const metricsPort = 9121

// MetricsAddr is where the harness reads a data node's metrics: its
// container's address on the run's network ("" for a coordinator or a
// Redis process).
func (c *cluster) MetricsAddr(name string) string {
	n := c.nodes[name]
	if n == nil || !n.metrics {
		return ""
	}
	return net.JoinHostPort(n.ip.String(), strconv.Itoa(metricsPort))
}
