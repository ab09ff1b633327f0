package rules

import (
	"fmt"
	"iter"
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
// reaches: each one is sent RUVIO DETACH, which ends its stream from the
// old primary before the command answers and leaves it a read-only
// replica on its own epoch, its log untouched, so if it is not the one
// promoted it continues from its log on the new primary. A member of an
// older build (or one that refuses it) is sent REPLICAOF NO ONE instead,
// which also ends the stream but makes it a primary: its log gains a fork
// record and, unless it is the one promoted or held exactly what that one
// held, it takes a full copy from the new primary afterwards. From then on
// no detached replica takes another record of the old primary, so none
// confirms another of its writes, and what each holds is final. The candidate is
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
// everything each of them had received).
func CatchUpShort(s Status, rec Record, detached map[string]Status) string {
	return shortOf(s, rec, detached)
}

// CatchUpBlocked reports whether s, a replica still following the old
// primary, cannot catch up with the detached replicas: on every shard
// where it lags one of them, its link to the old primary is down, so
// nothing more arrives there (a killed primary: its replicas' links drop
// at once). Waiting is then in vain, and rules.ChooseDetached decides
// among what the replicas hold. A link that is up, or a ping that was not
// answered, keeps the wait: a primary cut off from the coordinators alone
// still streams.
func CatchUpBlocked(s Status, rec Record, detached map[string]Status) bool {
	if !s.OK {
		return false
	}
	lagging := false
	for l := range lags(s, rec, detached) {
		if l.shard >= len(s.Shards) || s.Shards[l.shard].LinkUp {
			return false
		}
		lagging = true
	}
	return lagging
}

// DetachArgs is the command that detaches a replica: it stops following
// and stays a replica, so its log holds exactly what it had received
// when the command answered.
func DetachArgs() []string { return []string{"RUVIO", "DETACH"} }

// DetachFallbackArgs detaches a member that refused DetachArgs, as
// earlier builds did: it stops following and forks an epoch of its own,
// so its log holds what it had received plus the fork's own record.
func DetachFallbackArgs() []string { return []string{"REPLICAOF", "NO", "ONE"} }

// DetachRefusal is what a member's error reply to DetachArgs means. Every
// refusal but LOADING is answered with DetachFallbackArgs, which detaches
// the member as earlier builds did.
type DetachRefusal int

const (
	// DetachUnknown: a build without RUVIO DETACH ("ERR unknown
	// subcommand"). The leader warns, rate-limited.
	DetachUnknown DetachRefusal = iota
	// DetachNotReplica: the member follows no primary already, having
	// been made a primary in an earlier round; nothing to warn about.
	DetachNotReplica
	// DetachLoading: a shard of the member is loading a full copy; it
	// would refuse REPLICAOF NO ONE alike, and is not detached this round
	// (nor promoted).
	DetachLoading
	// DetachOther: any other refusal (NOPERM for a user without
	// ruvio|detach). The leader warns, rate-limited.
	DetachOther
)

// Fallback reports whether the leader sends DetachFallbackArgs after the
// refusal.
func (k DetachRefusal) Fallback() bool { return k != DetachLoading }

// Warn reports whether the leader warns (rate-limited) about the refusal.
func (k DetachRefusal) Warn() bool { return k == DetachUnknown || k == DetachOther }

// ClassifyDetachRefusal reads an error reply ("ERR unknown subcommand
// ...") to DetachArgs.
func ClassifyDetachRefusal(reply string) DetachRefusal {
	switch {
	case strings.HasPrefix(reply, "ERR unknown subcommand"), strings.HasPrefix(reply, "ERR unknown command"):
		return DetachUnknown
	case strings.HasPrefix(reply, "ERR RUVIO DETACH: this node is not a replica"):
		return DetachNotReplica
	case strings.HasPrefix(reply, "LOADING"):
		return DetachLoading
	}
	return DetachOther
}

// forkRecords is how many records at the end of a detached shard's log
// it did not receive from the old primary: one fork record when it was
// detached with DetachFallbackArgs (it reports itself a primary), none
// after DetachArgs or while it streams.
func forkRecords(sh ShardStatus) uint64 {
	if sh.Role == "master" {
		return min(1, sh.WalLast)
	}
	return 0
}

// receivedHistory is History less the fork records: how much of the old
// primary's history a detached member holds.
func receivedHistory(s Status) uint64 {
	var n uint64
	for _, sh := range s.Shards {
		n += sh.WalDurable - min(forkRecords(sh), sh.WalDurable)
	}
	return n
}

// received is the last sequence shard i of s took from the old primary.
func received(s Status, i int) uint64 {
	if i >= len(s.Shards) {
		return 0
	}
	return s.Shards[i].WalLast - forkRecords(s.Shards[i])
}

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
// A replica detached with DetachFallbackArgs has one fork record more
// than it received, left out of the comparison. ok is false when no
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
		short := shortOf(s, rec, detached)
		covers := short == ""
		h := receivedHistory(s)
		better := !found || (covers && !best.Covers) || (covers == best.Covers && h > bestHist)
		if better {
			best, bestHist, found = Detached{Member: m, Covers: covers, Short: short}, h, true
		}
	}
	return best, true
}

// shortOf describes, per shard, where what another answering detached
// replica received reaches past what s received ("" when s covers them
// all).
func shortOf(s Status, rec Record, detached map[string]Status) string {
	var parts []string
	for l := range lags(s, rec, detached) {
		parts = append(parts, fmt.Sprintf("shard %d: records %d-%d held by %s", l.shard, l.have+1, l.reach, l.holder))
	}
	return strings.Join(parts, "; ")
}

// lag is a shard on which a detached replica, holder, received more of
// the old primary's history than another member: that one has up to
// have, the holder up to reach.
type lag struct {
	holder      string
	shard       int
	have, reach uint64
}

// lags yields, in the record's member order, each shard on which an
// answering detached replica received more than s.
func lags(s Status, rec Record, detached map[string]Status) iter.Seq[lag] {
	return func(yield func(lag) bool) {
		for _, m := range rec.Members {
			o, ok := detached[m.Address]
			if !ok || m.Address == rec.Primary || !o.OK {
				continue
			}
			for i := range o.Shards {
				have, reach := received(s, i), received(o, i)
				if reach > have && !yield(lag{holder: m.Address, shard: i, have: have, reach: reach}) {
					return
				}
			}
		}
	}
}
