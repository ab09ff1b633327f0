package local

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Redis and Sentinel (topology.SystemRedis): the data nodes are
// redis-server processes, the coordinators redis-sentinel processes,
// laid out as ruvio's are. Every member reaches a data node or a
// Sentinel at its inbound address (see inbound.go), which is what the
// nodes announce (replica-announce-ip/port), what the replicas follow
// and what the Sentinels monitor and announce to each other, so cuts act
// per link exactly as they do for ruvio. Redis replicates over its client
// port: there are no replication listeners.

// redisSystem says whether the topology runs Redis.
func (c *Cluster) redisSystem() bool { return c.topo.System == topology.SystemRedis }

// redisBinary finds redis-server (Sentinel is the same binary with
// --sentinel).
func redisBinary() (string, error) {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("local backend: the redis system needs redis-server (Debian: apt-get install redis-server redis-sentinel): %w", err)
	}
	return p, nil
}

// redisArgs is the command line of a Redis process after the binary.
func (n *node) redisArgs() []string {
	if n.coordinator() {
		return []string{n.configPath, "--sentinel"}
	}
	return []string{n.configPath}
}

// writeRedisConfig writes n's redis.conf or sentinel.conf. Redis and
// Sentinel rewrite their files themselves afterwards (CONFIG REWRITE at a
// failover), so a restart keeps what Sentinel made of the node, as on a
// real host.
func (c *Cluster) writeRedisConfig(n *node) error {
	host, port, _ := net.SplitHostPort(n.addrs()[0])
	inHost, inPort, err := net.SplitHostPort(c.MemberAddr(n.spec.Name))
	if err != nil {
		return fmt.Errorf("local backend: %s has no inbound address: %w", n.spec.Name, err)
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# %s of %s, written by the chaos harness", filepath.Base(n.configPath), n.spec.Name)
	line("bind %s", host)
	line("port %s", port)
	line("dir %s", n.dataDir)
	line("daemonize no")
	line("logfile \"\"")
	line("protected-mode no")
	if n.coordinator() {
		primary := c.topo.Primary()
		pHost, pPort, err := net.SplitHostPort(c.MemberAddr(primary))
		if err != nil {
			return fmt.Errorf("local backend: primary %s has no inbound address: %w", primary, err)
		}
		s := c.topo.Coordination
		down := s.DownAfterMs
		if down == 0 {
			down = topology.DefaultDownAfterMs
		}
		line("requirepass %s", c.secret)
		line("sentinel sentinel-pass %s", c.secret)
		line("sentinel announce-ip %s", inHost)
		line("sentinel announce-port %s", inPort)
		line("sentinel resolve-hostnames no")
		line("sentinel monitor %s %s %s %d", topology.GroupName, pHost, pPort, RedisQuorum(len(c.topo.Coordinators())))
		line("sentinel down-after-milliseconds %s %d", topology.GroupName, down)
	} else {
		line("replica-announce-ip %s", inHost)
		line("replica-announce-port %s", inPort)
		if n.spec.ReplicaOf != "" {
			pHost, pPort, err := net.SplitHostPort(c.MemberAddr(n.spec.ReplicaOf))
			if err != nil {
				return fmt.Errorf("local backend: %s has no inbound address: %w", n.spec.ReplicaOf, err)
			}
			line("replicaof %s %s", pHost, pPort)
		}
		for _, a := range n.spec.Args {
			if strings.ContainsAny(a, "\n\r") {
				return fmt.Errorf("local backend: redis directive %q of %s spans lines", a, n.spec.Name)
			}
			line("%s", a)
		}
	}
	return writeFileAtomic(n.configPath, []byte(b.String()))
}

// RedisQuorum is the Sentinel quorum the backends configure for n
// Sentinels: a majority.
func RedisQuorum(n int) int { return n/2 + 1 }
