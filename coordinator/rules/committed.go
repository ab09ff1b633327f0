package rules

import (
	"fmt"
	"strings"
)

// Committed sequences: every coordinator learns, on each ping, the
// replication_committed_sequence each member reports per shard and keeps
// the highest; the leader records the rises through Raft. A clean
// failover promotes only a replica holding all of them.

// FoldCommitted folds the members' reports into known (this coordinator's
// learned values, per shard) and returns the result; known is not
// changed. Reports at or below a value an unclean failover dropped
// (stale) are ignored.
func FoldCommitted(known, stale []uint64, st map[string]Status) []uint64 {
	k := append([]uint64(nil), known...)
	for _, s := range st {
		if !s.OK {
			continue
		}
		for i, sh := range s.Shards {
			if i < len(stale) && sh.Committed <= stale[i] {
				continue
			}
			for len(k) <= i {
				k = append(k, 0)
			}
			k[i] = max(k[i], sh.Committed)
		}
	}
	return k
}

// MaxEach is, per shard, the larger of a and b.
func MaxEach(a, b []uint64) []uint64 {
	out := make([]uint64, max(len(a), len(b)))
	for i := range out {
		if i < len(a) {
			out[i] = a[i]
		}
		if i < len(b) {
			out[i] = max(out[i], b[i])
		}
	}
	return out
}

// Rises lists the shards whose committed value rose above the recorded
// one (shard -> value), a shard the record lacks counting as 0; nil when
// none did, so a group whose clients never use CLIENT DURABILITY writes
// nothing.
func Rises(recorded, committed []uint64) map[int]uint64 {
	var out map[int]uint64
	for i, v := range committed {
		var r uint64
		if i < len(recorded) {
			r = recorded[i]
		}
		if v > r {
			if out == nil {
				out = map[int]uint64{}
			}
			out[i] = v
		}
	}
	return out
}

// Lacking describes, per shard, the committed records s does not hold
// ("" when it holds them all).
func Lacking(s Status, committed []uint64) string {
	return shortfall(s, committed, func(sh ShardStatus) uint64 { return sh.WalDurable }, func(i int, have, want uint64) string {
		return fmt.Sprintf("shard %d: records %d-%d", i, have+1, want)
	})
}

// shortfall describes, joined, each shard i where have (read from s's
// shard, 0 for a shard s does not report) is below want[i].
func shortfall(s Status, want []uint64, have func(ShardStatus) uint64, describe func(i int, have, want uint64) string) string {
	var parts []string
	for i, w := range want {
		var h uint64
		if i < len(s.Shards) {
			h = have(s.Shards[i])
		}
		if h < w {
			parts = append(parts, describe(i, h, w))
		}
	}
	return strings.Join(parts, "; ")
}

// ShortReplicas names, for the warning of a failover that waits, what each
// answering replica lacks.
func ShortReplicas(rec Record, st map[string]Status, committed []uint64) string {
	var parts []string
	for _, m := range rec.Members {
		if s := st[m.Address]; m.Address != rec.Primary && s.OK {
			if l := Lacking(s, committed); l != "" {
				parts = append(parts, m.Address+" lacks "+l)
			}
		}
	}
	if len(parts) == 0 {
		return "no replica answers"
	}
	return strings.Join(parts, ", ")
}

// Dropped is what an unclean promotion drops, per shard: the larger of
// the recorded and the learned committed value (what the observation
// kept), without the zeros; nil when nothing was committed.
func Dropped(committed []uint64) map[int]uint64 {
	var out map[int]uint64
	for i, v := range committed {
		if v == 0 {
			continue
		}
		if out == nil {
			out = map[int]uint64{}
		}
		out[i] = v
	}
	return out
}
