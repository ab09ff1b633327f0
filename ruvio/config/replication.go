package config

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Replication roles a node can start in. After start the
// coordinators, or an operator's REPLICAOF, drive the role; the file only
// says where to begin.
const (
	// RoleStandalone is the empty role: the node takes writes and has no
	// primary, as a plain Redis server does.
	RoleStandalone = ""
	// RolePrimary starts the node as the writer of its group.
	RolePrimary = "primary"
	// RoleReplica starts the node following Replication.Primary.
	RoleReplica = "replica"
)

// replicationRoles are the non-empty roles, in the order errors list them.
var replicationRoles = []string{RolePrimary, RoleReplica}

// replicationPortOffset derives the default replication port from the
// client port, 6379 -> 26379, so that nodes on one host with distinct client
// ports get distinct replication ports without configuring them.
const replicationPortOffset = 20000

// Replication is the [replication] table: how this node takes part in a
// primary/replica group.
type Replication struct {
	// Role is the role at start: RoleStandalone, RolePrimary or RoleReplica.
	Role string `toml:"role"`
	// Primary is the primary's replication address, "host:port", that a
	// node starting as a replica follows. Host names are allowed,
	// since containers find each other by name.
	Primary string `toml:"primary"`
	// Listen is this node's replication base address, "host:port": shard i
	// listens on port+i. Empty means bind at the client port +
	// 20000; use ReplicationListen for the address in force. Nodes that
	// coordinators manage set it explicitly, because it is what a
	// promoted replica's own replicas connect to.
	Listen string `toml:"listen"`
	// Password authenticates replicas to their primary. It is required when
	// the listener is reachable from other hosts, and is never shown by
	// CONFIG GET; deployments pass it as RUVIO_REPLICATION_PASSWORD
	// rather than writing it in the file.
	Password string `toml:"password"`
	// Announce is the client address, "host:port", that this node reports
	// to its primary when it is a replica, like Redis's
	// replica-announce-ip and replica-announce-port. Empty: the primary uses
	// the address it sees. It matters behind NAT or port mapping, where the
	// address the primary sees is not one clients can reach.
	Announce string `toml:"announce"`
	// BacklogBytes is how much recent log a primary keeps in memory per
	// shard, so that a replica that reconnects within it continues rather
	// than taking a full copy. Read from the file through fileDoc.
	BacklogBytes int64 `toml:"-"`
	// TLS puts replication on TLS: the listener shows tls_cert (and asks
	// replicas for theirs as tls_client_auth says), and a replica dials its
	// primary with TLS, checking the primary's certificate against
	// tls_client_ca. Set it on every node of a group at once.
	TLS bool `toml:"tls"`
}

// ReplicationListen returns the replication base address in force:
// Replication.Listen if set, else bind at the client port (BasePort) + 20000. It is
// what CONFIG GET replication-listen answers, and may name every
// interface (0.0.0.0 or [::]). A derived address whose shard ports would
// run past 65535 is no address at all, and it returns "" for it rather
// than something no replica could reach (CheckReplicationListen says why).
func (c *Config) ReplicationListen() string {
	if c.Replication.Listen != "" {
		return c.Replication.Listen
	}
	if c.BasePort()+replicationPortOffset+max(c.Shards, 1)-1 > maxPort {
		return ""
	}
	return net.JoinHostPort(c.Bind, strconv.Itoa(c.BasePort()+replicationPortOffset))
}

// roleField is replication.role: an enumerated key that may also be
// empty, the default, for a standalone node.
func roleField() field {
	f := enumField("replication.role", "replication-role", func(c *Config) *string { return &c.Replication.Role }, replicationRoles)
	check := f.check
	f.check = func(c *Config) string {
		if c.Replication.Role == RoleStandalone {
			return ""
		}
		if msg := check(c); msg != "" {
			return msg + ` (or "" for a standalone node)`
		}
		return ""
	}
	return f
}

// listenField is replication.listen. Coordinators discover a node's
// replication address with CONFIG GET, so the parameter answers
// the address in force rather than "" for the default.
func listenField() field {
	f := addrField("replication.listen", "replication-listen", func(c *Config) *string { return &c.Replication.Listen }, true)
	f.getParam = (*Config).ReplicationListen
	return f
}

