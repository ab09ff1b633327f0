package workloads

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/reports/history"
)

// conn is one workload client's link to one node: a go-redis client with a
// single pooled connection, plus what its dialer and handshake observed,
// which is what tells a refused operation from an indeterminate one. A
// Sentinel client (a go-redis FailoverClient) finds the node itself, and
// its node is the primary it last dialled.
type conn struct {
	addr string
	rdb  redisClient
	// cluster is set for a cluster client (ViaCluster), which finds each
	// key's node itself.
	cluster *clusterState
	// sentinel marks a FailoverClient; master is then the address of
	// the primary it last dialled.
	sentinel bool
	master   atomic.Pointer[string]
	// ready is true while a connection has finished its handshake and no
	// dial has begun since. go-redis writes a command only on such a
	// connection, so an operation that ends in a transport error while
	// ready is false never reached the server.
	ready atomic.Bool
	// dialFailed is set when a dial fails. go-redis then stops dialing for
	// up to a second (its pool's dial circuit breaker, which probes once a
	// second); the workload replaces the whole client instead, so that a
	// restarted node is seen as soon as it listens, not up to a second
	// later, which would inflate the measured unavailability.
	dialFailed atomic.Bool
}

// redisClient is what the workloads use of a go-redis client, single
// node, Sentinel or cluster.
type redisClient interface {
	redis.Cmdable
	Watch(ctx context.Context, fn func(*redis.Tx) error, keys ...string) error
	Wait(ctx context.Context, numSlaves int, timeout time.Duration) *redis.IntCmd
	Do(ctx context.Context, args ...any) *redis.Cmd
	Close() error
}

// dialError marks an error from our dialer: the TCP connection was never
// established, so nothing was sent.
type dialError struct{ err error }

func (e *dialError) Error() string { return "dial: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// dial opens a TCP connection to addr and, when cfg is set, a TLS session
// on it that verifies the server's certificate for addr's host (unless
// cfg names a ServerName), within d's timeout. Either failing is a
// dialError: no command was written.
func dial(ctx context.Context, d *net.Dialer, cfg *tls.Config, network, addr string) (net.Conn, error) {
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, &dialError{err: err}
	}
	if cfg == nil {
		return nc, nil
	}
	cfg = cfg.Clone()
	if cfg.ServerName == "" {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			cfg.ServerName = host
		}
	}
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, &dialError{err: fmt.Errorf("tls handshake: %w", err)}
	}
	return tc, nil
}

// newConn makes a client for addr with spec's timeout and durability.
// Nothing is dialed until the first operation.
func newConn(addr string, spec Spec) *conn {
	timeout := spec.Timeout
	c := &conn{addr: addr}
	d := &net.Dialer{Timeout: timeout}
	c.rdb = redis.NewClient(&redis.Options{
		Addr: addr,
		// RESP2 keeps the handshake to a single HELLO; nothing here needs
		// push frames.
		Protocol:        2,
		DisableIdentity: true,
		// Never retry: a retried write that timed out the first time
		// could apply twice, and a retry hides exactly the indeterminacy
		// the history must show.
		MaxRetries:    -1,
		DialerRetries: 1,
		DialTimeout:   timeout,
		ReadTimeout:   timeout,
		WriteTimeout:  timeout,
		PoolTimeout:   timeout,
		PoolSize:      1,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c.ready.Store(false)
			nc, err := dial(ctx, d, spec.TLS, network, addr)
			if err != nil {
				c.dialFailed.Store(true)
				return nil, err
			}
			return nc, nil
		},
		// go-redis calls OnConnect after HELLO succeeded and before it
		// writes the command that needed the connection.
		OnConnect: c.onConnect(spec),
	})
	return c
}

// onConnect marks the connection ready and turns durability on for it.
// A connection the node refuses durability on (a replica does) is not
// used: the operation that needed it gets the node's error reply.
func (c *conn) onConnect(spec Spec) func(context.Context, *redis.Conn) error {
	var durable func(context.Context, *redis.Conn) error
	if spec.Durable > 0 {
		// The node's wait ends before the client's read timeout, so a
		// write that found too few replicas is answered NOREPLICAS
		// rather than left to time out.
		durable = client.Durability(spec.Durable, spec.Timeout*3/4)
	}
	return func(ctx context.Context, cn *redis.Conn) error {
		c.ready.Store(true)
		if durable != nil {
			return durable(ctx, cn)
		}
		return nil
	}
}

