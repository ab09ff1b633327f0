//go:build linux

package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
)

// loopClients reads INFO's count of clients on event loops, asked by
// another client, which is itself on a loop.
func loopClients(t *testing.T, s *Server) int64 {
	t.Helper()
	c := client(t, s, 0)
	defer c.Close()
	return infoField(t, c, "clients", "event_loop_clients") - 1
}

// waitLoopClients polls until n clients besides the asking one are on a
// loop.
func waitLoopClients(t *testing.T, s *Server, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for got := loopClients(t, s); got != n; got = loopClients(t, s) {
		if time.Now().After(deadline) {
			t.Fatalf("%d clients on event loops, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A client starts on a loop and moves to a goroutine of its own at its
// first command that waits; the replies of the commands before it come
// first, and the blocked pop gets its element.
func TestAClientLeavesTheLoopBeforeACommandThatWaits(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("PING\r\n")
	r.expect("+PONG\r\n")
	waitLoopClients(t, s, 1)
	r.send("SET a 1\r\nBLPOP q 0\r\n")
	r.expect("+OK\r\n")
	waitLoopClients(t, s, 0)
	if err := client(t, s, 0).RPush(context.Background(), "q", "x").Err(); err != nil {
		t.Fatal(err)
	}
	r.expect("*2\r\n$1\r\nq\r\n$1\r\nx\r\n")
	r.send("GET a\r\n")
	r.expect("$1\r\n1\r\n")
}

// A client that left its loop for a transaction goes back once it has
// sent a run of commands the loop could have run; one that still watches
// keys does not, whatever it sends.
func TestAClientGoesBackToTheLoop(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("MULTI\r\nINCR n\r\nEXEC\r\n")
	r.expect("+OK\r\n+QUEUED\r\n*1\r\n:1\r\n")
	waitLoopClients(t, s, 0)
	for i := range rejoinAfter - 1 {
		r.send("INCR n\r\n")
		r.expect(fmt.Sprintf(":%d\r\n", i+2))
	}
	if got := loopClients(t, s); got != 0 {
		t.Fatalf("%d clients on loops before the run was long enough", got)
	}
	r.send("INCR n\r\n")
	r.expect(fmt.Sprintf(":%d\r\n", rejoinAfter+1))
	r.send("GET n\r\n") // the next read is the loop's
	r.expect(fmt.Sprintf("$2\r\n%d\r\n", rejoinAfter+1))
	waitLoopClients(t, s, 1)
	// On the loop again, it leaves again at the next transaction.
	r.send("WATCH n\r\n")
	r.expect("+OK\r\n")
	waitLoopClients(t, s, 0)
	for range 2 * rejoinAfter {
		r.send("PING\r\n")
		r.expect("+PONG\r\n")
	}
	if got := loopClients(t, s); got != 0 {
		t.Fatalf("a client watching keys went back to a loop (%d there)", got)
	}
	r.send("MULTI\r\nINCR n\r\nEXEC\r\n")
	r.expect(fmt.Sprintf("+OK\r\n+QUEUED\r\n*1\r\n:%d\r\n", rejoinAfter+2))
}

// A command larger than the loop's read buffer is read by the goroutine
// the client moves to, with what the client pipelined after it.
func TestACommandLargerThanTheReadBufferLeavesTheLoop(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	big := strings.Repeat("v", 100<<10)
	r.send(fmt.Sprintf("PING\r\n*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n%s\r\nSTRLEN big\r\n", len(big), big))
	r.expect("+PONG\r\n+OK\r\n:102400\r\n")
	waitLoopClients(t, s, 0)
}

// A client that pipelines more than its socket takes before it reads
// gets every reply, in order: the loop keeps what the socket refused and
// the client's new goroutine sends it first. (The commands fit the read
// buffer, so only the refused replies can move the client off the loop.)
func TestASlowReaderGetsEveryReplyInOrder(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	const n = 400
	value := strings.Repeat("x", 32<<10)
	for i := range 4 {
		if err := c.Set(ctx, "k"+strconv.Itoa(i), strconv.Itoa(i)+value, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	r := dialRaw(t, s.Addr(0))
	// A small receive window, but above loopback's 64 KB segments so
	// that the sender never waits on a window too small to fill.
	if err := r.nc.(*net.TCPConn).SetReadBuffer(256 << 10); err != nil {
		t.Fatal(err)
	}
	var req strings.Builder
	for i := range n {
		fmt.Fprintf(&req, "GET k%d\r\n", i%4)
	}
	r.send(req.String())
	// Not reading yet: 13 MB of replies fill the sockets' buffers.
	waitLoopClients(t, s, 0)
	br := bufio.NewReader(r.nc)
	r.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	for i := range n {
		want := strconv.Itoa(i%4) + value
		hdr, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if hdr != fmt.Sprintf("$%d\r\n", len(want)) {
			t.Fatalf("reply %d: header %q", i, hdr)
		}
		got := make([]byte, len(want)+2)
		if _, err := io.ReadFull(br, got); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if string(got[:len(want)]) != want {
			t.Fatalf("reply %d is not k%d's value", i, i%4)
		}
	}
}

// Under durability always, the replies of every client a loop served in
// one turn wait for one fsync; each client gets its own replies, and
// what they acknowledged survives a restart.
func TestDurableRepliesFromALoopWaitForTheLog(t *testing.T) {
	dir := t.TempDir()
	edit := func(c *config.Config) {
		c.Durability = "always"
		c.DataDir = dir
	}
	s := startServer(t, edit)
	ctx := context.Background()
	const clients, rounds, pipe = 8, 20, 16
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: s.Addr(0), PoolSize: 1})
			defer c.Close()
			key := "n" + strconv.Itoa(i)
			for r := range rounds {
				p := c.Pipeline()
				cmds := make([]*redis.IntCmd, pipe)
				for j := range cmds {
					cmds[j] = p.Incr(ctx, key)
				}
				if _, err := p.Exec(ctx); err != nil {
					errs <- err
					return
				}
				for j, cmd := range cmds {
					if want := int64(r*pipe + j + 1); cmd.Val() != want {
						errs <- fmt.Errorf("client %d: INCR answered %d, want %d", i, cmd.Val(), want)
						return
					}
				}
				// The replies are out, so the log holds this client's
				// records on disk: at least as many as it wrote.
				if durable, wrote := s.shards[0].DurableSeq(), uint64((r+1)*pipe); durable < wrote {
					errs <- fmt.Errorf("client %d: replies to %d writes came while the log had %d on disk", i, wrote, durable)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ctxShut, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctxShut); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, edit)
	c := client(t, s2, 0)
	for i := range clients {
		if v, err := c.Get(ctx, "n"+strconv.Itoa(i)).Int(); err != nil || v != rounds*pipe {
			t.Fatalf("after restart n%d = %d (%v), want %d", i, v, err, rounds*pipe)
		}
	}
}

// CLIENT KILL closes a client a loop serves.
func TestClientKillClosesALoopClient(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("CLIENT ID\r\n")
	line, err := bufio.NewReader(r.nc).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(strings.TrimPrefix(line, ":"))
	killer := client(t, s, 0)
	if err := killer.Do(context.Background(), "CLIENT", "KILL", "ID", id).Err(); err != nil {
		t.Fatal(err)
	}
	r.expectClosed()
	killer.Close()
	waitLoopClients(t, s, 0)
}

// With event_loops -1 every client has a goroutine.
func TestNoEventLoops(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.EventLoops = -1 })
	c := client(t, s, 0)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got := infoField(t, c, "clients", "event_loop_clients"); got != 0 {
		t.Fatalf("event_loop_clients = %d with event_loops -1", got)
	}
	if v := c.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("GET = %q", v)
	}
}

func TestLoopsFor(t *testing.T) {
	cases := []struct{ configured, shards, threads, want int }{
		{-1, 4, 4, 0},
		{0, 1, 1, 1},
		{0, 1, 8, 1},
		{0, 4, 2, 2},
		{0, 4, 8, 4},
		{3, 1, 1, 3},
	}
	for _, tc := range cases {
		if got := loopsFor(tc.configured, tc.shards, tc.threads); got != tc.want {
			t.Errorf("loopsFor(%d, %d shards, %d threads) = %d, want %d", tc.configured, tc.shards, tc.threads, got, tc.want)
		}
	}
}

func TestThreadsBusy(t *testing.T) {
	cases := []struct {
		threads, otherTurns int
		want                bool
	}{
		{1, 0, true},  // one thread: yield after every turn
		{2, 0, false}, // two threads, the other loops idle: one is free
		{2, 1, true},  // the other loop is in a turn: both taken
		{3, 1, false},
		{3, 2, true},
		{4, 5, true}, // more loops than threads
	}
	for _, tc := range cases {
		if got := threadsBusy(tc.threads, tc.otherTurns); got != tc.want {
			t.Errorf("threadsBusy(%d threads, %d other turns) = %v, want %v", tc.threads, tc.otherTurns, got, tc.want)
		}
	}
}

// While CLIENT PAUSE WRITE holds writes, a loop client's reads still run
// on the loop; its first write moves it to a goroutine, where it waits
// for the pause to end.
func TestAPausedWriteLeavesTheLoopAndReadsStay(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("SET k v\r\n")
	r.expect("+OK\r\n")
	admin := client(t, s, 0)
	ctx := context.Background()
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "10000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	r.send("GET k\r\n")
	r.expect("$1\r\nv\r\n")
	admin.Close()
	waitLoopClients(t, s, 1)
	r.send("SET k w\r\n")
	waitLoopClients(t, s, 0)
	if err := client(t, s, 0).Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	r.expect("+OK\r\n")
	r.send("GET k\r\n")
	r.expect("$1\r\nw\r\n")
}
