package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/infotext"
)

// respTimeout bounds one command of the replication probes. A probe that
// waits longer than this is not measuring lag any more but a stuck server.
const respTimeout = 5 * time.Second

// respConn is the smallest client the replication probes need: one
// connection, one command at a time, replies that are not arrays. It is
// not a general client; redis-benchmark does the load.
type respConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// reply is one RESP reply other than an array. Null is set for a nil bulk
// string, which is how GET says the key is missing.
type reply struct {
	Str  string
	Int  int64
	Null bool
}

// dialRESP connects to addr.
func dialRESP(ctx context.Context, addr string) (*respConn, error) {
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &respConn{conn: conn, r: bufio.NewReader(conn)}, nil
}

// do sends args as a RESP array and reads the reply. An error reply comes
// back as an error carrying the server's words.
func (c *respConn) do(args ...string) (reply, error) {
	if err := c.conn.SetDeadline(time.Now().Add(respTimeout)); err != nil {
		return reply{}, err
	}
	if _, err := c.conn.Write(encodeCommand(args)); err != nil {
		return reply{}, err
	}
	return readReply(c.r)
}

// close closes the connection.
func (c *respConn) close() { c.conn.Close() }

// encodeCommand renders args as a RESP array of bulk strings.
func encodeCommand(args []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return []byte(b.String())
}

// errServer is an error reply; the message is the server's.
var errServer = errors.New("server replied with an error")

// serverError is an error reply as readReply returns it: errors.Is it
// errServer, and Msg holds the server's words (e.g. "NOREPLICAS ...").
type serverError struct{ Msg string }

func (e *serverError) Error() string { return errServer.Error() + ": " + e.Msg }
func (e *serverError) Unwrap() error { return errServer }

// readReply reads one reply of the kinds the probes get: simple string,
// error, integer or bulk string.
func readReply(r *bufio.Reader) (reply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return reply{}, err
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return reply{}, errors.New("empty reply line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return reply{Str: body}, nil
	case '-':
		return reply{}, &serverError{Msg: body}
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return reply{}, fmt.Errorf("bad integer reply %q", line)
		}
		return reply{Int: n}, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return reply{}, fmt.Errorf("bad bulk length %q", line)
		}
		if n == -1 {
			return reply{Null: true}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return reply{}, err
		}
		if string(buf[n:]) != "\r\n" {
			return reply{}, fmt.Errorf("bulk string of %d bytes not followed by CRLF", n)
		}
		return reply{Str: string(buf[:n])}, nil
	default:
		return reply{}, fmt.Errorf("unexpected reply %q", line)
	}
}

// info runs INFO section and returns its fields.
func (c *respConn) info(section string) (map[string]string, error) {
	r, err := c.do("INFO", section)
	if err != nil {
		return nil, fmt.Errorf("INFO %s: %w", section, err)
	}
	return infotext.Parse(r.Str), nil
}

// infoInt reads an integer field of an INFO map.
func infoInt(m map[string]string, key string) (int64, error) {
	v, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("INFO has no %s field", key)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("INFO %s=%q is not an integer", key, v)
	}
	return n, nil
}

// commandCalls reads the calls count of one command from an INFO
// commandstats map ("cmdstat_set:calls=3,usec=12,..."); a command never
// called has no line and counts 0.
func commandCalls(m map[string]string, command string) (int64, error) {
	v, ok := m["cmdstat_"+strings.ToLower(command)]
	if !ok {
		return 0, nil
	}
	for _, kv := range strings.Split(v, ",") {
		if n, ok := strings.CutPrefix(kv, "calls="); ok {
			calls, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("cmdstat_%s calls=%q is not an integer", command, n)
			}
			return calls, nil
		}
	}
	return 0, fmt.Errorf("cmdstat_%s %q has no calls", command, v)
}
