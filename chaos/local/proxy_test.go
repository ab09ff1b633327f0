package local

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/internal/poll"
)

// quiet is how long a test listens to prove that nothing arrives. The
// same bytes sent at the same moment over an uncut link are seen to arrive
// first, so this only has to cover scheduling noise.
const quiet = 300 * time.Millisecond

// patience bounds waits for something that must happen.
const patience = 5 * time.Second

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// server is a real TCP listener whose accepted connections the test reads
// and writes itself.
type server struct {
	ln    net.Listener
	conns chan net.Conn
}

func newServer(t *testing.T) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{ln: ln, conns: make(chan net.Conn, 16)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for {
			select {
			case c := <-s.conns:
				c.Close()
			default:
				return
			}
		}
	})
	return s
}

func (s *server) addr() string { return s.ln.Addr().String() }

// accept returns the next connection the server accepted.
func (s *server) accept(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-s.conns:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(patience):
		t.Fatal("the server accepted no connection")
		return nil
	}
}

// noAccept checks that no connection reaches the server for a while.
func (s *server) noAccept(t *testing.T) {
	t.Helper()
	select {
	case c := <-s.conns:
		c.Close()
		t.Fatal("a connection reached the server across a cut link")
	case <-time.After(quiet):
	}
}

func newTestProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := NewProxy(testLogger(t), "127.0.0.1:0", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(patience))
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// expect reads exactly want from c.
func expect(t *testing.T, c net.Conn, want string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("reading %q: got %q: %v", want, got, err)
	}
	if string(got) != want {
		t.Fatalf("read %q, want %q", got, want)
	}
}

// silent checks that nothing (no byte, no close) arrives on c for a while.
func silent(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(quiet))
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if n > 0 {
		t.Fatalf("%q crossed a cut link", buf[:n])
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a cut link carried a close or an error: %v", err)
	}
}

// closedSoon checks that c is closed by the far end.
func closedSoon(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	buf := make([]byte, 64)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			t.Fatalf("read %q, want the connection closed", buf[:n])
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the connection was not closed")
			}
			return
		}
	}
}

func TestProxyForwardsBothWays(t *testing.T) {
	srv := newServer(t)
	p := newTestProxy(t, srv.addr())
	if p.Target() != srv.addr() {
		t.Fatalf("Target = %s, want %s", p.Target(), srv.addr())
	}
	c := dial(t, p.Addr())
	send(t, c, "request")
	s := srv.accept(t)
	expect(t, s, "request")
	send(t, s, "reply!")
	expect(t, c, "reply!")
	// The pump counts a write after it returns, which can be after the
	// reader saw the bytes.
	poll.Until(t, patience, "7 bytes forwarded forward and 6 backward", func() bool {
		return p.Forwarded(Forward) == 7 && p.Forwarded(Backward) == 6
	})
	// A close crosses an uncut link.
	c.Close()
	closedSoon(t, s)
}

// TestProxyCutLinkCarriesNothing runs two links side by side, cuts one,
// and checks that bytes, closes and new connections cross only the other.
func TestProxyCutLinkCarriesNothing(t *testing.T) {
	srvA, srvB := newServer(t), newServer(t)
	pA, pB := newTestProxy(t, srvA.addr()), newTestProxy(t, srvB.addr())
	cA, cB := dial(t, pA.Addr()), dial(t, pB.Addr())
	send(t, cA, "hello")
	send(t, cB, "hello")
	sA, sB := srvA.accept(t), srvB.accept(t)
	expect(t, sA, "hello")
	expect(t, sB, "hello")

	pA.Cut(Forward)
	pA.Cut(Backward)
	pA.Cut(Forward) // idempotent
	if !pA.IsCut(Forward) || !pA.IsCut(Backward) || pB.IsCut(Forward) {
		t.Fatal("IsCut does not reflect the cuts")
	}
	beforeF, beforeB := pA.Forwarded(Forward), pA.Forwarded(Backward)

	send(t, cA, "during")
	send(t, cB, "during")
	send(t, sA, "answer")
	send(t, sB, "answer")
	expect(t, sB, "during")
	expect(t, cB, "answer")
	silent(t, sA)
	silent(t, cA)

	// A new connection across the cut is accepted by the kernel but
	// never reaches the target, while the other link still connects.
	late := dial(t, pA.Addr())
	send(t, late, "late")
	srvA.noAccept(t)
	silent(t, late)
	lateB := dial(t, pB.Addr())
	send(t, lateB, "late")
	expect(t, srvB.accept(t), "late")

	// A close does not cross the cut either.
	cA.Close()
	silent(t, sA)

	if pA.Forwarded(Forward) != beforeF || pA.Forwarded(Backward) != beforeB {
		t.Fatalf("the cut proxy counted bytes: %d/%d forward, %d/%d backward",
			pA.Forwarded(Forward), beforeF, pA.Forwarded(Backward), beforeB)
	}
}

