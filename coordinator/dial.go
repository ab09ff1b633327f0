package coordinator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Connections to data nodes and to the other coordinators, and the one
// place their error replies are classified.

// dialNode is the one way to open a pool to a data node: the
// coordinators' auth, RESP2, no retries (a failed ping is an answer), no
// CLIENT SETINFO, every operation bounded by timeout.
func (c *Coordinator) dialNode(addr string, timeout time.Duration, pool int) *redis.Client {
	user, pass := c.cfg.authArgs()
	return newClient(addr, user, pass, timeout, pool, c.tlsDialer(c.cfg.NodeTLS, timeout, true))
}

// dialCoordinator opens a pool to another coordinator's port, with the
// shared secret.
func (c *Coordinator) dialCoordinator(addr string, timeout time.Duration, pool int) *redis.Client {
	return newClient(addr, "", c.cfg.Secret, timeout, pool, c.tlsDialer(c.cfg.portTLS(), timeout, false))
}

// tlsDialer is the go-redis dialer of a TLS pool, nil (plain TCP) when on
// is false. Every dial takes the certificate files as they are then.
func (c *Coordinator) tlsDialer(on bool, timeout time.Duration, toNode bool) func(context.Context, string, string) (net.Conn, error) {
	if !on {
		return nil
	}
	return func(ctx context.Context, _, addr string) (net.Conn, error) {
		return c.dialTLS(ctx, addr, timeout, toNode)
	}
}

func newClient(addr, user, pass string, timeout time.Duration, pool int, dialer func(context.Context, string, string) (net.Conn, error)) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr: addr, Username: user, Password: pass, Dialer: dialer,
		DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		MaxRetries: -1, PoolSize: pool, Protocol: 2, DisableIdentity: true,
	})
}

// replyError is an error reply, its prefix (ERR, WRONGPASS, NOAUTH...)
// split off once: from a data node, or for a client of this coordinator.
type replyError struct {
	prefix string
	text   string
}

func (e *replyError) Error() string { return e.prefix + " " + e.text }

// Is makes errors.Is(err, errSyntax) true for ERR syntax error replies.
func (e *replyError) Is(target error) bool {
	return target == errSyntax && e.prefix == "ERR" && strings.HasPrefix(strings.ToLower(e.text), "syntax error")
}

// errSyntax matches a node's ERR syntax error reply: how a data node of an
// older build refuses REPLICAOF host port YIELD.
var errSyntax = errors.New("syntax error")

// errReply is an ERR reply for a client of this coordinator.
func errReply(format string, args ...any) error {
	return &replyError{prefix: "ERR", text: fmt.Sprintf(format, args...)}
}

// nodeError classifies what a command to a data node returned: a reply
// the node gave (go-redis's redis.Error) becomes a *replyError; anything
// else (a timeout, a closed connection) is returned as it is.
func nodeError(err error) error {
	var re redis.Error
	if err == nil || errors.Is(err, redis.Nil) || !errors.As(err, &re) {
		return err
	}
	prefix, text, _ := strings.Cut(re.Error(), " ")
	return &replyError{prefix: prefix, text: text}
}

// replyText is the error reply a client of this coordinator gets for err:
// a reply error as it is, anything else as ERR.
func replyText(err error) string {
	var re *replyError
	if errors.As(err, &re) {
		return re.Error()
	}
	return "ERR " + err.Error()
}
