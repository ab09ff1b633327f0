package coordinator

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// peerSet is this coordinator's connections to the others' client API:
// the questions of a failover, and the liveness SENTINEL SENTINELS and
// CKQUORUM report.
type peerSet struct {
	c     *Coordinator
	peers []*peerConn
}

type peerConn struct {
	Peer
	cl    *redis.Client
	heard atomic.Int64 // Unix ns of the last answer
}

func newPeerSet(c *Coordinator) *peerSet {
	ps := &peerSet{c: c}
	for _, p := range c.peers {
		if p.ID == c.cfg.ID {
			continue
		}
		t := c.confirmWindow()
		ps.peers = append(ps.peers, &peerConn{Peer: p, cl: redis.NewClient(&redis.Options{
			Addr: p.Addr, Password: c.cfg.Secret, DialTimeout: t, ReadTimeout: t, WriteTimeout: t,
			MaxRetries: -1, PoolSize: 4, Protocol: 2, DisableIdentity: true,
		})})
	}
	return ps
}

func (ps *peerSet) close() {
	for _, p := range ps.peers {
		p.cl.Close()
	}
}

// run pings the other coordinators every ping interval.
func (ps *peerSet) run(stop <-chan struct{}) {
	t := time.NewTicker(ps.c.pingInterval())
	defer t.Stop()
	for {
		var wg sync.WaitGroup
		for _, p := range ps.peers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), ps.c.confirmWindow())
				defer cancel()
				if p.cl.Ping(ctx).Err() == nil {
					p.heard.Store(time.Now().UnixNano())
				}
			}()
		}
		wg.Wait()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// reachable counts the other coordinators that answered within
// down_after_ms.
func (ps *peerSet) reachable() int {
	n := 0
	for _, p := range ps.peers {
		if time.Since(time.Unix(0, p.heard.Load())) < ps.c.downAfter() {
			n++
		}
	}
	return n
}

// countSilent asks every other coordinator, in parallel and briefly,
// whether it has not heard member within down_after_ms; a coordinator
// that does not answer is not counted.
func (ps *peerSet) countSilent(group, member string) int {
	var n atomic.Int32
	var wg sync.WaitGroup
	for _, p := range ps.peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), ps.c.confirmWindow())
			defer cancel()
			v, err := p.cl.Do(ctx, "COORDINATOR", "SILENT", group, member).Int()
			if err == nil && v == 1 {
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(n.Load())
}
