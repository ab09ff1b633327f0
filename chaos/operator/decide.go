package operator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Candidate is a replica's standing when its primary is gone.
type Candidate struct {
	Node string
	// Durable is wal_durable_sequence summed over the node's shards: how
	// much of the group's history it holds on disk.
	Durable uint64
	// Err is why the node's state could not be read; such a node is not
	// promoted.
	Err error
}

// ChoosePromotion picks the replica to promote: of those whose state was
// read, the one with the highest durable sequence (it loses the fewest
// acknowledged writes), the first in the list on a tie, so the choice is
// the same for the same observations.
func ChoosePromotion(cs []Candidate) (string, error) {
	best := -1
	for i, c := range cs {
		if c.Err != nil {
			continue
		}
		if best < 0 || c.Durable > cs[best].Durable {
			best = i
		}
	}
	if best < 0 {
		var why []string
		for _, c := range cs {
			why = append(why, fmt.Sprintf("%s: %v", c.Node, c.Err))
		}
		if len(why) == 0 {
			return "", errors.New("no replica to promote")
		}
		return "", fmt.Errorf("no replica answered: %s", strings.Join(why, "; "))
	}
	return cs[best].Node, nil
}

// Pos is a shard's position in its log: the epoch and sequence of its
// last record.
type Pos struct{ Epoch, Last uint64 }

// CaughtUp reports whether a replica at got has reached target on every
// shard: the same epoch (a node that rejoins with a tail of an older
// epoch may hold higher sequences it has yet to discard) and at least the
// target's sequence.
func CaughtUp(target, got []Pos) bool {
	if len(target) == 0 || len(got) != len(target) {
		return false
	}
	for i := range target {
		if got[i].Epoch != target[i].Epoch || got[i].Last < target[i].Last {
			return false
		}
	}
	return true
}

// NodeState is what the convergence check reads from one node.
type NodeState struct {
	Node string
	// Digest is RUVIO DIGEST: equal digests, equal data.
	Digest string
	// Shards are the positions of the node's shards, shard 0 first.
	Shards []Pos
	// Err is why the node could not be read.
	Err error
}

// Differences lists how the nodes differ, one sentence each; none means
// they converged: every node answered, with the same digest and the same
// position on every shard.
func Differences(states []NodeState) []string {
	var out []string
	var ok []NodeState
	for _, s := range states {
		if s.Err != nil {
			out = append(out, fmt.Sprintf("%s could not be read: %v", s.Node, s.Err))
			continue
		}
		ok = append(ok, s)
	}
	if len(ok) < 2 {
		return out
	}
	digests := map[string][]string{}
	for _, s := range ok {
		digests[s.Digest] = append(digests[s.Digest], s.Node)
	}
	if len(digests) > 1 {
		out = append(out, "RUVIO DIGEST differs: "+groups(digests))
	}
	shards := 0
	for _, s := range ok {
		shards = max(shards, len(s.Shards))
	}
	for i := range shards {
		at := map[string][]string{}
		for _, s := range ok {
			key := "missing"
			if i < len(s.Shards) {
				key = fmt.Sprintf("epoch %d sequence %d", s.Shards[i].Epoch, s.Shards[i].Last)
			}
			at[key] = append(at[key], s.Node)
		}
		if len(at) > 1 {
			out = append(out, fmt.Sprintf("shard %d's last record differs: %s", i, groups(at)))
		}
	}
	return out
}

// groups prints value -> nodes as "n1 n2 at v1; n3 at v2", sorted.
func groups(m map[string][]string) string {
	type g struct {
		value string
		nodes []string
	}
	var gs []g
	for v, ns := range m {
		gs = append(gs, g{v, ns})
	}
	slices.SortFunc(gs, func(a, b g) int { return cmp.Compare(a.nodes[0], b.nodes[0]) })
	parts := make([]string, len(gs))
	for i, x := range gs {
		parts[i] = strings.Join(x.nodes, " ") + " at " + x.value
	}
	return strings.Join(parts, "; ")
}

// SumDurable adds the durable sequences of a node's shards.
func SumDurable(shards []ShardInfo) uint64 {
	var n uint64
	for _, s := range shards {
		n += s.Durable
	}
	return n
}
