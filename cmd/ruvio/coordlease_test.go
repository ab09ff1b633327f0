package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// The primary lease with real processes.

// With the primary lease, a primary cut off
// from the coordinators (it still reaches its replicas) stops taking
// writes before a replica is promoted: no write is acknowledged by the old
// primary after the promotion.
func TestPrimaryLeaseStopsTheOldPrimaryBeforePromotion(t *testing.T) {
	g := startGroup(t, 3)
	for _, m := range g {
		m.p.cmd.Process.Signal(syscall.SIGKILL)
		<-m.p.done
		m.env = append(m.env, "RUVIO_PRIMARY_LEASE=yes", "RUVIO_PRIMARY_LEASE_COORDINATORS=1,2,3")
		m.restart(t)
	}
	// The coordinators reach each member through a proxy that can be cut.
	proxies := map[string]*cutProxy{}
	var members []string
	for _, m := range g {
		p := newCutProxy(t, m.p.addr())
		proxies[m.p.addr()] = p
		members = append(members, fmt.Sprintf("{ address = %q, replication = %q }", p.ln.Addr().String(), m.repl))
	}
	groups := fmt.Sprintf("[[groups]]\nname = \"main\"\nmembers = [%s]\n", strings.Join(members, ", "))
	cs := startCoordinatorsVia(t, 3, groups, "primary_lease_ms = 600\ndown_after_ms = 1200", nil)
	ctx := context.Background()
	cl := redis.NewClient(&redis.Options{Addr: g[0].p.addr(), MaxRetries: -1})
	defer cl.Close()
	if err := cl.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != "NOREPLICAS Primary lease expired: too few coordinators renewed it." {
		t.Fatalf("a write before any grant: %v", err)
	}
	poll.Until(t, 20*time.Second, "writes once the coordinators grant the lease", func() bool { return cl.Set(ctx, "k", "v", 0).Err() == nil })

	proxies[g[0].p.addr()].setCut(true) // the primary is cut from the coordinators only
	cut := time.Now()
	var lastAck, firstRefusal time.Time
	promoted := time.Time{}
	for time.Since(cut) < 10*time.Second && promoted.IsZero() {
		err := cl.Set(ctx, "k", time.Now().UnixNano(), 0).Err()
		now := time.Now()
		switch {
		case err == nil:
			lastAck = now
		case strings.HasPrefix(err.Error(), "NOREPLICAS Primary lease expired") && firstRefusal.IsZero():
			firstRefusal = now
		}
		for _, m := range g[1:] {
			if roleOf(m.p.addr()) == "master" {
				promoted = time.Now()
			}
		}
	}
	if promoted.IsZero() {
		dumpLogs(t, cs)
		t.Fatal("no replica was promoted")
	}
	if firstRefusal.IsZero() || !lastAck.Before(promoted) || !firstRefusal.Before(promoted) {
		t.Fatalf("the old primary acknowledged a write at %v, refused first at %v, promotion seen at %v (since the cut)",
			lastAck.Sub(cut), firstRefusal.Sub(cut), promoted.Sub(cut))
	}
	t.Logf("since the cut: last acknowledged write %v, first refusal %v, promotion seen %v", lastAck.Sub(cut), firstRefusal.Sub(cut), promoted.Sub(cut))
}
