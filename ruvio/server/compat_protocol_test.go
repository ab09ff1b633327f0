package server

import (
	"context"
	"github.com/ruvio/ruvio/ruvio/config"

	"bytes"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
)

// rawExchange sends req on a fresh connection to addr and returns every
// byte the server answers until it closes the connection (closed) or
// stays quiet for quiet.
func rawExchange(addr, req string, quiet time.Duration) (reply []byte, closed bool, err error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, false, err
	}
	defer nc.Close()
	// A server that closes the connection before it has read the whole
	// request (a query over its limit) may reset it under the write:
	// that is a close, and what it answered before is still read.
	_, werr := nc.Write([]byte(req))
	buf := make([]byte, 4096)
	for {
		nc.SetReadDeadline(time.Now().Add(quiet))
		n, err := nc.Read(buf)
		reply = append(reply, buf[:n]...)
		var ne net.Error
		switch {
		case err == nil:
		case errors.As(err, &ne) && ne.Timeout():
			return reply, werr != nil, nil
		default:
			return reply, true, nil
		}
	}
}

// Requests a client library never sends, byte for byte, answer what
// redis-server answers: the same reply bytes, and the connection closed
// or kept as Redis does. (A bulk argument not followed by CRLF is the one
// known difference, docs/compatibility.md: TestGarbageDisconnectsOnlyThatClient
// holds ruvio's answer.)
func TestRawRequestsAnswerAsRedis(t *testing.T) {
	rc := startRedis(t, 2)
	s := startServer(t, nil)
	requests := []string{
		"*1\r\n$4\r\nPING\r\n",
		"*01\r\n$4\r\nPING\r\n",
		"*+1\r\n$4\r\nPING\r\n",
		"* 1\r\n$4\r\nPING\r\n",
		"*1 \r\n$4\r\nPING\r\n",
		"*abc\r\n",
		"*0\r\nPING\r\n",
		"*-1\r\nPING\r\n",
		"*-7\r\nPING\r\n",
		"*1\r\n$04\r\nPING\r\n",
		"*1\r\n$+4\r\nPING\r\n",
		"*1\r\n$-0\r\n\r\n",
		"*1\r\n$-1\r\n",
		"*1\r\n$4 \r\nPING\r\n",
		"*1\r\nPING\r\n",
		"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nabc\r\nGET k\r\n",
		"*2\r\n$4\r\nINCR\r\n$2\r\nk2\r\n*3\r\n$6\r\nINCRBY\r\n$2\r\nk2\r\n$2\r\n07\r\n",
		"PING\n",
		"  PING  \r\n",
		"\r\n\r\nPING\r\n",
		"ECHO \"a\\x41b\"\r\n",
		"ECHO \"unbalanced\r\n",
		"ECHO 'it''s'\r\n",
		"ECHO \"a\"b\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabc",
		"*3\r\n$3\r\nSET\r\n",
		"*1\r\n$4\r\nPING\r\n*",
		// A header ends at its CR; Redis steps over the next byte unread.
		"*1\rx$4\ryPING\r\n",
		"*$\r*",
		"*1\n$4\nPING\n",
		"*1\r\n\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r",
		// Replies whose null type a client library does not tell apart.
		"COMMAND INFO nosuch\r\n",
		"COMMAND INFO get nosuch\r\n",
		"PUBSUB CHANNELS a b\r\n",
		"PUBSUB SHARDCHANNELS a b\r\n",
		"CLIENT KILL USER nouser\r\n",
	}
	redisAddr, ruvioAddr := rc.Options().Addr, s.Addr(0)
	for _, req := range requests {
		if msg := answerDiff(redisAddr, ruvioAddr, req); msg != "" {
			t.Error(msg)
		}
	}
}

// answerDiff sends req to redis-server and to ruvio and returns how their
// answers differ ("" when they do not). A server that keeps the
// connection open gives no sign that it is done answering, so each side
// is read until it closes the connection or is quiet a moment; a
// difference is looked at again with a long quiet before it counts, so a
// slow moment of either server is not taken for one.
func answerDiff(redisAddr, ruvioAddr, req string) string {
	diff := func(quiet time.Duration) string {
		a, ca, errA := rawExchange(redisAddr, req, quiet)
		b, cb, errB := rawExchange(ruvioAddr, req, quiet)
		if err := errors.Join(errA, errB); err != nil {
			return fmt.Sprintf("%q: %v", req, err)
		}
		if bytes.Equal(a, b) && ca == cb {
			return ""
		}
		return fmt.Sprintf("%q:\n  redis answered %q (closed %v)\n  ruvio answered %q (closed %v)", req, a, ca, b, cb)
	}
	if diff(30*time.Millisecond) == "" {
		return ""
	}
	return diff(time.Second)
}

// Before AUTH on a node with a password, HELLO without AUTH answers
// redis-server 7.0's NOAUTH words.
func TestHelloBeforeAuthAnswersAsRedis(t *testing.T) {
	rc := startRedis(t, 2)
	if err := rc.ConfigSet(context.Background(), "requirepass", "pw").Err(); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(c *config.Config) { c.Auth = "pw" })
	for _, req := range []string{"HELLO 3\r\n", "HELLO\r\n", "HELLO 3 AUTH default nope\r\n", "GET k\r\n"} {
		if msg := answerDiff(rc.Options().Addr, s.Addr(0), req); msg != "" {
			t.Error(msg)
		}
	}
}
