//go:build linux

package server

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// withReplica starts a one-shard primary in the given profile and a
// replica that has caught up, and dials the primary's client port raw.
func withReplica(t *testing.T, durability string) (p, r *node, d *rawConn) {
	t.Helper()
	p = newNode(t, "primary", 1, func(c *config.Config) {
		asPrimary(c)
		c.Durability = durability
	}).start()
	r = newNode(t, "replica", 1, asReplicaOf(p)).start()
	caughtUp(t, p, r)
	return p, r, dialRaw(t, p.srv.Addr(0))
}

// A durable client stays on its loop: its replies wait for the replica
// while the loop serves everyone else, they go out when the replica is
// back, and NOREPLICAS comes when the timeout runs out.
func TestADurableClientWaitsOnItsLoop(t *testing.T) {
	ctx := context.Background()
	p, r, d := withReplica(t, config.DurabilityMemory)
	d.send("CLIENT DURABILITY REPLICAS 1\r\nSET a 1\r\n")
	d.expect("+OK\r\n+OK\r\n")
	waitLoopClients(t, p.srv, 1)

	r.stop()
	d.send("SET b 2\r\nGET a\r\n") // the default timeout, 5 s: waits for the replica
	plain := p.client(0)
	// The loop is not waiting: another client of the same shard is
	// served, and sees the durable write applied.
	if v, err := plain.Get(ctx, "b").Result(); err != nil || v != "2" {
		t.Fatalf("another client while a durable reply waits: %q %v", v, err)
	}
	if got := loopClients(t, p.srv); got != 2 {
		t.Fatalf("%d clients on loops, want the durable one and go-redis's", got)
	}
	r.start()
	d.expect("+OK\r\n$1\r\n1\r\n")

	d.send("CLIENT DURABILITY REPLICAS 1 TIMEOUT 200\r\n")
	d.expect("+OK\r\n")
	r.stop()
	d.send("SET c 3\r\nPING\r\n")
	msg := "-NOREPLICAS Not enough replicas hold this connection's writes on disk within 200 ms (CLIENT DURABILITY REPLICAS 1); the writes stay applied.\r\n"
	d.expect(msg + msg)
	if v := plain.Get(ctx, "c").Val(); v != "3" {
		t.Fatalf("the refused durable write is not applied: %q", v)
	}
	if got := loopClients(t, p.srv); got != 2 {
		t.Fatalf("%d clients on loops after NOREPLICAS, want 2", got)
	}
}

// A pipeline whose held replies pass 64 KiB, and a QUIT behind held
// replies: the loop stops running the client's commands until the
// replica has the writes, then answers every one in order.
func TestHeldRepliesPastABufferAndQuit(t *testing.T) {
	_, r, d := withReplica(t, config.DurabilityMemory)
	d.send("CLIENT DURABILITY REPLICAS 1\r\n")
	d.expect("+OK\r\n")
	val := strings.Repeat("v", 1000)
	d.send("SET big " + val + "\r\n")
	d.expect("+OK\r\n")
	r.stop()
	const n = 200 // 200 replies of 1 KiB
	var req, want strings.Builder
	for i := range n {
		fmt.Fprintf(&req, "INCR n\r\nGET big\r\n")
		fmt.Fprintf(&want, ":%d\r\n$1000\r\n%s\r\n", i+1, val)
	}
	req.WriteString("QUIT\r\n")
	want.WriteString("+OK\r\n")
	d.send(req.String())
	// Nothing comes while the replica is away.
	d.nc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := d.nc.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d bytes of a held reply", n)
	}
	r.start()
	d.expect(want.String())
	d.expectClosed()
}

// CLIENT KILL ends a client whose replies wait with no timeout at once,
// not when the replicas come back.
func TestClientKillEndsAParkedClient(t *testing.T) {
	ctx := context.Background()
	p, r, d := withReplica(t, config.DurabilityMemory)
	br := bufio.NewReader(d.nc)
	d.send("CLIENT DURABILITY REPLICAS 1 TIMEOUT 0\r\nCLIENT ID\r\n")
	if line, err := br.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("CLIENT DURABILITY: %q %v", line, err)
	}
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(strings.TrimPrefix(line, ":"))
	r.stop()
	d.send("SET a 1\r\n")
	plain := p.client(0)
	poll.Until(t, 5*time.Second, "the write applied", func() bool { return plain.Get(ctx, "a").Val() == "1" })
	if err := plain.Do(ctx, "CLIENT", "KILL", "ID", id).Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "the killed client gone from CLIENT LIST", func() bool {
		return !strings.Contains(plain.ClientList(ctx).Val(), "id="+id+" ")
	})
	d.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if rest, err := br.ReadString('\n'); err == nil {
		t.Fatalf("a killed client got %q", rest)
	}
}