// TestProxyOneWayCut cuts only the reply direction: requests still arrive,
// replies vanish.
func TestProxyOneWayCut(t *testing.T) {
	srv := newServer(t)
	p := newTestProxy(t, srv.addr())
	c := dial(t, p.Addr())
	send(t, c, "a")
	s := srv.accept(t)
	expect(t, s, "a")

	p.Cut(Backward)
	send(t, c, "request")
	expect(t, s, "request")
	send(t, s, "reply")
	silent(t, c)

	p.Heal()
	closedSoon(t, c)
	closedSoon(t, s)
}

// TestProxyHeal checks that every connection touched by a cut is closed at
// heal, including one opened during the cut, and that new connections
// then work.
func TestProxyHeal(t *testing.T) {
	srv := newServer(t)
	p := newTestProxy(t, srv.addr())
	c := dial(t, p.Addr())
	send(t, c, "x")
	s := srv.accept(t)
	expect(t, s, "x")

	p.Cut(Forward)
	send(t, c, "held back")
	held := dial(t, p.Addr())
	send(t, held, "never")
	// The kernel completes the dial before the proxy accepts it; one
	// still queued at Heal would go through like a SYN retried after it.
	waitConns(t, p, 2)
	p.Heal()
	if p.IsCut(Forward) {
		t.Fatal("still cut after Heal")
	}
	// The bytes held back are dropped, not delivered late.
	closedSoon(t, s)
	closedSoon(t, c)
	closedSoon(t, held)
	srv.noAccept(t)

	fresh := dial(t, p.Addr())
	send(t, fresh, "again")
	s2 := srv.accept(t)
	expect(t, s2, "again")
	send(t, s2, "ok")
	expect(t, fresh, "ok")
}

// TestProxyCutStopsBlockedWrite cuts while the proxy is stuck writing to a
// target that does not read (as a paused node): Cut must return, and the
// target must then receive exactly the bytes counted before the cut.
func TestProxyCutStopsBlockedWrite(t *testing.T) {
	srv := newServer(t)
	p := newTestProxy(t, srv.addr())
	c := dial(t, p.Addr())
	go func() {
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}()
	s := srv.accept(t)

	// The target reads nothing, so the proxy ends up blocked in a write:
	// poll until it is writing and its count stopped moving.
	prev := int64(-1)
	poll.Until(t, patience, "the proxy to block writing to the target", func() bool {
		now := p.Forwarded(Forward)
		blocked := p.writingNow(Forward) && now == prev && now > 0
		prev = now
		return blocked
	})

	done := make(chan struct{})
	go func() { p.Cut(Forward); close(done) }()
	select {
	case <-done:
	case <-time.After(patience):
		t.Fatal("Cut waited for a write the target never reads")
	}
	delivered := p.Forwarded(Forward)

	var got int64
	buf := make([]byte, 256<<10)
	for {
		s.SetReadDeadline(time.Now().Add(quiet))
		n, err := s.Read(buf)
		got += int64(n)
		if err != nil {
			break
		}
	}
	if got != delivered {
		t.Fatalf("the target read %d bytes, the proxy delivered %d before the cut", got, delivered)
	}
	c.Close()
}

