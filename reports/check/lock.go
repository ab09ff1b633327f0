package check

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/reports/history"
)

// LockResult is what the lock checker found: leases granted with fencing
// tokens (LEASE ACQUIRE), and the writes of their holders to a resource
// that refuses a token below the largest it saw.
type LockResult struct {
	// Grants counts the grants; Lost those whose token is not in the
	// final reads of the key's grants set (a failover took them back).
	Grants int64 `json:"grants"`
	Lost   int64 `json:"lost"`
	// Writes counts the holders' writes to the resource and Refused the
	// refused ones; StaleRefused the refused writes of lost grants:
	// fencing at work.
	Writes       int64 `json:"writes"`
	Refused      int64 `json:"refused"`
	StaleRefused int64 `json:"stale_refused"`
	// Duplicates counts tokens granted twice at one key; LaterLower the
	// grants that survived with a token below that of a grant of their
	// key answered before they were asked for; LateStale the writes of a
	// lost grant the resource accepted after a write of a grant made
	// after it that survived; ValidRefused the refused writes of grants
	// that survived, made while their lease ran. Each is a violation.
	Duplicates   int64 `json:"duplicates"`
	LaterLower   int64 `json:"later_lower"`
	LateStale    int64 `json:"late_stale"`
	ValidRefused int64 `json:"valid_refused"`
}

// Violations is the number of fencing violations the run showed.
func (l *LockResult) Violations() int64 {
	return l.Duplicates + l.LaterLower + l.LateStale + l.ValidRefused
}

// lockChecker judges the tokens of the lock workload (history.FLeaseAcquire
// and friends). A grant survived when the final reads of its key's grants
// set hold its token (in every read, so a node that lags decides nothing):
// the workload adds it there right after the grant, on the same node, and
// a log keeps a record only with those before it. Then, at each key:
//   - no token is granted twice;
//   - a grant that survived has a token above every grant answered
//     before it was asked for: one before it in its own history, or one
//     a failover took back, from a generation its node's exceeds;
//   - a write of a grant that survived, made while its lease ran (the
//     acquire's Values give the time to live), is never refused: no
//     later grant of the key can exist then, except one a failover took
//     back, whose token must be below its own;
//   - a write of a lost grant is never accepted after a write of a grant
//     that survived and was asked for after the lost one was granted:
//     that later grant's token must be larger.
type lockChecker struct{}

func (lockChecker) Name() string { return "lock" }

type grant struct {
	key      string
	token    int64
	asked    int64 // T0 of the acquire
	answered int64 // T1
	ttl      int64 // the lease's time to live in ns; 0 unknown
}

// grantID names a grant: tokens are ordered per key only, so two keys'
// grants may share one.
type grantID struct {
	key   string
	token int64
}

