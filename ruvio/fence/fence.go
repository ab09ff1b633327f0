// Package fence makes the fencing tokens LEASE and SEMAPHORE grant:
// numbers that rise with every failover of a key's group and every move
// of its slot to another group, so that a resource which keeps the
// largest token it has seen refuses a holder whose grant a failover lost.
// Pure rules and one counter, which stores through a function it is
// given.
//
// A token is one positive 64-bit integer: the generation in its top 22
// bits, a counter in the low 41. The generation is what a failover or a
// move raises (Generation); the counter tells apart the grants of one
// generation and keeps rising across a restart of the node, because it
// never falls below the milliseconds since Base nor below the ceiling
// the node stored before granting (Counter).
package fence

import (
	"fmt"
	"sync"
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
	// NamesSelf says that map names this node its group's primary.
	NamesSelf bool
	// Granted is the largest generation the node granted a token of,
	// kept across restarts (Counter.Granted).
	Granted uint64
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
// range, made after every map the old owner served the range under. A
// node that granted a larger generation before (without coordinators,
// its epoch) grants nothing until the version passes it.
//
// Without such a map it is the largest of the replication epoch, which
// REPLICAOF NO ONE raises above every epoch the node has seen (so above
// its old primary's), the version of a map written by hand, and the
// largest generation the node granted before, which a restart that
// started its epoch over does not lower.
func Generation(b Basis) (uint64, string) {
	var g uint64
	switch {
	case b.FromCoordinators && !b.NamesSelf:
		return 0, ErrNotNamed
	case b.FromCoordinators && b.MapVersion < b.Granted:
		return 0, fmt.Sprintf("TRYAGAIN this node granted tokens of generation %d, above the cluster map's version %d; "+
			"tokens are granted again once the map's version reaches it", b.Granted, b.MapVersion)
	case b.FromCoordinators:
		g = b.MapVersion
	default:
		g = max(b.Epoch, b.MapVersion, b.Granted)
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

// Reserve is how far ahead of the counters granted a Counter keeps its
// stored ceiling, in counter units: one store per Reserve tokens at most.
const Reserve = 60_000

// Mark is what a Counter keeps on disk: the largest generation it
// granted, and a ceiling above every counter it granted.
type Mark struct {
	Generation uint64
	Ceiling    int64
}

// Counter hands out the counters of one node's tokens: each larger than
// the last and never below the milliseconds since Base. Before it grants
// a counter at or above its stored ceiling, or a generation above the
// stored one, it stores a new Mark (Store), so a node that restarts from
// that Mark (Restore) goes on above every token it granted, however fast
// it granted them. Safe for concurrent use.
type Counter struct {
	mu   sync.Mutex
	last int64
	mark Mark
	// Store keeps a Mark on disk; nil keeps nothing (tests, tools).
	Store func(Mark) error
}

// Restore starts the counter from a Mark a previous run stored.
func (c *Counter) Restore(m Mark) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mark = m
	c.last = max(c.last, m.Ceiling)
}

// Granted is the largest generation the counter granted, this run or
// before its restore.
func (c *Counter) Granted() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mark.Generation
}

// Next returns the token of generation gen granted at nowMs (Unix ms).
func (c *Counter) Next(gen uint64, nowMs int64) (int64, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := max(c.last+1, nowMs-Base, 1)
	if n > MaxCounter {
		return 0, "ERR the token counter is exhausted: the node's clock is past 2089 or it granted too many tokens"
	}
	if n >= c.mark.Ceiling || gen > c.mark.Generation {
		next := Mark{Generation: max(gen, c.mark.Generation), Ceiling: max(c.mark.Ceiling, n+Reserve)}
		if c.Store != nil {
			if err := c.Store(next); err != nil {
				return 0, "ERR cannot keep the token counter on disk: " + err.Error()
			}
		}
		c.mark = next
	}
	c.last = n
	return Token(gen, n), ""
}
