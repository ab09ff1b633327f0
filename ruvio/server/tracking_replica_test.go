package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// A client tracking keys on a replica hears of the changes its primary's
// stream makes: writes, deletions, expiry (the primary's DEL) and
// FLUSHALL, in the default mode and in BCAST mode, as Redis replicas
// send them.
func TestReplicaTrackingInvalidations(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 2, asPrimary).start()
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	pc := p.client(0)
	// Keys on both shards of the node.
	keys := []string{"k1", "k2", "k3", "k4", "k5", "k6"}
	for _, k := range keys {
		if err := pc.Set(ctx, k, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pc.Set(ctx, "short", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, p, r)

	side := &trackSide{t: t, addr: r.srv.Addr(0), conns: map[string]*trackConn{}, ids: map[string]string{}}
	defer side.close()
	say := func(conn, cmd string) string {
		t.Helper()
		c := side.conn(conn)
		c.nc.Write(side.command(cmd))
		return side.frame(c)
	}
	say("a", "HELLO 3")
	say("b", "HELLO 3")
	if got := say("a", "CLIENT TRACKING on"); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING on: %q", got)
	}
	if got := say("b", "CLIENT TRACKING on bcast prefix s"); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING on bcast: %q", got)
	}
	for _, k := range append(keys, "short") {
		if got := say("a", "GET "+k); got != "$1\r\nv\r\n" {
			t.Fatalf("GET %s on the replica: %q", k, got)
		}
	}
	invalidation := func(k string) string { return ">2\r\n$10\r\ninvalidate\r\n" + string(keysArray([]string{k})) }

	// Writes and deletions on the primary, on both shards.
	var want []string
	for i, k := range keys {
		if i%2 == 0 {
			pc.Set(ctx, k, "new", 0)
		} else {
			pc.Del(ctx, k)
		}
		want = append(want, invalidation(k))
	}
	// Expiry is the primary's: its DEL reaches the replica. BCAST hears
	// of it too.
	pc.PExpire(ctx, "short", 1)
	want = append(want, invalidation("short"))
	var got []string
	for range want {
		got = append(got, side.frame(side.conn("a")))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("invalidations on the replica:\n%q\nwant\n%q", got, want)
	}
	if f := side.frame(side.conn("b")); f != invalidation("short") {
		t.Fatalf("BCAST client on the replica got %q", f)
	}
	// The key's expiry is a second change to it: the primary's DEL, from
	// its active cycle or, here, the lookup that finds it expired. It
	// reaches the replica before anything below; the BCAST client hears
	// of it once more unless it shared the broadcast of the PEXPIRE.
	poll.Until(t, 10*time.Second, "short to expire on the primary", func() bool { return pc.Exists(ctx, "short").Val() == 0 })
	caughtUp(t, p, r)

	// A key read again is tracked again; FLUSHALL sends one null.
	if got := say("a", "GET k1"); got != "$3\r\nnew\r\n" {
		t.Fatalf("GET k1 again: %q", got)
	}
	pc.Set(ctx, "k1", "newer", 0)
	if f := side.frame(side.conn("a")); f != invalidation("k1") {
		t.Fatalf("second invalidation of k1: %q", f)
	}
	pc.FlushAll(ctx)
	for _, c := range []string{"a", "b"} {
		f := side.frame(side.conn(c))
		if c == "b" && f == invalidation("short") {
			f = side.frame(side.conn(c)) // the expiry's own broadcast
		}
		if f != ">2\r\n$10\r\ninvalidate\r\n_\r\n" {
			t.Fatalf("FLUSHALL on the primary: %s got %q", c, f)
		}
		if got := say(c, "PING"); got != "+PONG\r\n" {
			t.Fatalf("after the flush %s got %q, want only one null", c, got)
		}
	}
}