func (lockChecker) Check(h *history.History) Result {
	var r Result
	grants := map[grantID]*grant{}
	res := &LockResult{}
	final := map[string]map[string]bool{}
	var writes []history.Op
	for _, op := range h.Ops {
		switch {
		case op.F == history.FLeaseAcquire && op.Type == history.OK && !op.Nil:
			t, err := strconv.ParseInt(op.Value, 10, 64)
			if err != nil {
				r.undecided("a grant of %s answered %q, not a token", op.Key, op.Value)
				continue
			}
			res.Grants++
			id := grantID{op.Key, t}
			if g, dup := grants[id]; dup {
				res.Duplicates++
				r.violate("token %d granted twice at %s (asked at %d and %d ms)", t, op.Key, g.asked/1e6, op.T0/1e6)
				continue
			}
			g := &grant{key: op.Key, token: t, asked: op.T0, answered: op.T1}
			if len(op.Values) == 1 {
				if ms, err := strconv.ParseInt(strings.TrimPrefix(op.Values[0], "ttl_ms="), 10, 64); err == nil {
					g.ttl = ms * 1e6
				}
			}
			grants[id] = g
		case op.F == history.FLeaseGrants && op.Final && op.Type == history.OK:
			read := setOf(op.Values)
			if prev, ok := final[op.Key]; ok {
				for v := range prev {
					if !read[v] {
						delete(prev, v)
					}
				}
			} else {
				final[op.Key] = read
			}
		case op.F == history.FFencedWrite:
			writes = append(writes, op)
		}
	}
	if res.Grants == 0 && len(writes) == 0 {
		return r.judged()
	}
	survived := func(g *grant) bool { return final[g.key][strconv.FormatInt(g.token, 10)] }
	byKey := map[string][]*grant{}
	for _, g := range grants {
		if _, read := final[g.key]; !read {
			r.undecided("no final read of %s's grants", g.key)
			return r.judged()
		}
		if !survived(g) {
			res.Lost++
		}
		byKey[g.key] = append(byKey[g.key], g)
	}
	var lower []string
	for _, gs := range byKey {
		for _, s := range gs {
			if !survived(s) {
				continue
			}
			for _, g := range gs {
				if g.answered < s.asked && g.token >= s.token {
					res.LaterLower++
					lower = append(lower, fmt.Sprintf("%s: %d (asked at %d ms) after %d", s.key, s.token, s.asked/1e6, g.token))
					break
				}
			}
		}
	}
	if len(lower) > 0 {
		sort.Strings(lower)
		r.violate("%d grants that survived have a token below an earlier grant's (key: token after token): %s", len(lower), clipList(lower))
	}
	sort.SliceStable(writes, func(i, j int) bool { return writes[i].T0 < writes[j].T0 })
	// latest is, per key, the latest ask of a surviving grant whose write
	// the resource accepted so far.
	latest := map[string]int64{}
	var late, refusedValid []string
	for _, w := range writes {
		res.Writes++
		t, _ := strconv.ParseInt(w.Value, 10, 64)
		g := grants[grantID{w.Key, t}]
		if g == nil {
			r.undecided("a write to %s with token %d no grant answered", w.Key, t)
			continue
		}
		ok, kept := w.Type == history.OK, survived(g)
		running := g.ttl == 0 || w.T0 < g.asked+g.ttl
		switch {
		case !ok && kept && !running:
			// Its holder wrote after its lease ran out (a stalled
			// client): refusing it is fencing at work.
			res.Refused++
			res.StaleRefused++
		case !ok && kept:
			res.Refused++
			res.ValidRefused++
			refusedValid = append(refusedValid, strconv.FormatInt(t, 10)+"@"+strconv.FormatInt(w.T0/1e6, 10)+"ms")
		case !ok:
			res.Refused++
			res.StaleRefused++
		case kept:
			latest[g.key] = max(latest[g.key], g.asked)
		case latest[g.key] > g.answered:
			res.LateStale++
			late = append(late, strconv.FormatInt(t, 10)+"@"+strconv.FormatInt(w.T0/1e6, 10)+"ms")
		}
	}
	if len(refusedValid) > 0 {
		r.violate("%d writes of grants that survived were refused (token@time): %s", len(refusedValid), clipList(refusedValid))
	}
	if len(late) > 0 {
		r.violate("%d writes of lost grants were accepted after a later grant's write (token@time): %s", len(late), clipList(late))
	}
	r.Figures = func(s *Summary) { s.Lock = res }
	return r.judged()
}

// clipList joins the first ten items of l.
func clipList(l []string) string {
	if len(l) > 10 {
		return strings.Join(l[:10], ", ") + ", ..."
	}
	return strings.Join(l, ", ")
}

// mergeLock folds one more run's figures into m: counts add up.
func mergeLock(m, s *LockResult) *LockResult {
	if s == nil {
		return m
	}
	if m == nil {
		c := *s
		return &c
	}
	m.Grants += s.Grants
	m.Lost += s.Lost
	m.Writes += s.Writes
	m.Refused += s.Refused
	m.StaleRefused += s.StaleRefused
	m.Duplicates += s.Duplicates
	m.LaterLower += s.LaterLower
	m.LateStale += s.LateStale
	m.ValidRefused += s.ValidRefused
	return m
}
