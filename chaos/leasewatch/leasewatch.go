// Package leasewatch polls every data node's primary lease and records in
// the run's history when it starts to hold and when it ends.
package leasewatch

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/infotext"
	"github.com/ruvio/ruvio/ruvio/lease"
)

// Interval is how often each node is polled; a transition is seen at most
// this late (plus the poll's round trip).
const Interval = 50 * time.Millisecond

// pollTimeout bounds one INFO: a frozen or cut-off node gives no answer,
// which changes nothing.
const pollTimeout = 200 * time.Millisecond

// Poll is one answer of a node: its role and lease as INFO replication
// shows them.
type Poll struct {
	// AtMs is when the answer arrived, since the run started.
	AtMs int64
	// Primary says the node answered role:master.
	Primary bool
	// RemainingMs is primary_lease_remaining_ms: how long a majority's
	// grants still run on the node's lease clock; Grants is
	// primary_lease_grants.
	RemainingMs int64
	Grants      int64
}

// Holds reports whether the node takes writes by its lease: a primary
// whose majority's grants run for more than the node's margin.
func (p Poll) Holds() bool { return p.Primary && p.RemainingMs > lease.Margin.Milliseconds() }

// State is what the watch remembers of one node between polls.
type State struct {
	// Holding says the last answer held the lease; DueMs is when that
	// answer said the lease would stop writes, LastMs when it came.
	Holding bool
	DueMs   int64
	LastMs  int64
}

// Step folds one answer of node into st and returns the observation to
// record, if the lease started or stopped holding. It is the whole logic
// of the watch, without I/O.
func Step(st State, node string, p Poll) (State, *history.Observation) {
	holds := p.Holds()
	var o *history.Observation
	switch {
	case holds && !st.Holding:
		o = &history.Observation{Kind: history.ObsLeaseHeld, Node: node, Type: history.OK, StartMs: p.AtMs, EndMs: p.AtMs,
			Detail: fmt.Sprintf("primary; grants from %d coordinators run %d ms more", p.Grants, p.RemainingMs)}
	case !holds && st.Holding:
		now := "a replica"
		if p.Primary {
			now = fmt.Sprintf("primary, grants from %d coordinators, %d ms left", p.Grants, p.RemainingMs)
		}
		o = &history.Observation{Kind: history.ObsLeaseEnded, Node: node, Type: history.OK, StartMs: min(st.DueMs, p.AtMs), EndMs: p.AtMs,
			Detail: fmt.Sprintf("last seen holding at %d ms, due to stop writes at %d ms; now %s", st.LastMs, st.DueMs, now)}
	}
	st.Holding = holds
	if holds {
		st.DueMs = p.AtMs + p.RemainingMs - lease.Margin.Milliseconds()
		st.LastMs = p.AtMs
	}
	return st, o
}

// ParseInfo reads the role and lease fields of an INFO replication
// answer.
func ParseInfo(text string, atMs int64) Poll {
	f := infotext.Parse(text)
	p := Poll{AtMs: atMs, Primary: f["role"] == "master"}
	p.RemainingMs, _ = strconv.ParseInt(f["primary_lease_remaining_ms"], 10, 64)
	p.Grants, _ = strconv.ParseInt(f["primary_lease_grants"], 10, 64)
	return p
}

// Watch polls every data node of c (nodes) every Interval until ctx ends
// and records the lease transitions in rec.
func Watch(ctx context.Context, c topology.Cluster, nodes []string, rec history.Observer, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	var wg sync.WaitGroup
	for _, node := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			watchNode(ctx, c.Addr(node), node, rec, log)
		}()
	}
	wg.Wait()
}

func watchNode(ctx context.Context, addr, node string, rec history.Observer, log *slog.Logger) {
	cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: -1, DialerRetries: 1,
		PoolSize: 1, DialTimeout: pollTimeout, ReadTimeout: pollTimeout, WriteTimeout: pollTimeout, PoolTimeout: pollTimeout})
	defer cl.Close()
	t := time.NewTicker(Interval)
	defer t.Stop()
	var st State
	for {
		text, err := cl.Info(ctx, "replication").Result()
		if err == nil {
			var o *history.Observation
			st, o = Step(st, node, ParseInfo(text, rec.SinceStartMs()))
			if o != nil {
				rec.Observe(*o)
				log.Debug("lease", "node", node, "kind", o.Kind, "detail", o.Detail)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