// newSentinelConn makes a go-redis FailoverClient that asks sentinels for
// spec.Master's primary, with spec's timeouts and durability, configured
// as docs/coordinator.md recommends. Its dialer tells the primary's dials
// from the sentinels' and notes which primary it dialled.
//
// go-redis's pool stops dialing once PoolSize dials have failed and then
// probes once a second, and +switch-master does not reset that: with one
// connection per client, the first failed dial to the dead primary held a
// client back for up to a second after the switch. Each dial attempt asks
// the sentinels for the primary again, so an attempt retried
// DialerRetryTimeout later (go-redis's default five attempts) reaches the
// new primary as soon as the switch is made. A dial to a host that is gone
// waits out DialTimeout, and the attempt under way when the switch comes
// is the client's share of the failover: DialTimeout is a fifth of the
// operation timeout (a tenth of the coordinators' default down_after_ms)
// and the attempts are 20 ms apart, as docs/coordinator.md advises. Ten
// failed dials (the pool's default size on one CPU) still take longer
// than a failover: five attempts take 580 ms.
func newSentinelConn(sentinels []string, spec Spec) *conn {
	c := &conn{sentinel: true}
	isSentinel := map[string]bool{}
	for _, a := range sentinels {
		isSentinel[a] = true
	}
	d := &net.Dialer{Timeout: spec.Timeout}
	c.rdb = redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:         spec.Master,
		SentinelAddrs:      sentinels,
		SentinelPassword:   spec.SentinelPassword,
		Protocol:           2,
		DisableIdentity:    true,
		MaxRetries:         -1,
		DialerRetries:      5,
		DialerRetryTimeout: 20 * time.Millisecond,
		DialTimeout:        spec.Timeout / 5,
		ReadTimeout:        spec.Timeout,
		WriteTimeout:       spec.Timeout,
		PoolTimeout:        spec.Timeout,
		PoolSize:           10,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			primary := !isSentinel[addr]
			if primary {
				c.ready.Store(false)
				c.master.Store(&addr)
			}
			nc, err := dial(ctx, d, spec.TLS, network, addr)
			if err != nil {
				if primary {
					c.dialFailed.Store(true)
				}
				return nil, err
			}
			return nc, nil
		},
		// Shared with the sentinels' connections: a sentinel's handshake
		// can mark ready while the primary's is pending, which makes an
		// unsent command indeterminate, never the other way round.
		OnConnect: c.onConnect(spec),
	})
	return c
}

// node is the address the client's operations go to: its target, or for
// a Sentinel client the primary it last dialled ("" before any).
func (c *conn) node() string {
	if !c.sentinel {
		return c.addr
	}
	if p := c.master.Load(); p != nil {
		return *p
	}
	return ""
}

// nodeOf is the address an op on key went to: node(), or for a cluster
// client the node its last command on key was sent to.
func (c *conn) nodeOf(key string) string {
	if c.cluster != nil {
		return c.cluster.servedBy(key)
	}
	return c.node()
}

// replaceable says whether the workload may drop this client for a new
// one after a failure. Sentinel and cluster clients are kept: following
// the primary is their own job, and how fast they do so is what their
// scenarios measure.
func (c *conn) replaceable() bool { return !c.sentinel && c.cluster == nil }

func (c *conn) close() { _ = c.rdb.Close() }

// classify turns an operation's error into its outcome. c is the
// connection it ran on, read after the operation returned.
//
//   - no error: ok.
//   - the NOREPLICAS of CLIENT DURABILITY, whose wait for replicas ran
//     out: info. The write stays applied on the primary; it is only not
//     acknowledged.
//   - any other error reply (READONLY, the NOREPLICAS of
//     min-replicas-to-write, LOADING, OOM, EXECABORT, a nil EXEC...):
//     fail. The server answered that it did not do it.
//   - no connection finished its handshake for this operation (a refused
//     or timed-out dial, a HELLO that timed out on a frozen node, a pool
//     timeout): fail. The command was never written.
//   - anything else (a read or write timeout, io.EOF, ECONNRESET, EPIPE, or
//     an error we do not recognise) on a connection that was established:
//     info. The command may have been applied; an unknown error is info
//     because calling it fail could turn a real loss into a pass.
func classify(err error, c *conn) string {
	switch {
	case err == nil, errors.Is(err, redis.Nil):
		return history.OK
	case isErrorReply(err) && appliedAnyway(err):
		return history.Info
	case isErrorReply(err):
		return history.Fail
	case neverSent(err, c):
		return history.Fail
	default:
		return history.Info
	}
}

// isErrorReply reports whether err is the server's error reply rather than
// a transport failure.
func isErrorReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// appliedAnyway reports whether an error reply still leaves the write
// applied: the NOREPLICAS CLIENT DURABILITY answers when too few replicas
// acknowledged in time (the writes stay applied), unlike the
// NOREPLICAS of min-replicas-to-write, which refuses the write.
func appliedAnyway(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "NOREPLICAS") && strings.Contains(msg, "stay applied")
}

// neverSent reports whether err proves the command never left the client.
func neverSent(err error, c *conn) bool {
	var de *dialError
	switch {
	case errors.As(err, &de):
		return true
	case errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrClosed):
		return true
	case c != nil && c.cluster != nil:
		// Its ready flag is not kept (see cluster.go).
		return false
	case c != nil && !c.ready.Load():
		return true
	}
	return false
}

// cause names the transport failure behind an indeterminate or refused
// operation, for the debug log; the history keeps the error text itself.
func cause(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case isErrorReply(err):
		return "error reply"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset"
	}
	return "other"
}

// RouteClientLogs sends go-redis's own log lines (it reports every failed
// dial, which under a kill nemesis is many per second) to l at debug
// level instead of stderr, where they would break the progress line. It
// changes process-wide go-redis state, so the runner calls it once; the
// workloads never do.
func RouteClientLogs(l *slog.Logger) {
	redis.SetLogger(slogLogger{l})
}

type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Printf(ctx context.Context, format string, v ...any) {
	s.l.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
