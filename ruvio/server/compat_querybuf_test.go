package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// setRequest is a raw SET of key to n bytes.
func setRequest(key string, n int) string {
	return fmt.Sprintf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(key), key, n, strings.Repeat("x", n))
}

// client-query-buffer-limit closes a client that sends an argument
// larger than it, with no reply and nothing stored; arguments each under
// it pass however large the command (Redis reads a large argument into a
// buffer of its own). proto-max-bulk-len refuses a larger argument as a
// protocol error. Both apply at once to connections already open.
func TestQueryLimitsAnswerAsRedis(t *testing.T) {
	ctx := context.Background()
	r := startRedis(t, 2)
	s := startServer(t, nil)
	u := client(t, s, 0)
	for _, c := range []*redis.Client{r, u} {
		if err := c.ConfigSet(ctx, "client-query-buffer-limit", "1mb").Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, req := range []string{
		setRequest("big", 3_000_000),
		setRequest("edge", 1<<20-2),
		setRequest("over", 1<<20-1),
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$700000\r\n" + strings.Repeat("y", 700000) + "\r\n" + setRequest("two", 700000),
		"STRLEN big\r\nSTRLEN edge\r\nSTRLEN over\r\nSTRLEN k\r\nSTRLEN two\r\n",
	} {
		if msg := answerDiff(r.Options().Addr, s.Addr(0), req); msg != "" {
			t.Error(shorten(msg))
		}
	}
	// On one connection, open before the change: the announced length
	// alone is refused.
	for _, addr := range []string{r.Options().Addr, s.Addr(0)} {
		c := dialRaw(t, addr)
		c.send("PING\r\n")
		c.expect("+PONG\r\n")
		c.send("CONFIG SET proto-max-bulk-len 1mb\r\n")
		c.expect("+OK\r\n")
		c.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2097152\r\n")
		c.expect("-ERR Protocol error: invalid bulk length\r\n")
		c.expectClosed()
	}
}

// shorten cuts the long arguments out of a difference's text.
func shorten(msg string) string {
	for _, c := range []string{"x", "y"} {
		for strings.Contains(msg, strings.Repeat(c, 100)) {
			msg = strings.ReplaceAll(msg, strings.Repeat(c, 100), "")
		}
	}
	return msg
}