// Where a durable reply also waits for this node's log (always,
// everysec), the client stays on its loop all the same: the log's writer
// makes its writes safe while it is parked, and its replies still wait
// for the replica.
func TestADurableClientStaysOnTheLoopWithALog(t *testing.T) {
	for _, profile := range []string{config.DurabilityAlways, config.DurabilityEverysec} {
		t.Run(profile, func(t *testing.T) {
			p, r, d := withReplica(t, profile)
			d.send("CLIENT DURABILITY REPLICAS 1 TIMEOUT 200\r\nSET a 1\r\nGET a\r\n")
			d.expect("+OK\r\n+OK\r\n$1\r\n1\r\n")
			waitLoopClients(t, p.srv, 1)
			r.stop()
			d.send("SET b 2\r\n")
			d.expect("-NOREPLICAS Not enough replicas hold this connection's writes on disk within 200 ms (CLIENT DURABILITY REPLICAS 1); the writes stay applied.\r\n")
			if got := loopClients(t, p.srv); got != 1 {
				t.Fatalf("%d clients on loops after NOREPLICAS, want the durable one", got)
			}
		})
	}
}

// A log that fails while a durable client is parked: the write the
// client sent meanwhile finds the log failed and the connection is
// closed without a reply for it, not left parked or answered +OK; the
// reply held before the failure still waits for the replica. Closing
// the log is the failure here (a closed log fails every wait, as one
// whose write or fsync failed does).
func TestALogFailureClosesAParkedClient(t *testing.T) {
	ctx := context.Background()
	p, r, d := withReplica(t, config.DurabilityAlways)
	d.send("CLIENT DURABILITY REPLICAS 1 TIMEOUT 300\r\nSET a 1\r\n")
	d.expect("+OK\r\n+OK\r\n")
	waitLoopClients(t, p.srv, 1)
	r.stop()
	d.send("SET b 2\r\n")
	plain := p.client(0)
	poll.Until(t, 5*time.Second, "the parked write applied", func() bool { return plain.Get(ctx, "b").Val() == "2" })
	d.send("SET c 3\r\n")
	lg := p.srv.shards[0].HoldLog()
	lg.Release()
	lg.Close()
	d.expect("-NOREPLICAS Not enough replicas hold this connection's writes on disk within 300 ms (CLIENT DURABILITY REPLICAS 1); the writes stay applied.\r\n")
	d.expectClosed()
}

// The loop's wait while connections are parked ends at the first
// timeout still to run out. One that ran out before the last look at the
// parked connections asks for no turn: that look left the connection
// waiting for its log, which wakes the loop; counting it made every wait
// return at once and the loop spin on its thread until the log caught
// up.
func TestParkedTimeout(t *testing.T) {
	base := time.Now()
	parkedAt := func(held time.Time, timeout time.Duration) *conn {
		return &conn{parked: true, held: []heldReply{{at: held}},
			dur: durability{replicas: 1, timeout: timeout}}
	}
	hour := time.Hour
	cases := []struct {
		name      string
		parked    []*conn
		resumedAt time.Time
		want      func(ms int) bool
	}{
		{"none parked", nil, base, func(ms int) bool { return ms == -1 }},
		{"no timeout", []*conn{parkedAt(base, 0)}, base, func(ms int) bool { return ms == -1 }},
		{"a timeout ahead", []*conn{parkedAt(base, hour)}, base,
			func(ms int) bool { return ms > 59*60*1000 && ms <= 60*60*1000 }},
		{"the nearer of two", []*conn{parkedAt(base, hour), parkedAt(base, 2*hour)}, base,
			func(ms int) bool { return ms > 59*60*1000 && ms <= 60*60*1000 }},
		{"run out since the last look", []*conn{parkedAt(base.Add(-hour), 30*time.Minute)}, base.Add(-45 * time.Minute),
			func(ms int) bool { return ms == 0 }},
		{"run out before the last look", []*conn{parkedAt(base.Add(-hour), 30*time.Minute)}, base,
			func(ms int) bool { return ms == -1 }},
		{"run out before the last look, another ahead",
			[]*conn{parkedAt(base.Add(-hour), 30*time.Minute), parkedAt(base, hour)}, base,
			func(ms int) bool { return ms > 59*60*1000 && ms <= 60*60*1000 }},
		{"dropped since parked", []*conn{{held: []heldReply{{at: base}}, dur: durability{replicas: 1, timeout: hour}}}, base,
			func(ms int) bool { return ms == -1 }},
	}
	for _, tc := range cases {
		l := &eventLoop{parked: tc.parked, resumedAt: tc.resumedAt}
		if got := l.parkedTimeout(); !tc.want(got) {
			t.Errorf("%s: parkedTimeout %d ms", tc.name, got)
		}
	}
}
