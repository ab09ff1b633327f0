package coordinators

import (
	"context"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/history"
)

// Listen records, until ctx ends, the events every coordinator publishes
// on its Sentinel channels (PSUBSCRIBE *, which Redis Sentinel serves
// too) that name the Set's group, each as a history.ObsEvent at the
// moment it arrived: the failover anatomy (reports/check) reads the
// +sdown, +odown, +elected-leader and +switch-master of each failover
// from them. A coordinator that is down is subscribed to again when it
// comes back (go-redis's PubSub reconnects).
func (s *Set) Listen(ctx context.Context, rec history.Observer) {
	var wg sync.WaitGroup
	for _, name := range s.names {
		wg.Go(func() { s.listenTo(ctx, name, rec) })
	}
	wg.Wait()
}

func (s *Set) listenTo(ctx context.Context, name string, rec history.Observer) {
	cl := redis.NewClient(&redis.Options{Addr: s.c.Addr(name), Password: s.c.CoordinatorSecret(), Protocol: 2,
		DisableIdentity: true, MaxRetries: -1, DialTimeout: askTimeout, PoolSize: 1, TLSConfig: topology.ClientTLS(s.c)})
	defer cl.Close()
	ps := cl.PSubscribe(ctx, "*")
	defer ps.Close()
	ch := ps.Channel(redis.WithChannelSize(256))
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			if !namesGroup(m.Payload, s.group) {
				continue
			}
			now := rec.SinceStartMs()
			rec.Observe(history.Observation{Kind: history.ObsEvent, Node: name, Type: history.OK, StartMs: now, EndMs: now,
				Detail: m.Channel + " " + m.Payload})
			if m.Channel == "+switch-master" {
				// Learn the new primary now rather than at the next
				// poll: Moved's clients stop waiting on the old one.
				go s.Ask(context.WithoutCancel(ctx))
			}
		}
	}
}

// namesGroup says whether a Sentinel event's payload is about group:
// "master <group> ...", "slave <addr> <ip> <port> @ <group> ...", or
// +switch-master's "<group> <old ip> ...".
func namesGroup(payload, group string) bool {
	f := strings.Fields(payload)
	switch {
	case len(f) >= 2 && f[0] == "master":
		return f[1] == group
	case len(f) >= 1 && f[0] != "slave" && f[0] != "sentinel":
		return f[0] == group
	}
	for i, w := range f {
		if w == "@" && i+1 < len(f) {
			return f[i+1] == group
		}
	}
	return false
}
