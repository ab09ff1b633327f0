package server

import (
	"bytes"
	"errors"
	"net"
	"sync"
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
	if _, err := nc.Write([]byte(req)); err != nil {
		return nil, false, err
	}
	buf := make([]byte, 4096)
	for {
		nc.SetReadDeadline(time.Now().Add(quiet))
		n, err := nc.Read(buf)
		reply = append(reply, buf[:n]...)
		var ne net.Error
		switch {
		case err == nil:
		case errors.As(err, &ne) && ne.Timeout():
			return reply, false, nil
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
	}
	type answer struct {
		reply  []byte
		closed bool
	}
	got := make([][2]answer, len(requests))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for i, req := range requests {
		for side, addr := range []string{rc.Options().Addr, s.Addr(0)} {
			wg.Go(func() {
				reply, closed, err := rawExchange(addr, req, 300*time.Millisecond)
				mu.Lock()
				defer mu.Unlock()
				errs = append(errs, err)
				got[i][side] = answer{reply, closed}
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i, req := range requests {
		redis, ruvio := got[i][0], got[i][1]
		if !bytes.Equal(redis.reply, ruvio.reply) || redis.closed != ruvio.closed {
			t.Errorf("%q:\n  redis answered %q (closed %v)\n  ruvio answered %q (closed %v)", req, redis.reply, redis.closed, ruvio.reply, ruvio.closed)
		}
	}
}
