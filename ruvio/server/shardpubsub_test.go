package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// readAll returns what arrives on nc until it stays quiet for a while.
func readAll(t *testing.T, nc net.Conn) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := nc.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return b.String()
			}
			t.Fatal(err)
		}
	}
}

// shardPubsubExchange plays sharded pub/sub between two raw clients and
// returns everything each received.
func shardPubsubExchange(t *testing.T, addr string, proto string) string {
	sub, pub := dialRaw(t, addr), dialRaw(t, addr)
	var out []string
	say := func(r *rawConn, cmds string) string {
		r.send(cmds)
		return readAll(t, r.nc)
	}
	out = append(out, say(sub, "HELLO "+proto+"\r\n")[:0])
	out = append(out, say(pub, "HELLO "+proto+"\r\n")[:0])
	out = append(out,
		say(sub, "SUNSUBSCRIBE\r\nSSUBSCRIBE {t}a {t}b {t}a\r\n"),
		// The order of an unfiltered list is unspecified: one name a pattern.
		say(pub, "PUBSUB SHARDCHANNELS *b\r\nPUBSUB SHARDCHANNELS *a\r\nPUBSUB SHARDNUMSUB {t}a {t}c\r\nSPUBLISH {t}a hello\r\nSPUBLISH {t}c nobody\r\nPUBLISH {t}a plain\r\n"),
		readAll(t, sub.nc),
		say(sub, "SUBSCRIBE ch\r\nSUNSUBSCRIBE {t}a\r\nPING\r\nSUNSUBSCRIBE\r\nUNSUBSCRIBE\r\n"),
		say(pub, "PUBSUB SHARDCHANNELS\r\nCLIENT LIST TYPE pubsub\r\n")[:0],
	)
	return strings.Join(out, "|")
}

func TestShardedPubsubLikeRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	for _, proto := range []string{"2", "3"} {
		want := shardPubsubExchange(t, r.Options().Addr, proto)
		got := shardPubsubExchange(t, s.Addr(0), proto)
		if got != want {
			t.Fatalf("RESP%s:\nruvio %q\nredis %q", proto, got, want)
		}
	}
}

func TestShardChannelsCrossSlotAndMoved(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	ca := client(t, a.s, 0)
	kb := keyIn(8192, 12287, "b0-")
	ka := keyIn(0, 4095, "a0-")
	want := fmt.Sprintf("MOVED %d %s", slots.Of([]byte(kb)), addr(b.port))
	if err := ca.Do(ctx, "SPUBLISH", kb, "m").Err(); err == nil || err.Error() != want {
		t.Fatalf("SPUBLISH of another group's channel: %v, want %s", err, want)
	}
	cn := ca.Conn()
	defer cn.Close()
	if err := cn.Do(ctx, "SSUBSCRIBE", kb).Err(); err == nil || err.Error() != want {
		t.Fatalf("SSUBSCRIBE of another group's channel: %v", err)
	}
	if err := cn.Do(ctx, "SSUBSCRIBE", ka, ka+"x").Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
		t.Fatalf("SSUBSCRIBE across slots: %v", err)
	}
	ps := ca.SSubscribe(ctx, ka)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if n := ca.SPublish(ctx, ka, "hi").Val(); n != 1 {
		t.Fatalf("SPUBLISH reached %d", n)
	}
	m, err := ps.ReceiveMessage(ctx)
	if err != nil || m.Channel != ka || m.Payload != "hi" {
		t.Fatalf("message %+v %v", m, err)
	}
}
