package coordinator

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// fakeNode answers every command with one reply, raw RESP.
func fakeNode(t *testing.T, reply string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := nc.Read(buf); err != nil {
						return
					}
					nc.Write([]byte(reply))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestNodeErrorClassifiesRepliesOnce(t *testing.T) {
	ctx := context.Background()
	do := func(reply string) error {
		cl := newClient(fakeNode(t, reply), "", "", time.Second, 1, nil)
		defer cl.Close()
		return nodeError(cl.Do(ctx, "REPLICAOF", "h", "1", "YIELD").Err())
	}
	if err := do("-ERR syntax error\r\n"); !errors.Is(err, errSyntax) || err.Error() != "ERR syntax error" {
		t.Fatalf("syntax error: %v", err)
	}
	if err := do("-ERR Syntax error, try REPLICAOF host port\r\n"); !errors.Is(err, errSyntax) {
		t.Fatalf("syntax error worded otherwise: %v", err)
	}
	err := do("-NOPERM this user has no permissions to run the 'replicaof' command\r\n")
	var re *replyError
	if errors.Is(err, errSyntax) || !errors.As(err, &re) || re.prefix != "NOPERM" {
		t.Fatalf("NOPERM: %v", err)
	}
	// Not a reply: a node that does not answer.
	cl := newClient(freeAddr(t), "", "", 100*time.Millisecond, 1, nil)
	defer cl.Close()
	if err := nodeError(cl.Do(ctx, "PING").Err()); err == nil || errors.As(err, &re) {
		t.Fatalf("a connection error is no reply: %v", err)
	}
	if nodeError(nil) != nil || nodeError(redis.Nil) != redis.Nil {
		t.Fatal("nil and redis.Nil pass through")
	}
}

func TestReplyText(t *testing.T) {
	if got := replyText(errNoSuchMaster); got != "ERR No such master with that name" {
		t.Fatal(got)
	}
	if got := replyText(errors.New("no replica answers")); got != "ERR no replica answers" {
		t.Fatal(got)
	}
	if got := replyText(&replyError{prefix: "NOPERM", text: "no"}); got != "NOPERM no" {
		t.Fatal(got)
	}
}

// A listed replica is known when a member is written the same way, or a
// name resolving to the same address; the names are resolved by
// isKnownMember, where discovery learns addresses, not by SameAddr.
func TestIsKnownMemberResolvesNamesWhereAddressesAreDiscovered(t *testing.T) {
	rec := rules.Record{Members: []Member{{Address: "localhost:7001"}, {Address: "10.9.9.9:7002"}}, Forgotten: []string{"10.9.9.8:7003"}}
	cases := map[string]bool{
		"10.9.9.9:7002":  true,
		"10.9.9.9:07002": true,
		"10.9.9.8:7003":  true,
		"127.0.0.1:7001": true, // localhost resolves to it
		"127.0.0.1:7002": false,
		"10.9.9.7:7001":  false,
	}
	for addr, want := range cases {
		if got := isKnownMember(rec, addr); got != want {
			t.Errorf("%s: %v", addr, got)
		}
	}
}
