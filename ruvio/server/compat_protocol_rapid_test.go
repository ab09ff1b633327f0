package server

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// protocolTokens are the pieces drawn requests are made of: the
// protocol's markers, numbers good and bad, line ends, quotes and a few
// commands that answer without changing anything much.
var protocolTokens = []string{
	"*", "$", "0", "1", "2", "3", "4", "01", "-1", "-0", "+1", "10", " ", "\r\n", "\n", "\r",
	"PING", "ECHO", "\"", "'", "\\x41", "\\n", "a", "bc", "PING\r\n", "*1\r\n$4\r\nPING\r\n",
	"*2\r\n$4\r\nECHO\r\n", "$3\r\nabc\r\n", "$0\r\n\r\n",
}

// Drawn requests made of protocol pieces answer as redis-server answers
// them. Replies are read until the server closes the connection or stays
// quiet a moment; a difference is looked at again with a long wait before
// it counts, so a slow moment of either server is not taken for one.
func TestDrawnRequestsAnswerAsRedis(t *testing.T) {
	rc := startRedis(t, 2)
	s := startServer(t, nil)
	redisAddr, ruvioAddr := rc.Options().Addr, s.Addr(0)
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(protocolTokens), 1, 12).Draw(t, "parts")
		req := strings.Join(parts, "")
		exchange := func(quiet time.Duration) (a, b []byte, ca, cb bool) {
			var err error
			if a, ca, err = rawExchange(redisAddr, req, quiet); err != nil {
				t.Fatal(err)
			}
			if b, cb, err = rawExchange(ruvioAddr, req, quiet); err != nil {
				t.Fatal(err)
			}
			return a, b, ca, cb
		}
		a, b, ca, cb := exchange(30 * time.Millisecond)
		if bytes.Equal(a, b) && ca == cb {
			return
		}
		if a, b, ca, cb = exchange(time.Second); !bytes.Equal(a, b) || ca != cb {
			t.Fatalf("%q:\n  redis answered %q (closed %v)\n  ruvio answered %q (closed %v)", req, a, ca, b, cb)
		}
	})
}