// addrField is an optional "host:port" string. listening allows the
// every-interface hosts 0.0.0.0 and [::], which make no sense to connect to.
func addrField(key, param string, p func(*Config) *string, listening bool) field {
	f := stringField(key, param, p, false)
	f.check = func(c *Config) string {
		if *p(c) == "" {
			return ""
		}
		return addrProblem(*p(c), listening)
	}
	return f
}

// addrProblem says why s is not a usable "host:port", or returns "".
func addrProblem(s string, listening bool) string {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return `must be host:port, such as "10.0.0.5:26379" or "[::1]:26379"`
	}
	// ParseUint rather than Atoi: no sign, and no service names such as
	// "redis", which net would look up.
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n < 1 {
		return fmt.Sprintf("port must be between 1 and %d inclusive", maxPort)
	}
	if host == "" {
		if listening {
			// Go would take it as every interface; the spelled-out form
			// keeps CONFIG GET's answer unambiguous for coordinators.
			return "host must not be empty; use 0.0.0.0 or [::] for every interface"
		}
		return "host must not be empty"
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !listening && ip.IsUnspecified() {
			return fmt.Sprintf("host %s means every interface and cannot be connected to", host)
		}
		return ""
	}
	if !isHostName(host) {
		return fmt.Sprintf("host %q is neither an IP address nor a host name", host)
	}
	return ""
}

// isHostName accepts DNS names and container names: dot-separated labels of
// letters, digits, '-' and '_' (Docker allows '_'), not starting with '-'.
func isHostName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' {
			return false
		}
		for _, r := range label {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
			if !ok {
				return false
			}
		}
	}
	return true
}

// isLoopback reports whether host only accepts connections from this
// machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// validateReplication checks the rules of [replication] that involve more
// than one key. A key whose own check failed is not checked again here, so
// one mistake gives one problem.
func (c *Config) validateReplication() []Problem {
	var ps []Problem
	r := c.Replication
	if r.Role == RoleReplica && r.Primary == "" {
		ps = append(ps, Problem{Key: "replication.primary", Value: `""`, Msg: `required when replication.role = "replica"`})
	}
	// A standalone node opens no replication port until REPLICAOF gives
	// it a role, so its default address is checked then (see
	// CheckReplicationListen); one that was set is checked now.
	if r.Role == RoleStandalone && r.Listen == "" {
		return ps
	}
	return append(ps, c.listenProblems()...)
}

// CheckReplicationListen reports why the node cannot accept replicas on
// its replication address: the ports do not exist, or the address is not
// loopback and no password is set. The server asks before opening the
// port for a node that started standalone.
func (c *Config) CheckReplicationListen() error {
	return problems(c.listenProblems())
}

func (c *Config) listenProblems() []Problem {
	var ps []Problem
	r := c.Replication
	// The base address in force, when it is well formed: an explicit
	// listen that passed its check, or the default built from a bind and
	// port that passed theirs.
	var host string
	var base int
	switch {
	case r.Listen != "":
		if addrProblem(r.Listen, true) != "" {
			return ps
		}
		var port string
		host, port, _ = net.SplitHostPort(r.Listen)
		base, _ = strconv.Atoi(port)
	case c.Bind != "" && c.BasePort() >= 1 && c.BasePort() <= maxPort:
		host, base = c.Bind, c.BasePort()+replicationPortOffset
	default:
		return ps
	}

	// Shard i listens on base+i, so the last shard's port must
	// exist, as for the client ports.
	if c.Shards >= 1 && c.Shards <= maxShards {
		if last := base + c.Shards - 1; last > maxPort {
			msg := fmt.Sprintf("with shards = %d the last shard would listen on port %d; port + shards - 1 must be at most %d",
				c.Shards, last, maxPort)
			if r.Listen == "" {
				msg = fmt.Sprintf("defaults to port + %d, which puts the last shard on port %d, past %d; set replication.listen",
					replicationPortOffset, last, maxPort)
			}
			ps = append(ps, Problem{Key: "replication.listen", Value: strconv.Quote(r.Listen), Msg: msg})
		}
	}

	// Anyone who can reach the listener could otherwise pose as a replica
	// and read the whole keyspace.
	if r.Password == "" && !isLoopback(host) {
		ps = append(ps, Problem{
			Key: "replication.password",
			Msg: fmt.Sprintf("required when replication.listen (%s) is not a loopback address", c.ReplicationListen()),
		})
	}
	return ps
}
