package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode"
)

// RuleValidator, when set, checks the rules string of each [[users]] table
// during Validate. It lives here as a variable because the ACL package,
// which owns the rule syntax, depends on config and not the other way
// round; the program's main sets it before loading the configuration.
var RuleValidator func(rules string) error

// Problem is one thing wrong with a configuration.
type Problem struct {
	// Key is the offending key as written in the file, such as "port" or
	// "users[1].name".
	Key string
	// Value is the offending value, quoted if it is a string; empty when
	// there is nothing useful to show.
	Value string
	// Msg says what is wrong and, where there is a fixed set, what is
	// allowed.
	Msg string
	// Source names where the value came from when it was not the file or
	// the defaults: a flag such as "--port" or a variable such as
	// "RUVIO_PORT". For unknown keys it is the file's path.
	Source string
}

// String formats p as "port = 70000 (from RUVIO_PORT): must be ...".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Key)
	if p.Value != "" {
		b.WriteString(" = ")
		b.WriteString(p.Value)
	}
	if p.Source != "" {
		b.WriteString(" (from ")
		b.WriteString(p.Source)
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(p.Msg)
	return b.String()
}

// ValidationError lists every problem found, so that a bad configuration is
// fixed in one round rather than one complaint per restart.
type ValidationError struct {
	Problems []Problem
}

// Error joins the problems on one line, which keeps them together in
// line-oriented logs.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	if len(parts) == 1 {
		return "invalid configuration: " + parts[0]
	}
	return fmt.Sprintf("invalid configuration (%d problems): %s", len(parts), strings.Join(parts, "; "))
}

// problems returns nil for an empty list, so callers can return it as an
// error directly.
func problems(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}

// Validate checks every key and returns a *ValidationError listing all the
// problems found, or nil. It does not change c.
func (c *Config) Validate() error {
	var ps []Problem
	for _, f := range fields {
		if f.check == nil {
			continue
		}
		if msg := f.check(c); msg != "" {
			ps = append(ps, Problem{Key: f.key, Value: f.show(f.get(c)), Msg: msg})
		}
	}
	// Shard i listens on port+i, so the last shard's port must exist too.
	// Checked only when both keys are in range on their own, to avoid
	// reporting one mistake twice.
	if c.Port >= 1 && c.Port <= maxPort && c.Shards >= 1 && c.Shards <= maxShards {
		if last := c.Port + c.Shards - 1; last > maxPort {
			ps = append(ps, Problem{
				Key:   "port",
				Value: strconv.Itoa(c.Port),
				Msg: fmt.Sprintf("with shards = %d the last shard would listen on port %d; port + shards - 1 must be at most %d",
					c.Shards, last, maxPort),
			})
		}
	}
	ps = append(ps, c.validateReplication()...)
	ps = append(ps, c.validateUsers()...)
	ps = append(ps, c.validateCluster()...)
	ps = append(ps, c.validateTLS()...)
	if c.MetricsListen != "" {
		if _, port, err := net.SplitHostPort(c.MetricsListen); err != nil || port == "" {
			ps = append(ps, Problem{Key: "metrics_listen", Value: strconv.Quote(c.MetricsListen), Msg: "must be host:port (\"\" turns the listener off)"})
		}
	}
	return problems(ps)
}

// validateUsers checks the [[users]] tables. Indexes in keys count from 0,
// in file order.
func (c *Config) validateUsers() []Problem {
	var ps []Problem
	first := make(map[string]int, len(c.Users))
	for i, u := range c.Users {
		key := func(sub string) string { return fmt.Sprintf("users[%d].%s", i, sub) }
		name := strconv.Quote(u.Name)
		switch {
		case u.Name == "":
			ps = append(ps, Problem{Key: key("name"), Value: name, Msg: "must not be empty"})
		case strings.IndexFunc(u.Name, unicode.IsSpace) >= 0:
			// ACL LIST and ACL files separate fields with spaces.
			ps = append(ps, Problem{Key: key("name"), Value: name, Msg: "must not contain spaces"})
		case u.Name == "default":
			ps = append(ps, Problem{Key: key("name"), Value: name,
				Msg: `must not be "default": the default user's password is set with auth`})
		default:
			if j, dup := first[u.Name]; dup {
				ps = append(ps, Problem{Key: key("name"), Value: name, Msg: fmt.Sprintf("duplicates users[%d]", j)})
			} else {
				first[u.Name] = i
			}
		}
		if RuleValidator != nil {
			if err := RuleValidator(u.Rules); err != nil {
				ps = append(ps, Problem{Key: key("rules"), Value: strconv.Quote(u.Rules), Msg: err.Error()})
			}
		}
	}
	return ps
}

// validateCluster checks that cluster_topology and cluster_group come
// together: a node in a cluster map must know its own group. The file
// itself is read when the node starts.
func (c *Config) validateCluster() []Problem {
	switch {
	case c.ClusterTopology != "" && c.ClusterGroup == "":
		return []Problem{{Key: "cluster_group", Value: `""`, Msg: "must name this node's group when cluster_topology is set"}}
	case c.ClusterTopology == "" && c.ClusterGroup != "":
		return []Problem{{Key: "cluster_topology", Value: `""`, Msg: "must name the cluster map file when cluster_group is set"}}
	case strings.ContainsAny(c.ClusterGroup, " \t\r\n"):
		return []Problem{{Key: "cluster_group", Value: strconv.Quote(c.ClusterGroup), Msg: "must not contain spaces"}}
	}
	return nil
}
