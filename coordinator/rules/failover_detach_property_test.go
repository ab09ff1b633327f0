package rules

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A model of a group during a failover: the old primary keeps writing,
// its records reach each replica that still follows it, and a write is
// acknowledged (REPLICAS 1) once a following replica holds it. The leader
// detaches the replicas it reaches one after the other while all of that
// goes on, then chooses among the detached. After any interleaving, every
// write a reachable replica confirmed is held by the one promoted, when
// it covers the others (always, with one shard).
type detachModel struct {
	shards    int
	primary   []uint64   // the old primary's last sequence per shard
	pos       [][]uint64 // each replica's last sequence per shard
	follows   []bool     // still takes the old primary's stream
	reachable []bool     // the leader reaches it (so can detach it)
	// confirmed is, per shard, the highest sequence a reachable replica
	// confirmed to the old primary (every write up to it may have been
	// acknowledged).
	confirmed []uint64
	// older is a member of an older build, detached with REPLICAOF NO
	// ONE: a primary whose log gains a fork record.
	older []bool
}

var detachMembers = []Member{mb, mc, md}

func (m *detachModel) step(t *rapid.T, label string) {
	k := rapid.IntRange(0, m.shards-1).Draw(t, label+" shard")
	r := rapid.IntRange(0, len(m.pos)-1).Draw(t, label+" replica")
	switch rapid.IntRange(0, 2).Draw(t, label) {
	case 0: // the old primary writes
		m.primary[k]++
	case 1: // one record reaches a following replica
		if m.follows[r] && m.pos[r][k] < m.primary[k] {
			m.pos[r][k]++
		}
	case 2: // the replica confirms what it holds; the primary acknowledges
		if m.follows[r] && m.reachable[r] {
			m.confirmed[k] = max(m.confirmed[k], m.pos[r][k])
		}
	}
}

func (m *detachModel) status(i int, detached bool) Status {
	s := Status{OK: true, At: genTime}
	role, fork := "slave", uint64(0)
	if detached && m.older[i] {
		role, fork = "master", 1 // REPLICAOF NO ONE forks an epoch: one record more
	}
	for k := range m.shards {
		s.Shards = append(s.Shards, ShardStatus{Role: role, WalLast: m.pos[i][k] + fork, WalDurable: m.pos[i][k] + fork})
	}
	return s
}

func TestDetachedChoiceHoldsEveryConfirmedWrite(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3).Draw(t, "replicas")
		m := &detachModel{shards: rapid.IntRange(1, 2).Draw(t, "shards")}
		m.primary = make([]uint64, m.shards)
		m.confirmed = make([]uint64, m.shards)
		for i := 0; i < n; i++ {
			m.pos = append(m.pos, make([]uint64, m.shards))
			m.follows = append(m.follows, true)
			m.reachable = append(m.reachable, i == 0 || rapid.Bool().Draw(t, "reachable"))
			m.older = append(m.older, rapid.Bool().Draw(t, "older build"))
		}
		rec := Record{Primary: ma.Address, Members: append([]Member{ma}, detachMembers[:n]...)}
		for i := rapid.IntRange(0, 60).Draw(t, "before"); i > 0; i-- {
			m.step(t, "before")
		}
		// Whether the old primary still runs (and streams) once the
		// leader starts detaching.
		streams := rapid.Bool().Draw(t, "old primary streams")
		st := map[string]Status{}
		for i := range n {
			st[detachMembers[i].Address] = Status{OK: m.reachable[i], At: genTime}
		}
		candidate := detachMembers[rapid.IntRange(0, n-1).Draw(t, "candidate")]
		// The leader detaches the reachable replicas in DetachTargets'
		// order while the rest of the group goes on between the
		// commands; before the candidate, it waits a while for it to
		// catch up.
		detached := map[string]Status{}
		caughtUp := false
		for _, target := range DetachTargets(rec, st, genTime, time.Second, candidate.Address) {
			i := indexOf(target)
			for j := rapid.IntRange(0, 10).Draw(t, "between"); j > 0 && streams; j-- {
				m.step(t, "between")
			}
			if target == candidate {
				for j := rapid.IntRange(0, 40).Draw(t, "catching up"); j > 0 && !caughtUp; j-- {
					if CatchUpShort(m.status(i, false), rec, detached) == "" {
						caughtUp = true
						break
					}
					if streams {
						m.step(t, "catching up")
					}
				}
				caughtUp = caughtUp || CatchUpShort(m.status(i, false), rec, detached) == ""
			}
			m.follows[i] = false
			detached[target.Address] = m.status(i, true)
		}
		for i := rapid.IntRange(0, 30).Draw(t, "after"); i > 0; i-- {
			m.step(t, "after")
		}
		choice, ok := ChooseDetached(rec, detached, nil, false)
		if !ok {
			t.Fatalf("no choice among %d detached", len(detached))
		}
		if (m.shards == 1 || caughtUp) && !choice.Covers {
			t.Fatalf("one shard or a candidate that caught up, yet %s does not cover: %s", choice.Member.Address, choice.Short)
		}
		if !choice.Covers {
			return
		}
		held := m.pos[indexOf(choice.Member)]
		for k := range m.shards {
			if held[k] < m.confirmed[k] {
				t.Fatalf("shard %d: %s holds up to %d, a reachable replica confirmed %d", k, choice.Member.Address, held[k], m.confirmed[k])
			}
		}
	})
}

func indexOf(m Member) int {
	for i, f := range detachMembers {
		if f == m {
			return i
		}
	}
	panic("not a detached member: " + m.Address)
}
