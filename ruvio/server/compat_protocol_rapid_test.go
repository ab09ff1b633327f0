package server

import (
	"strings"
	"testing"

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
// them (answerDiff).
func TestDrawnRequestsAnswerAsRedis(t *testing.T) {
	rc := startRedis(t, 2)
	s := startServer(t, nil)
	redisAddr, ruvioAddr := rc.Options().Addr, s.Addr(0)
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(protocolTokens), 1, 12).Draw(t, "parts")
		if msg := answerDiff(redisAddr, ruvioAddr, strings.Join(parts, "")); msg != "" {
			t.Fatal(msg)
		}
	})
}
