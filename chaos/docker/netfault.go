package docker

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Partitions are packet drops installed with iptables inside the receiving
// container's network namespace, entered from the host through the
// container's PID (Jepsen's method, without SSH). This cuts single links in
// one direction, leaves the others alone, and makes a cut link fail the
// way a real partition does: silently, with timeouts, never with a refusal.
//
// A link From -> To is cut where its packets would be delivered: an INPUT
// rule on To dropping From's address, or, when To is the Client (the host,
// which has no namespace of ours), an OUTPUT rule on From dropping the
// gateway's address. TCP needs packets both ways, so cutting one direction
// also stalls connections opened in the other; a scenario that wants a
// protocol-level one-way cut must say so in its report.

// rule returns the node whose namespace carries the rule for a link and the
// iptables arguments that append it.
func (c *cluster) rule(l topology.Link) (string, []string, error) {
	if l.From == l.To {
		return "", nil, fmt.Errorf("docker backend: cut %s -> %s: a link needs two ends", l.From, l.To)
	}
	addr := func(name string) (netip.Addr, error) {
		if name == topology.Client {
			return c.gateway, nil
		}
		n, err := c.get(name)
		if err != nil {
			return netip.Addr{}, err
		}
		return n.ip, nil
	}
	if l.To == topology.Client {
		if _, err := c.get(l.From); err != nil {
			return "", nil, err
		}
		return l.From, []string{"-A", "OUTPUT", "-d", c.gateway.String(), "-j", "DROP"}, nil
	}
	if _, err := c.get(l.To); err != nil {
		return "", nil, err
	}
	src, err := addr(l.From)
	if err != nil {
		return "", nil, err
	}
	return l.To, []string{"-A", "INPUT", "-s", src.String(), "-j", "DROP"}, nil
}

// Cut drops traffic on the given links, in addition to those already cut.
// A link into a stopped node is remembered and installed when it restarts.
func (c *cluster) Cut(ctx context.Context, links []topology.Link) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, l := range links {
		if c.cut[l] {
			continue
		}
		name, args, err := c.rule(l)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := c.install(ctx, name, args); err != nil {
			errs = append(errs, fmt.Errorf("docker backend: cut %s -> %s: %w", l.From, l.To, err))
			continue
		}
		c.cut[l] = true
		c.log.Debug("link cut", "from", l.From, "to", l.To)
	}
	return errors.Join(errs...)
}

// Heal removes every cut. Only the filter table is flushed: Docker's
// embedded DNS (which resolves the nodes' aliases) lives in the nat table
// of the same namespace.
func (c *cluster) Heal(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, name := range c.order {
		running, pid, err := c.state(ctx, c.nodes[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !running {
			// A stopped container's namespace, and its rules, are gone.
			continue
		}
		for _, chain := range []string{"INPUT", "OUTPUT"} {
			if err := iptables(ctx, pid, "-F", chain); err != nil {
				errs = append(errs, fmt.Errorf("docker backend: heal %s: %w", name, err))
			}
		}
	}
	if err := c.unshape(ctx); err != nil {
		errs = append(errs, fmt.Errorf("docker backend: heal the slow links: %w", err))
	}
	if len(errs) == 0 {
		clear(c.cut)
	}
	return errors.Join(errs...)
}

// applyCuts installs, in a freshly started container, the rules of every
// cut link that belongs in its namespace. The caller holds c.mu.
func (c *cluster) applyCuts(ctx context.Context, name string) error {
	links := make([]topology.Link, 0, len(c.cut))
	for l := range c.cut {
		links = append(links, l)
	}
	sort.Slice(links, func(i, j int) bool {
		return links[i].From+"\x00"+links[i].To < links[j].From+"\x00"+links[j].To
	})
	for _, l := range links {
		target, args, err := c.rule(l)
		if err != nil {
			return err
		}
		if target != name {
			continue
		}
		if err := c.install(ctx, name, args); err != nil {
			return fmt.Errorf("docker backend: re-cut %s -> %s after restart: %w", l.From, l.To, err)
		}
	}
	return nil
}

// install appends one rule in a running node's namespace; on a stopped node
// it does nothing, since Restart re-installs the cut.
func (c *cluster) install(ctx context.Context, name string, args []string) error {
	running, pid, err := c.state(ctx, c.nodes[name])
	if err != nil || !running {
		return err
	}
	return iptables(ctx, pid, args...)
}

// iptables runs iptables in the network namespace of process pid.
func iptables(ctx context.Context, pid int, args ...string) error {
	for _, bin := range []string{"nsenter", "iptables"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s not found on the host (Debian: apt-get install util-linux iptables): %w", bin, err)
		}
	}
	// -w waits for the xtables lock instead of failing when another
	// iptables runs at the same moment (Docker's own, for instance).
	full := append([]string{"-t", strconv.Itoa(pid), "-n", "iptables", "-w"}, args...)
	out, err := exec.CommandContext(ctx, "nsenter", full...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("nsenter %s: %w: %s", strings.Join(full, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
