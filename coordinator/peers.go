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
	mu    sync.Mutex
	peers []*peerConn
}

type peerConn struct {
	Peer
	voter atomic.Bool // written by refresh, read by the questions of a failover
	cl    *redis.Client
	heard atomic.Int64 // Unix ns of the last answer
}

func newPeerSet(c *Coordinator) *peerSet {
	ps := &peerSet{c: c}
	for _, p := range c.peers {
		if p.ID != c.cfg.ID {
			ps.peers = append(ps.peers, ps.dial(p, true))
		}
	}
	return ps
}

func (ps *peerSet) dial(p Peer, voter bool) *peerConn {
	pc := &peerConn{Peer: p, cl: ps.c.dialCoordinator(p.Addr, ps.c.confirmWindow(), 4)}
	pc.voter.Store(voter)
	return pc
}

// list returns the current peers.
func (ps *peerSet) list() []*peerConn {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]*peerConn(nil), ps.peers...)
}

// refresh follows the recorded coordinators: added ones are dialled,
// removed ones dropped.
func (ps *peerSet) refresh() {
	rec := ps.c.recorded()
	if len(rec) == 0 {
		return
	}
	ps.c.noteRecorded(rec)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	byID := map[int]*peerConn{}
	for _, p := range ps.peers {
		byID[p.ID] = p
	}
	var next []*peerConn
	for _, s := range rec {
		if s.ID == ps.c.cfg.ID {
			continue
		}
		if p, ok := byID[s.ID]; ok {
			p.voter.Store(s.Voter)
			next = append(next, p)
			delete(byID, s.ID)
			continue
		}
		next = append(next, ps.dial(Peer{ID: s.ID, Addr: ps.c.addrOf(s.ID, s.Addr)}, s.Voter))
	}
	for _, p := range byID {
		p.cl.Close()
	}
	ps.peers = next
}

func (ps *peerSet) close() {
	for _, p := range ps.list() {
		p.cl.Close()
	}
}

// run pings the other coordinators every ping interval.
func (ps *peerSet) run(stop <-chan struct{}) {
	t := time.NewTicker(ps.c.pingInterval())
	defer t.Stop()
	for {
		ps.refresh()
		var wg sync.WaitGroup
		for _, p := range ps.list() {
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
	for _, p := range ps.list() {
		if p.voter.Load() && time.Since(time.Unix(0, p.heard.Load())) < ps.c.downAfter() {
			n++
		}
	}
	return n
}
