package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/respvalue"
	"github.com/ruvio/ruvio/ruvio/changes"
	"github.com/ruvio/ruvio/ruvio/config"
)

// changeConsumer reads a change stream as a consumer would, with a plain
// connection.
type changeConsumer struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func subscribeChanges(t *testing.T, addr string, args ...string) *changeConsumer {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	cc := &changeConsumer{t: t, nc: nc, br: bufio.NewReader(nc)}
	cc.send(append([]string{"CHANGES", "SUBSCRIBE"}, args...)...)
	return cc
}

func (cc *changeConsumer) send(args ...string) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := cc.nc.Write([]byte(b.String())); err != nil {
		cc.t.Fatal(err)
	}
}

// next reads one message or reply within d: strings, errors (as error
// values) and arrays of them.
func (cc *changeConsumer) next(d time.Duration) (any, error) {
	cc.nc.SetReadDeadline(time.Now().Add(d))
	return respvalue.Read(cc.br)
}

// message reads the next message and fails the test on anything else.
func (cc *changeConsumer) message() []any {
	cc.t.Helper()
	v, err := cc.next(5 * time.Second)
	if err != nil {
		cc.t.Fatalf("reading the change stream: %v", err)
	}
	m, ok := v.([]any)
	if !ok || len(m) < 2 {
		cc.t.Fatalf("not a stream message: %#v", v)
	}
	return m
}

// change reads the next message, which must be a change, and returns its
// cursor and its operations rendered as "SET k v; INCR n".
func (cc *changeConsumer) change() (changes.Cursor, string) {
	cc.t.Helper()
	m := cc.message()
	if m[0] != "change" || len(m) != 3 {
		cc.t.Fatalf("want a change, got %#v", m)
	}
	return cc.cursor(m), renderOps(m[2])
}

func (cc *changeConsumer) cursor(m []any) changes.Cursor {
	cc.t.Helper()
	c, err := changes.Parse(m[1].(string))
	if err != nil {
		cc.t.Fatalf("message %#v: %v", m, err)
	}
	return c
}

// expect reads the next message and checks its kind.
func (cc *changeConsumer) expect(kind string) changes.Cursor {
	cc.t.Helper()
	m := cc.message()
	if m[0] != kind {
		cc.t.Fatalf("want %s, got %#v", kind, m)
	}
	return cc.cursor(m)
}

func renderOps(v any) string {
	var parts []string
	for _, op := range v.([]any) {
		var args []string
		for _, a := range op.([]any) {
			args = append(args, a.(string))
		}
		parts = append(parts, strings.Join(args, " "))
	}
	return strings.Join(parts, "; ")
}

// A consumer reads from a primary; a replica is promoted before it got
// the primary's last write, and the consumer resumes on it with its
// cursor: it is rewound to the last record both logs share, in the new
// generation, and then sees the new primary's writes, never the lost one.
// A consumer that stays on the old primary is rewound too, once the old
// primary follows the new one.
func TestChangeStreamRewindsAConsumerPastAFailover(t *testing.T) {
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	a.do("SET", "k1", "v1")
	a.do("SET", "k2", "v2")
	caughtUp(t, a, b)

	cc := subscribeChanges(t, a.srv.Addr(0), "FROM", "0")
	if c := cc.expect("subscribed"); c != (changes.Cursor{}) {
		t.Fatalf("subscribed at %v, want the beginning", c)
	}
	c1, ops1 := cc.change()
	_, ops2 := cc.change()
	if ops1 != "SET k1 v1" || ops2 != "SET k2 v2" || c1.Epoch != 1 || c1.Seq != 1 {
		t.Fatalf("first changes %v %q, %q", c1, ops1, ops2)
	}
	stay := subscribeChanges(t, a.srv.Addr(0))
	stay.expect("subscribed")

	b.do("REPLICAOF", "NO", "ONE") // b forks epoch 2 after record 2
	a.do("SET", "lost", "x")       // only a has it
	lostAt, ops := cc.change()
	if ops != "SET lost x" || lostAt.Seq != 3 {
		t.Fatalf("a's third change %v %q", lostAt, ops)
	}
	if _, ops := stay.change(); ops != "SET lost x" {
		t.Fatalf("the consumer that stays saw %q", ops)
	}
	b.do("SET", "kept", "y")

	resumed := subscribeChanges(t, b.srv.Addr(0), "FROM", lostAt.String())
	if c := resumed.expect("subscribed"); c != lostAt {
		t.Fatalf("subscribed at %v, want the cursor sent %v", c, lostAt)
	}
	at := resumed.expect("rewound")
	if at.Epoch != 2 || at.Seq != 2 || at.Stretch == lostAt.Stretch {
		t.Fatalf("rewound to %v, want record 2 in b's epoch 2 (the consumer held %v)", at, lostAt)
	}
	if c, ops := resumed.change(); ops != "SET kept y" || c.Epoch != 2 || c.Stretch != at.Stretch {
		t.Fatalf("after the rewind: %v %q, want b's write in the stretch of %v", c, ops, at)
	}

	// The old primary follows b, closing its clients' connections as it
	// is demoted. It took a full copy of b (it held a record b lacks), so
	// its log begins after the copy: the consumer that stayed and resumes
	// there is told to reload, from the fork point in b's generation.
	host, port, _ := net.SplitHostPort(b.replAddr())
	a.do("REPLICAOF", host, port)
	caughtUp(t, b, a)
	if v, err := stay.next(5 * time.Second); err == nil {
		t.Fatalf("the demoted primary's stream went on: %#v", v)
	}
	back := subscribeChanges(t, a.srv.Addr(0), "FROM", lostAt.String())
	v, err := back.next(5 * time.Second)
	want := "ERR shard 0 no longer holds the changes after " + at.String() + ": reload the data and subscribe again without FROM"
	if e, ok := v.(error); err != nil || !ok || e.Error() != want {
		t.Fatalf("resuming on the old primary after its full copy: %#v, %v; want %q", v, err, want)
	}
}

