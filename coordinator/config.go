// Package coordinator runs `ruvio coordinator`: it gathers what its pings and the other coordinators
// observe, asks package rules what to do, and carries it out through Raft and data-node commands.
package coordinator

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// Member is one data node of a group (rules.Member, named here for the
// configuration and its users).
type Member = rules.Member

// Group is a replication group: a primary and its replicas.
type Group struct {
	Name    string   `toml:"name"`
	Members []Member `toml:"members"`
	// Shards and Slots place the group in a cluster map, when several
	// groups share the hash slots (clustermap.go): how many shards each
	// member runs, and its slot ranges ("first-last", or
	// "first-last@shard"). Either every group sets shards or none does.
	Shards int      `toml:"shards"`
	Slots  []string `toml:"slots"`
}

// Config is coordinator.toml.
type Config struct {
	ID      int      `toml:"id"`
	Listen  string   `toml:"listen"`
	DataDir string   `toml:"data_dir"`
	Peers   []string `toml:"peers"`
	Secret  string   `toml:"secret"`
	// PingIntervalMs is how often every member is pinged.
	PingIntervalMs int `toml:"ping_interval_ms"`
	// DownAfterMs is how long a primary must be silent, to a majority of
	// coordinators, before it is failed over.
	DownAfterMs     int  `toml:"down_after_ms"`
	UncleanFailover bool `toml:"unclean_failover"`
	// PrimaryLeaseMs (0: off) and PrimaryLeaseDriftPercent are the
	// primary lease (docs/lease.md), validated by the lease package's rules.
	PrimaryLeaseMs           int `toml:"primary_lease_ms"`
	PrimaryLeaseDriftPercent int `toml:"primary_lease_drift_percent"`
	// Auth is how coordinators log in to data nodes: "password" or
	// "user password".
	Auth             string `toml:"auth"`
	Join             bool   `toml:"join"`
	TLSCert          string `toml:"tls_cert"`
	TLSKey           string `toml:"tls_key"`
	TLSCA            string `toml:"tls_ca"`
	NodeTLS          bool   `toml:"node_tls"`
	InsecureNoSecret bool   `toml:"insecure_no_secret"`
	// MetricsListen is the address of the Prometheus metrics and health
	// listener (/metrics, /healthz, /readyz); "" serves none.
	MetricsListen string  `toml:"metrics_listen"`
	Groups        []Group `toml:"groups"`
}

// Peer is one entry of peers: "id@host:port".
type Peer struct {
	ID   int
	Addr string
}

// DefaultConfig has the documented defaults (docs/coordinator.md).
func DefaultConfig() *Config {
	return &Config{PingIntervalMs: 500, DownAfterMs: 3000, PrimaryLeaseDriftPercent: 10, DataDir: "./coordinator-data"}
}

// LoadConfig reads the file at path over the defaults, applies
// RUVIO_COORDINATOR_SECRET from env, and validates.
func LoadConfig(path string, env func(string) string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	c, err := ParseConfig(b, env)
	var ce *ConfigError
	if err != nil && !errors.As(err, &ce) {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return c, err
}

// ParseConfig reads a coordinator.toml's bytes over the defaults, applies
// RUVIO_COORDINATOR_SECRET from env, and validates: a file that is not
// TOML is an error, and every problem of one that is comes back at once
// (a *ConfigError).
func ParseConfig(data []byte, env func(string) string) (*Config, error) {
	c := DefaultConfig()
	md, err := toml.Decode(string(data), c)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, k := range md.Undecoded() {
		problems = append(problems, k.String()+": unknown key")
	}
	if env != nil {
		if s := env("RUVIO_COORDINATOR_SECRET"); s != "" {
			c.Secret = s
		}
	}
	problems = append(problems, c.problems()...)
	if len(problems) > 0 {
		return nil, &ConfigError{Problems: problems}
	}
	return c, nil
}

// ConfigError lists every problem of a configuration.
type ConfigError struct{ Problems []string }

func (e *ConfigError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid coordinator configuration: " + e.Problems[0]
	}
	return fmt.Sprintf("invalid coordinator configuration (%d problems): %s", len(e.Problems), strings.Join(e.Problems, "; "))
}

// Validate returns a *ConfigError listing every problem, or nil.
func (c *Config) Validate() error {
	if ps := c.problems(); len(ps) > 0 {
		return &ConfigError{Problems: ps}
	}
	return nil
}