// waitConns polls until the proxy has accepted n connections.
func waitConns(t *testing.T, p *Proxy, n int) {
	t.Helper()
	poll.Until(t, patience, fmt.Sprintf("the proxy to hold %d connections", n), func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.conns) == n
	})
}

func (p *Proxy) writingNow(d Direction) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.writingLocked(d)
}

func TestProxyTargetDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := ln.Addr().String()
	ln.Close()
	p := newTestProxy(t, target)
	c := dial(t, p.Addr())
	// A dead target is not a partition: the client sees its connection
	// end.
	closedSoon(t, c)
}

func TestProxyClose(t *testing.T) {
	srv := newServer(t)
	p := newTestProxy(t, srv.addr())
	c := dial(t, p.Addr())
	send(t, c, "x")
	s := srv.accept(t)
	expect(t, s, "x")
	p.Cut(Forward)
	held := dial(t, p.Addr())
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	closedSoon(t, c)
	closedSoon(t, s)
	closedSoon(t, held)
	if c, err := net.DialTimeout("tcp", p.Addr(), patience); err == nil {
		c.Close()
		t.Fatal("a closed proxy still accepts connections")
	}
	p.Cut(Backward) // harmless after Close
	p.Heal()
}

// A node that had to move to other ports at start stays reachable through
// the proxies its peers were given: connections opened after Retarget go
// to the new target, those already open keep theirs.
func TestProxyRetarget(t *testing.T) {
	old, moved := newServer(t), newServer(t)
	p := newTestProxy(t, old.addr())
	before := dial(t, p.Addr())
	send(t, before, "one")
	s1 := old.accept(t)
	expect(t, s1, "one")

	p.Retarget(moved.addr())
	if p.Target() != moved.addr() {
		t.Fatalf("Target = %s after Retarget to %s", p.Target(), moved.addr())
	}
	after := dial(t, p.Addr())
	send(t, after, "two")
	expect(t, moved.accept(t), "two")
	send(t, before, "three")
	expect(t, s1, "three")
	old.noAccept(t)
}

// A slowed link loses no byte and keeps their order in both directions,
// and Heal restores it.
func TestProxyDegradeKeepsTheStreamWhole(t *testing.T) {
	srv := newServer(t)
	p := newTestProxy(t, srv.addr())
	n := topology.Netem{Delay: time.Millisecond, Jitter: time.Millisecond, LossPercent: 50}
	p.Degrade(Forward, n)
	p.Degrade(Backward, n)
	c := dial(t, p.Addr())
	s := srv.accept(t)
	for i := range 20 {
		msg := fmt.Sprintf("m%02d", i)
		send(t, c, msg)
		expect(t, s, msg)
		send(t, s, msg)
		expect(t, c, msg)
	}
	p.Heal()
	if p.slowFor(Forward) != nil || p.slowFor(Backward) != nil {
		t.Fatal("Heal left a direction slowed")
	}
}

// slowHold holds a chunk the delay, up to the jitter more, and one
// retransmission timeout more for a lost one; never less than the delay.
func TestSlowHoldBounds(t *testing.T) {
	n := topology.Netem{Delay: 150 * time.Millisecond, Jitter: 100 * time.Millisecond, LossPercent: 10}
	lost := 0
	for range 2000 {
		h := slowHold(n)
		if h < n.Delay || h >= n.Delay+n.Jitter+lossRTO {
			t.Fatalf("hold %s outside [%s, %s)", h, n.Delay, n.Delay+n.Jitter+lossRTO)
		}
		if h >= n.Delay+n.Jitter {
			lost++
		}
	}
	if lost == 0 || lost > 600 {
		t.Fatalf("%d of 2000 chunks lost at 10 %%", lost)
	}
	if h := slowHold(topology.Netem{Delay: 5 * time.Millisecond}); h != 5*time.Millisecond {
		t.Fatalf("no jitter, no loss: hold %s", h)
	}
}
