package server

import (
	"strconv"
	"sync"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/lease"
	"github.com/ruvio/ruvio/ruvio/replication"
)

// The data node's side of the primary lease (N-LEASE). Coordinators renew
// it with RUVIO LEASE BEGIN (the node notes the instant on its lease clock
// and answers a token) then RUVIO LEASE GRANT token coordinator voters
// epoch lease_ms: the grant runs lease_ms from the BEGIN instant. With
// primary-lease yes, the 100 ms check lets a writer take writes only while
// a majority's grants run for more than 300 ms more.

// keptTokens is how many BEGIN instants the node keeps, across all
// connections.
const keptTokens = 64

type leaseState struct {
	mu     sync.Mutex
	table  lease.Table
	policy lease.Policy
	next   uint64
	tokens [keptTokens]struct {
		id uint64
		at time.Duration
	}
}

func (l *leaseState) begin() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	t := &l.tokens[l.next%keptTokens]
	t.id, t.at = l.next, clock.LeaseNow()
	return l.next
}

func (l *leaseState) instant(token uint64) (time.Duration, bool) {
	t := l.tokens[token%keptTokens]
	return t.at, token != 0 && t.id == token
}

func (l *leaseState) grant(token uint64, g lease.Grant, replica bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.instant(token)
	if !ok {
		return errUnknownToken
	}
	g.Start = at
	return l.table.Apply(g, clock.LeaseNow(), replica, l.policy)
}

func (l *leaseState) check() lease.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.table.Check(clock.LeaseNow())
}

func (l *leaseState) clear() {
	l.mu.Lock()
	l.table.Clear()
	l.mu.Unlock()
}

type leaseError string

func (e leaseError) Error() string { return string(e) }

const errUnknownToken = leaseError("ERR unknown or expired lease token: the node keeps the last 64 BEGIN tokens")

// cmdRuvioLease: RUVIO LEASE BEGIN | RUVIO LEASE GRANT token coordinator
// voters epoch lease_ms.
func cmdRuvioLease(c *conn, args [][]byte) {
	l := &c.srv.lease
	switch {
	case len(args) == 3 && command.Eq(args[2], "begin"):
		c.w.Int(int64(l.begin()))
	case len(args) == 8 && command.Eq(args[2], "grant"):
		var n [5]uint64
		for i := range n {
			v, err := strconv.ParseUint(string(args[3+i]), 10, 64)
			if err != nil {
				c.w.Error(command.ErrNotInteger)
				return
			}
			n[i] = v
		}
		if n[2] > lease.MaxVoters || n[1] > 1<<31 || n[4] > 1<<31 {
			c.w.Error("ERR lease grant refused: value out of range")
			return
		}
		g := lease.Grant{Coordinator: int(n[1]), Voters: int(n[2]), Epoch: n[3], Length: time.Duration(n[4]) * time.Millisecond}
		if err := l.grant(n[0], g, c.srv.repl.Role() == replication.Replica); err != nil {
			c.w.Error(err.Error())
			return
		}
		c.w.OK()
	default:
		c.w.Error("ERR usage: RUVIO LEASE BEGIN | RUVIO LEASE GRANT token coordinator voters epoch lease_ms")
	}
}
