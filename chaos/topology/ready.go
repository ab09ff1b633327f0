package topology

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"
)

// Readiness checks every backend shares: a node is up when each of its
// ports answers PING, and start-up and stop waits poll a condition.

// pingTimeout bounds one Ping: a node that takes longer is not up yet.
const pingTimeout = time.Second

// Ping sends one RESP PING to addr and expects +PONG; with a secret (a
// coordinator's) it sends AUTH first and expects +OK. With cfg it speaks
// TLS, verifying the server's certificate for addr's host.
func Ping(ctx context.Context, addr, secret string, cfg *tls.Config) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if cfg != nil {
		cfg = cfg.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return err
		}
		c = tc
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	req := "*1\r\n$4\r\nPING\r\n"
	if secret != "" {
		req = fmt.Sprintf("*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n", len(secret), secret) + req
	}
	if _, err := c.Write([]byte(req)); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	if secret != "" {
		if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
			return fmt.Errorf("AUTH answered %q (%v)", line, err)
		}
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// PollInterval is how often Poll asks its condition again.
const PollInterval = 50 * time.Millisecond

// Poll calls cond every PollInterval until it reports true or an error,
// or until timeout passes or ctx ends; who prefixes the errors (the
// backend's name), what says what was waited for.
func Poll(ctx context.Context, who string, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: timed out after %s waiting for %s", who, timeout, what)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for %s: %w", who, what, ctx.Err())
		case <-time.After(PollInterval):
		}
	}
}
