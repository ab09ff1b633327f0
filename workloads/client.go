package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/history"
)

// conn is one workload client's link to one node: a go-redis client with a
// single pooled connection, plus what its dialer and handshake observed,
// which is what tells a refused operation from an indeterminate one.
type conn struct {
	addr string
	rdb  *redis.Client
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

// dialError marks an error from our dialer: the TCP connection was never
// established, so nothing was sent.
type dialError struct{ err error }

func (e *dialError) Error() string { return "dial: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// newConn makes a client for addr. Nothing is dialed until the first
// operation.
func newConn(addr string, timeout time.Duration) *conn {
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
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				c.dialFailed.Store(true)
				return nil, &dialError{err: err}
			}
			return nc, nil
		},
		// go-redis calls OnConnect after HELLO succeeded and before it
		// writes the command that needed the connection.
		OnConnect: func(context.Context, *redis.Conn) error {
			c.ready.Store(true)
			return nil
		},
	})
	return c
}

func (c *conn) close() { _ = c.rdb.Close() }

// classify turns an operation's error into its outcome. c is the
// connection it ran on, read after the operation returned.
//
//   - no error: ok.
//   - an error reply (READONLY, NOREPLICAS, LOADING, OOM, EXECABORT, a nil
//     EXEC...): fail. The server answered that it did not do it.
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

// neverSent reports whether err proves the command never left the client.
func neverSent(err error, c *conn) bool {
	var de *dialError
	switch {
	case errors.As(err, &de):
		return true
	case errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrClosed):
		return true
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