func hostPortProblem(s string) string {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Sprintf("%q is not host:port", s)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return fmt.Sprintf("%q: port must be 1-65535", s)
	}
	if host == "" {
		return fmt.Sprintf("%q has no host", s)
	}
	return ""
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) problems() []string {
	var ps []string
	add := func(format string, a ...any) { ps = append(ps, fmt.Sprintf(format, a...)) }
	if c.ID < 1 {
		add("id = %d: must be a positive integer listed in peers", c.ID)
	}
	if p := hostPortProblem(c.Listen); p != "" {
		add("listen: %s", p)
	}
	if c.DataDir == "" {
		add("data_dir: must not be empty")
	}
	if c.MetricsListen != "" {
		// Port 0 (any free port) is allowed: tests read the address back.
		if _, port, err := net.SplitHostPort(c.MetricsListen); err != nil || port == "" {
			add("metrics_listen: %q is not host:port (\"\" serves no metrics)", c.MetricsListen)
		}
	}
	peers, perr := c.ParsePeers()
	for _, e := range perr {
		add("peers: %s", e)
	}
	if len(perr) == 0 {
		found := false
		for _, p := range peers {
			found = found || p.ID == c.ID
		}
		// Also with join = true: the entry for itself is the address the
		// others reach it at, which Raft advertises.
		if !found && len(peers) > 0 {
			add("peers: this coordinator's id %d is not listed (peers must list at least itself)", c.ID)
		}
		if len(peers) == 0 {
			add("peers: at least one coordinator must be listed, this one included")
		}
	}
	if c.PingIntervalMs < 10 {
		add("ping_interval_ms = %d: must be at least 10", c.PingIntervalMs)
	}
	if c.DownAfterMs < c.PingIntervalMs || c.DownAfterMs < 100 {
		add("down_after_ms = %d: must be at least ping_interval_ms (%d) and 100", c.DownAfterMs, c.PingIntervalMs)
	}
	if c.PrimaryLeaseMs < 0 {
		add("primary_lease_ms = %d: must be 0 (off) or positive", c.PrimaryLeaseMs)
	}
	if c.PrimaryLeaseDriftPercent < 0 || c.PrimaryLeaseDriftPercent >= 100 {
		add("primary_lease_drift_percent = %d: must be 0-99", c.PrimaryLeaseDriftPercent)
	}
	ps = append(ps, rules.LeaseProblems(c.PrimaryLeaseMs, c.PingIntervalMs, c.DownAfterMs, c.PrimaryLeaseDriftPercent, len(c.Peers))...)
	if f := strings.Fields(c.Auth); len(f) > 2 {
		add(`auth: must be "password" or "user password"`)
	}
	ps = append(ps, c.tlsProblems()...)
	if host, _, err := net.SplitHostPort(c.Listen); err == nil && !isLoopback(host) && c.Secret == "" && !c.InsecureNoSecret {
		add("secret: required when listen (%s) is not a loopback address (set secret or RUVIO_COORDINATOR_SECRET, or insecure_no_secret = true for a network nobody else can reach)", c.Listen)
	}
	names := map[string]bool{}
	if len(c.Groups) == 0 {
		add("groups: at least one [[groups]] table is needed")
	}
	for i, g := range c.Groups {
		where := fmt.Sprintf("groups[%d]", i)
		if g.Name == "" || strings.ContainsAny(g.Name, " \t\r\n") {
			add("%s.name: must be a non-empty name without spaces", where)
		}
		if names[g.Name] {
			add("%s.name: %q is used twice", where, g.Name)
		}
		names[g.Name] = true
		if len(g.Members) == 0 {
			add("%s.members: at least one member", where)
		}
		addrs := map[string]bool{}
		for j, m := range g.Members {
			mw := fmt.Sprintf("%s.members[%d]", where, j)
			if p := hostPortProblem(m.Address); p != "" {
				add("%s.address: %s", mw, p)
			}
			if p := hostPortProblem(m.Replication); p != "" {
				add("%s.replication: %s", mw, p)
			}
			if addrs[m.Address] {
				add("%s.address: %q is listed twice", mw, m.Address)
			}
			addrs[m.Address] = true
		}
	}
	ps = append(ps, c.clusterProblems()...)
	return ps
}

// ParsePeers parses peers, reporting every bad entry.
func (c *Config) ParsePeers() ([]Peer, []string) {
	var out []Peer
	var bad []string
	seen := map[int]bool{}
	for _, p := range c.Peers {
		id, addr, ok := strings.Cut(p, "@")
		n, err := strconv.Atoi(id)
		switch {
		case !ok || err != nil || n < 1:
			bad = append(bad, fmt.Sprintf("%q is not id@host:port", p))
			continue
		case hostPortProblem(addr) != "":
			bad = append(bad, fmt.Sprintf("%q: %s", p, hostPortProblem(addr)))
			continue
		case seen[n]:
			bad = append(bad, fmt.Sprintf("id %d is listed twice", n))
			continue
		}
		seen[n] = true
		out = append(out, Peer{ID: n, Addr: addr})
	}
	return out, bad
}

// authArgs splits auth into the user and password data-node logins use.
func (c *Config) authArgs() (user, password string) {
	f := strings.Fields(c.Auth)
	switch len(f) {
	case 1:
		return "", f[0]
	case 2:
		return f[0], f[1]
	}
	return "", ""
}
