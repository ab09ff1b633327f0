// Package fence makes the fencing tokens LEASE and SEMAPHORE grant:
// numbers that rise with every failover of a key's group and every move
// of its slot to another group, so that a resource which keeps the
// largest token it has seen refuses a holder whose grant a failover lost.
// Pure rules and one counter; no I/O.
//
// A token is one positive 64-bit integer: the generation in its top 22
// bits, a counter in the low 41. The generation is what a failover or a
// move raises (Generation); the counter tells apart the grants of one
// generation and keeps rising across a restart of the node, because it
// never falls below the milliseconds since Base.
package fence

import (
	"fmt"
	"sync/atomic"
)

const (
	// CounterBits is the width of a token's counter.
	CounterBits = 41
	// MaxGeneration is the largest generation a token can carry.
	MaxGeneration = 1<<(63-CounterBits) - 1
	// MaxCounter is the largest counter a token can carry: 2^41 ms after
	// Base, in 2089.
	MaxCounter = 1<<CounterBits - 1
	// Base is the Unix time in ms the counter counts from: 2020-01-01 UTC.
	Base = 1_577_836_800_000
)

// Basis is what a node knows about itself when it grants a token.
type Basis struct {
	// Epoch is the replication epoch the node's shards write in.
	Epoch uint64
	// MapVersion is the version of the cluster map the node serves; 0
	// without a map.
	MapVersion uint64
	// FromCoordinators says the map was sent by the coordinators (RUVIO
	// TOPOLOGY SET), now or before a restart, rather than only read
	// from the node's cluster_topology file.
	FromCoordinators bool
	// NamesSelf says the map names this node its group's primary.
	NamesSelf bool
}

// ErrNotNamed is the refusal of a grant on a node the coordinators'
// map does not name its group's primary: a replica promoted a moment ago,
// before the map that records its promotion arrived.
const ErrNotNamed = "TRYAGAIN the cluster map does not name this node its group's primary yet; tokens are granted once it does"

// Generation is the generation of the tokens a node grants, or the error
// reply that refuses them.
//
// With a map from the coordinators it is the map's version. The
// coordinators raise the version with every failover and every move, and
// a node grants only while its map names it its group's primary, so the
// tokens a promoted replica grants carry a version made after its
// promotion, above every version its predecessor granted under. After a
// move the new owner serves the range only under a map that gives it the
// range, made after every map the old owner served the range under.
//
// Without such a map it is the replication epoch, which REPLICAOF NO ONE
// raises above every epoch the node has seen (so above its old
// primary's), or the version of a map written by hand when that is
// larger.
func Generation(b Basis) (uint64, string) {
	var g uint64
	switch {
	case b.FromCoordinators && !b.NamesSelf:
		return 0, ErrNotNamed
	case b.FromCoordinators:
		g = b.MapVersion
	default:
		g = max(b.Epoch, b.MapVersion)
	}
	if g > MaxGeneration {
		return 0, fmt.Sprintf("ERR the generation %d is above the largest a token can carry (%d)", g, MaxGeneration)
	}
	return max(g, 1), ""
}

// Token is the token of generation gen with the given counter.
func Token(gen uint64, counter int64) int64 { return int64(gen)<<CounterBits | counter }

// Split returns a token's generation and counter.
func Split(token int64) (gen uint64, counter int64) {
	return uint64(token) >> CounterBits, token & MaxCounter
}

// Counter hands out the counters of one node's tokens: each larger than
// the last, and never below the milliseconds since Base, so that a node
// restarted with no memory of its tokens goes on above them unless it
// granted more than one a millisecond on average before the restart.
// Safe for concurrent use.
type Counter struct{ last atomic.Int64 }

// Next returns the token of generation gen granted at nowMs (Unix ms).
func (c *Counter) Next(gen uint64, nowMs int64) (int64, string) {
	for {
		last := c.last.Load()
		n := max(last+1, nowMs-Base, 1)
		if n > MaxCounter {
			return 0, "ERR the token counter is exhausted: the node's clock is past 2089 or it granted too many tokens"
		}
		if c.last.CompareAndSwap(last, n) {
			return Token(gen, n), ""
		}
	}
}
