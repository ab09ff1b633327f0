package rules

import (
	"fmt"
	"strings"
	"time"
)

// Detaching before a promotion. A write acknowledged with CLIENT DURABILITY
// REPLICAS 1 is held by at least one replica, but the old primary goes on
// acknowledging writes for as long as any replica still follows it. A
// replica promoted while another still follows the old primary can
// therefore lack writes that the other one confirmed after the promotion,
// and those are lost when the other is pointed at the new primary and
// takes a full copy from it.
//
// So before recording a promotion the leader detaches every replica it
// reaches: each one is sent REPLICAOF NO ONE, which ends its stream from
// the old primary before the command answers. From then on no detached
// replica takes another record of the old primary, so none confirms
// another of its writes, and what each holds is final. The candidate is
// detached last, once it caught up with the others where it lagged (the
// old primary, if it still runs, streams to it meanwhile); the leader
// then promotes the detached replica whose log reaches, on every shard,
// at least as far as every other detached replica's: it holds every write
// a detached replica could have confirmed. The others are pointed at it
// afterwards, as after any failover. Two replicas lagging on different
// shards, with an old primary that no longer streams, leave no replica
// holding everything: the one holding the most history is promoted.
//
// A replica the leader cannot reach cannot be detached: if it still follows
// the old primary it may confirm writes no detached replica holds, which
// are lost (the primary cut off together with a replica; the committed
// sequences cover only what the coordinators saw).

// DetachTargets lists the members to detach before promoting: every member
// but the recorded primary that answered within downAfter, in the
// record's order, except that the candidate comes last. It goes on
// streaming from the old primary while the others are detached, so where
// it lags one of them on a shard it can catch up (CatchUpShort) before it
// is detached in turn.
func DetachTargets(rec Record, st map[string]Status, now time.Time, downAfter time.Duration, candidate string) []Member {
	var out []Member
	var last *Member
	for _, m := range rec.Members {
		s, ok := st[m.Address]
		if !ok || m.Address == rec.Primary || !s.OK || now.Sub(s.At) >= downAfter {
			continue
		}
		if m.Address == candidate {
			last = &m
			continue
		}
		out = append(out, m)
	}
	if last != nil {
		out = append(out, *last)
	}
	return out
}

// CatchUpShort describes, per shard, where a detached replica's log
// reaches past that of s, a replica still streaming ("" when s holds
// everything each of them had received). A detached replica's log ends
// with its fork record, which s does not need.
func CatchUpShort(s Status, rec Record, detached map[string]Status) string {
	return shortOf(s, 1, rec, detached)
}

// DetachArgs is the command that detaches a replica: it stops following and
// forks an epoch of its own, so its log holds exactly what it had
// received when the command answered, plus the fork's own record.
func DetachArgs() []string { return []string{"REPLICAOF", "NO", "ONE"} }

// Detached is the choice among the detached replicas.
type Detached struct {
	Member Member
	// Covers: the chosen replica's log reaches, on every shard, at least
	// as far as every other detached replica's, so it holds every write any
	// of them confirmed. When no replica covers the others (they lag on
	// different shards), the one holding the most history is chosen and
	// Short says what it lacks.
	Covers bool
	Short  string
}

// ChooseDetached picks the member to promote among the detached ones, given
// their statuses pinged after the detach answered: it answers, is not
// loading, holds every committed record (unless unclean), and covers the
// others; ties go to the most history, then to the member listed first.
// Every detached replica's log ends with one fork record, so comparing the
// last sequences compares what each had received. ok is false when no
// detached member qualifies.
func ChooseDetached(rec Record, detached map[string]Status, committed []uint64, unclean bool) (Detached, bool) {
	var eligible []Member
	for _, m := range rec.Members {
		s, ok := detached[m.Address]
		if !ok || m.Address == rec.Primary || !s.OK || s.Loading() {
			continue
		}
		if !unclean && !Holds(s, committed) {
			continue
		}
		eligible = append(eligible, m)
	}
	if len(eligible) == 0 {
		return Detached{}, false
	}
	var best Detached
	var bestHist uint64
	found := false
	for _, m := range eligible {
		s := detached[m.Address]
		short := shortOf(s, 0, rec, detached)
		covers := short == ""
		h := s.History()
		better := !found || (covers && !best.Covers) || (covers == best.Covers && h > bestHist)
		if better {
			best, bestHist, found = Detached{Member: m, Covers: covers, Short: short}, h, true
		}
	}
	return best, true
}

// shortOf describes, per shard, where another answering detached replica's
// log, less its last fork records, reaches past s's ("" when s covers
// them all).
func shortOf(s Status, fork uint64, rec Record, detached map[string]Status) string {
	var parts []string
	for _, m := range rec.Members {
		o, ok := detached[m.Address]
		if !ok || m.Address == rec.Primary || !o.OK {
			continue
		}
		for i, sh := range o.Shards {
			var have uint64
			if i < len(s.Shards) {
				have = s.Shards[i].WalLast
			}
			if reach := sh.WalLast - min(fork, sh.WalLast); reach > have {
				parts = append(parts, fmt.Sprintf("shard %d: records %d-%d held by %s", i, have+1, reach, m.Address))
			}
		}
	}
	return strings.Join(parts, "; ")
}
