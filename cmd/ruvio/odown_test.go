package main

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// With its only replica dead, a silent primary cannot be failed over:
// the leader announces +odown once, not at every try, and -odown when
// the primary answers again, as Sentinel does.
func TestODownIsAnnouncedOnceAndEnds(t *testing.T) {
	g := startGroup(t, 2)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	ctx := context.Background()
	var subs []*redis.PubSub
	for _, c := range cs {
		cl := c.client("")
		t.Cleanup(func() { cl.Close() })
		ps := cl.Subscribe(ctx, "+odown", "-odown")
		t.Cleanup(func() { ps.Close() })
		for range 2 { // the two confirmations
			if _, err := ps.Receive(ctx); err != nil {
				t.Fatal(err)
			}
		}
		subs = append(subs, ps)
	}
	g[1].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[1].p.done
	g[0].p.cmd.Process.Signal(syscall.SIGSTOP)
	stopped := true
	defer func() {
		if stopped {
			g[0].p.cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	// down_after_ms is 500 and the leader tries every 100 ms: in 2 s it
	// tries about fifteen times.
	count := func(ps *redis.PubSub, channel string, within time.Duration) int {
		n := 0
		deadline := time.Now().Add(within)
		for {
			rctx, cancel := context.WithDeadline(ctx, deadline)
			m, err := ps.ReceiveMessage(rctx)
			cancel()
			if err != nil {
				return n
			}
			if m.Channel == channel {
				n++
			}
		}
	}
	odowns := 0
	var leader *redis.PubSub
	for _, ps := range subs {
		n := count(ps, "+odown", 2*time.Second/time.Duration(len(subs)))
		if n > 0 {
			leader = ps
		}
		odowns += n
	}
	if more := count(leader, "+odown", 1500*time.Millisecond); odowns != 1 || more != 0 {
		t.Fatalf("+odown announced %d times, then %d more; want once", odowns, more)
	}
	g[0].p.cmd.Process.Signal(syscall.SIGCONT)
	stopped = false
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, err := leader.ReceiveMessage(rctx)
	h, p, _ := net.SplitHostPort(g[0].p.addr())
	if err != nil || m.Channel != "-odown" || m.Payload != "master main "+h+" "+p {
		t.Fatalf("after the primary answered again: %v %v", m, err)
	}
}
