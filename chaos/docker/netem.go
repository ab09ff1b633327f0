package docker

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Slow links are tc netem queues installed, like the cuts, from the host
// in the sending container's network namespace (nsenter): a prio qdisc
// on eth0 whose fourth band is a netem queue, and a u32 filter per slowed
// destination sending that traffic through it. Packets are really
// delayed and dropped, so TCP's own retransmissions show the loss. A
// link from the Client (the host) is slowed on its way back instead: the
// container's traffic to the gateway. A restarted container comes back
// at full speed.

var _ topology.Degrader = (*cluster)(nil)

// Degrade slows every link with n until Heal.
func (c *cluster) Degrade(ctx context.Context, links []topology.Link, n topology.Netem) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shaped == nil {
		c.shaped = map[string]bool{}
	}
	var errs []error
	for _, l := range links {
		from, to := l.From, l.To
		if from == topology.Client {
			from, to = to, from
		}
		dst := c.gateway
		if to != topology.Client {
			n, err := c.get(to)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			dst = n.ip
		}
		if err := c.shape(ctx, from, dst, n); err != nil {
			errs = append(errs, fmt.Errorf("docker backend: slow %s -> %s: %w", l.From, l.To, err))
		}
	}
	return errors.Join(errs...)
}

// shape sends name's traffic to dst through its netem band, setting the
// band up on first use. The caller holds c.mu.
func (c *cluster) shape(ctx context.Context, name string, dst netip.Addr, n topology.Netem) error {
	nd, err := c.get(name)
	if err != nil {
		return err
	}
	running, pid, err := c.state(ctx, nd)
	if err != nil || !running {
		return err
	}
	if !c.shaped[name] {
		netem := []string{"qdisc", "add", "dev", "eth0", "parent", "1:4", "handle", "40:", "netem",
			"delay", ms(n.Delay.Milliseconds()), ms(n.Jitter.Milliseconds())}
		if n.LossPercent > 0 {
			netem = append(netem, "loss", strconv.FormatFloat(n.LossPercent, 'f', -1, 64)+"%")
		}
		for _, args := range [][]string{
			{"qdisc", "add", "dev", "eth0", "root", "handle", "1:", "prio", "bands", "4",
				"priomap", "1", "2", "2", "2", "1", "2", "0", "0", "1", "1", "1", "1", "1", "1", "1", "1"},
			netem,
		} {
			if err := tc(ctx, pid, args...); err != nil {
				return err
			}
		}
		c.shaped[name] = true
	}
	return tc(ctx, pid, "filter", "add", "dev", "eth0", "parent", "1:0", "protocol", "ip", "prio", "1",
		"u32", "match", "ip", "dst", dst.String()+"/32", "flowid", "1:4")
}

// unshape removes every netem queue; the caller holds c.mu.
func (c *cluster) unshape(ctx context.Context) error {
	var errs []error
	for name := range c.shaped {
		running, pid, err := c.state(ctx, c.nodes[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if running {
			if err := tc(ctx, pid, "qdisc", "del", "dev", "eth0", "root"); err != nil {
				errs = append(errs, err)
			}
		}
	}
	clear(c.shaped)
	return errors.Join(errs...)
}

func ms(v int64) string { return strconv.FormatInt(v, 10) + "ms" }

// tc runs tc in the network namespace of process pid.
func tc(ctx context.Context, pid int, args ...string) error {
	for _, bin := range []string{"nsenter", "tc"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s not found on the host (Debian: apt-get install util-linux iproute2): %w", bin, err)
		}
	}
	full := append([]string{"-t", strconv.Itoa(pid), "-n", "tc"}, args...)
	out, err := exec.CommandContext(ctx, "nsenter", full...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("nsenter %s: %w: %s", strings.Join(full, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