// COMMITTED sends only what a CLIENT DURABILITY reply committed: a plain
// write waits until a durable write after it commits, then both come,
// also to a stream that subscribed after the plain write.
func TestCommittedChangesWaitForADurableWrite(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	caughtUp(t, a, b)
	all := subscribeChanges(t, a.srv.Addr(0))
	all.expect("subscribed")
	a.do("SET", "plain", "1")
	if _, ops := all.change(); ops != "SET plain 1" {
		t.Fatalf("the stream without COMMITTED saw %q", ops)
	}
	// Subscribed after the plain write, the COMMITTED stream starts
	// after the last committed record, not the last record: its cursor
	// is never one a failover could take back.
	committed := subscribeChanges(t, a.srv.Addr(0), "COMMITTED")
	if c := committed.expect("subscribed"); c.Seq != 0 {
		t.Fatalf("a COMMITTED stream from now starts at %v, past the committed sequence 0", c)
	}
	if v, err := committed.next(300 * time.Millisecond); err == nil {
		t.Fatalf("a COMMITTED stream sent %#v before any durable write", v)
	}
	dc := durableConn(t, a, 0, "REPLICAS", "1")
	if err := dc.Set(ctx, "durable", "2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, ops := committed.change(); !strings.EqualFold(ops, "SET plain 1") {
		t.Fatalf("first committed change %q", ops)
	}
	if _, ops := committed.change(); !strings.EqualFold(ops, "SET durable 2") {
		t.Fatalf("second committed change %q", ops)
	}
}

// A memory node that restarted kept none of its records: a cursor from
// its earlier life names a stretch it no longer has, and the consumer is
// told to reload.
func TestAChangeCursorFromBeforeAMemoryRestartIsRefused(t *testing.T) {
	n := newNode(t, "n", 1, func(c *config.Config) { c.Durability = config.DurabilityMemory }).start()
	cc := subscribeChanges(t, n.srv.Addr(0))
	cc.expect("subscribed")
	n.do("SET", "k", "v")
	old, _ := cc.change()
	n.stop()
	n.start()
	n.do("SET", "k", "w")
	again := subscribeChanges(t, n.srv.Addr(0), "FROM", old.String())
	v, err := again.next(5 * time.Second)
	e, ok := v.(error)
	if err != nil || !ok || !strings.Contains(e.Error(), "no longer holds the changes after 1-0-") ||
		!strings.Contains(e.Error(), "reload the data") {
		t.Fatalf("resuming from %v after a memory restart: %#v, %v", old, v, err)
	}
}

// While it streams, a connection takes PING, QUIT and RESET only; RESET
// ends the stream and the connection is an ordinary one again. Bad
// arguments are refused with Redis's words.
func TestChangeStreamConnectionAndArguments(t *testing.T) {
	s := startServer(t, nil)
	addr := s.Addr(0)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"FROM"}, "ERR syntax error"},
		{[]string{"SINCE", "1-1-1"}, "ERR syntax error"},
		{[]string{"FROM", "1-2"}, changes.ErrBadCursor},
		{[]string{"FROM", "x-1-2"}, changes.ErrBadCursor},
	} {
		cc := subscribeChanges(t, addr, tc.args...)
		v, err := cc.next(5 * time.Second)
		if e, ok := v.(error); err != nil || !ok || e.Error() != tc.want {
			t.Errorf("CHANGES SUBSCRIBE %q: %#v, %v; want %q", tc.args, v, err, tc.want)
		}
	}
	cc := subscribeChanges(t, addr)
	cc.expect("subscribed")
	cc.send("GET", "k")
	v, _ := cc.next(5 * time.Second)
	if e, ok := v.(error); !ok || e.Error() != "ERR Can't execute 'get': only PING, QUIT and RESET are allowed while this connection streams changes" {
		t.Fatalf("GET while streaming: %#v", v)
	}
	cc.send("PING")
	if v, _ := cc.next(5 * time.Second); v != "PONG" {
		t.Fatalf("PING while streaming: %#v", v)
	}
	cc.send("RESET")
	if v, _ := cc.next(5 * time.Second); v != "RESET" {
		t.Fatalf("RESET: %#v", v)
	}
	c := client(t, s, 0)
	if err := c.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	cc.send("GET", "k")
	if v, _ := cc.next(5 * time.Second); v != "v" {
		t.Fatalf("GET after RESET: %#v (a change message would mean the stream went on)", v)
	}
}
