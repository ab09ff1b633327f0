package coordinator

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// Sending the cluster map. When the groups share the hash slots, the
// leader derives the map from the record (rules.ClusterMap) once every
// group has an agreed primary, and on every ping interval asks each
// member for the version it serves (RUVIO TOPOLOGY VERSION), sending the
// map (RUVIO TOPOLOGY SET) to those behind. Each member is asked on its
// own task, so one that never answers delays no other. A member that
// refuses the map is logged at most once a minute.

// refusedLogEvery is how often a member refusing the map is logged.
const refusedLogEvery = time.Minute

type mapSender struct {
	mu       sync.Mutex
	busy     map[string]bool      // members with a call in flight
	refused  map[string]time.Time // when a member's refusal was last logged
	lastSent uint64               // the version last logged as sent
}

// all returns a copy of the whole record.
func (f *fsm) all() rules.State {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.state.Copy()
}

// clusterMap is the map the record describes now (ok false without a
// cluster map or while a group lacks an agreed primary).
func (c *Coordinator) clusterMap() (*topology.Map, bool) {
	if !c.cfg.clustered() {
		return nil, false
	}
	return rules.ClusterMap(c.cfg.placements(), c.fsm.all())
}

// sendMaps is the leader's task of keeping every member on the newest
// map.
func (c *Coordinator) sendMaps() {
	if !c.cfg.clustered() {
		return
	}
	s := &mapSender{busy: map[string]bool{}, refused: map[string]time.Time{}}
	t := time.NewTicker(c.pingInterval())
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if !c.isLeader() || !c.ready() {
			continue
		}
		m, ok := c.clusterMap()
		if !ok || c.moves.hold.Load() || !c.confirmLeader() {
			// While a committed move's map goes out in order (move.go),
			// the move task sends it.
			continue
		}
		if m.Version != s.lastSent {
			s.lastSent = m.Version
			c.log.Info("cluster map", "version", m.Version, "moved", m.Moved)
		}
		for _, g := range m.Groups {
			for _, addr := range g.Members {
				s.mu.Lock()
				if s.busy[addr] {
					s.mu.Unlock()
					continue
				}
				s.busy[addr] = true
				s.mu.Unlock()
				c.wg.Add(1)
				go func() {
					defer c.wg.Done()
					c.bringUp(s, g.Name, addr, m)
					s.mu.Lock()
					delete(s.busy, addr)
					s.mu.Unlock()
				}()
			}
		}
	}
}

// bringUp sends m to the member at addr unless it serves m's version or
// a newer one already, logging a refusal at most once a minute.
func (c *Coordinator) bringUp(s *mapSender, group, addr string, m *topology.Map) {
	err := c.sendMap(addr, m, true)
	if err == nil || isUnreachable(err) {
		return
	}
	s.mu.Lock()
	log := time.Since(s.refused[addr]) >= refusedLogEvery
	if log {
		s.refused[addr] = time.Now()
	}
	s.mu.Unlock()
	if log {
		c.log.Warn("a member refuses the cluster map", "group", group, "member", addr, "version", m.Version, "err", err)
	}
}

// isUnreachable tells a member that did not answer (the probes report
// those) from one that answered with an error.
func isUnreachable(err error) bool {
	var re *replyError
	return !errors.As(err, &re)
}

// sendMap sends m to the member at addr; with check it first asks the
// version the member serves and sends nothing when it is not older.
func (c *Coordinator) sendMap(addr string, m *topology.Map, check bool) error {
	return c.sendMapWithin(addr, m, check, c.commandTimeout())
}

// sendMapWithin is sendMap giving the member at most timeout.
func (c *Coordinator) sendMapWithin(addr string, m *topology.Map, check bool, timeout time.Duration) error {
	p := c.prober(addr)
	if p == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cl := p.client(0)
	if check {
		v, err := cl.Do(ctx, "RUVIO", "TOPOLOGY", "VERSION").Uint64()
		if err != nil {
			return nodeError(err)
		}
		if v >= m.Version {
			return nil
		}
	}
	args := []any{"RUVIO", "TOPOLOGY", "SET"}
	for _, l := range strings.Split(strings.TrimSpace(m.String()), "\n") {
		args = append(args, l)
	}
	if err := cl.Do(ctx, args...).Err(); err != nil {
		return nodeError(err)
	}
	c.log.Info("sent the cluster map", "member", addr, "version", m.Version)
	return nil
}

// sendMapBeforePromotion gives the replica about to be promoted the
// newest map first, so it serves its group's slots as the others expect
// from its first write on.
func (c *Coordinator) sendMapBeforePromotion(addr string) {
	c.sendNewestMap(addr, "the replica to promote")
}

// sendMapBeforeDemotion gives the old primary of a switchover, which
// answers, the map naming its successor before it is made a replica.
// Until the next ping's map it would otherwise find itself its group's
// primary in its map, and answer its clients TRYAGAIN where the new map
// lets it answer MOVED to the new primary. While a committed move's map
// goes out in order (move.go) nothing is sent: the move's source must
// not have it before its target.
func (c *Coordinator) sendMapBeforeDemotion(addr string) {
	if !c.moves.hold.Load() {
		c.sendNewestMap(addr, "the primary to demote")
	}
}

// sendNewestMap sends the newest map to the member at addr (who names it
// in the log). Errors change nothing: the map follows on the next ping.
func (c *Coordinator) sendNewestMap(addr, who string) {
	if m, ok := c.clusterMap(); ok {
		if err := c.sendMap(addr, m, true); err != nil {
			c.log.Warn("sending the cluster map to "+who+" failed", "member", addr, "version", m.Version, "err", err)
		}
	}
}
