package zsetcmd

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"pgregory.net/rapid"
)

// model is the naive reference: each sorted set a map from member to
// score, sorted on demand; strs are the keys holding strings.
type model struct {
	proto int
	zsets map[string]map[string]float64
	strs  map[string]bool
}

// sorted returns key's elements in (score, member) order.
func (m *model) sorted(key string) []sortedset.Item {
	var out []sortedset.Item
	for mem, sc := range m.zsets[key] {
		out = append(out, sortedset.Item{Member: mem, Score: sc})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Score < b.Score || (a.Score == b.Score && a.Member < b.Member)
	})
	return out
}

// score is how a score decodes from a double reply in the model's protocol.
func (m *model) score(f float64) any {
	if m.proto >= 3 {
		return f
	}
	return sortedset.FormatScore(f)
}

// items is the decoded form of writeItems' reply.
func (m *model) items(its []sortedset.Item, withScores bool) any {
	out := []any{}
	for _, it := range its {
		switch {
		case !withScores:
			out = append(out, it.Member)
		case m.proto >= 3:
			out = append(out, []any{it.Member, it.Score})
		default:
			out = append(out, it.Member, sortedset.FormatScore(it.Score))
		}
	}
	return out
}

// setOrDelete stores s under key, or deletes key when s is empty.
func (m *model) setOrDelete(key string, s map[string]float64) {
	delete(m.strs, key)
	if len(s) == 0 {
		delete(m.zsets, key)
		return
	}
	m.zsets[key] = s
}

// zadd models ZADD (and ZINCRBY with incr set and flags empty).
func (m *model) zadd(key string, o addOptions, pairs [][2]string) any {
	switch {
	case o.nx && o.xx:
		return e(errXXNX)
	case (o.gt || o.lt) && o.nx, o.gt && o.lt:
		return e(errGTLTNX)
	case o.incr && len(pairs) > 1:
		return e(errIncrPairs)
	}
	if m.strs[key] {
		return e(wrongType)
	}
	s := maps(m.zsets[key])
	if s == nil && o.xx {
		if o.incr {
			return nil
		}
		return int64(0)
	}
	if s == nil {
		s = map[string]float64{}
	}
	var added, updated, processed int
	var last float64
	for _, p := range pairs {
		score, _ := sortedset.ParseScore(p[0])
		cur, exists := s[p[1]]
		switch {
		case !exists && o.xx, exists && o.nx:
			continue
		case !exists:
			s[p[1]] = compactScore(score)
			added++
			processed++
			last = score
			continue
		}
		if o.incr {
			score += cur
			if math.IsNaN(score) {
				return e(errNaN)
			}
		}
		if (o.lt && score >= cur) || (o.gt && score <= cur) {
			continue
		}
		processed++
		last = score
		if score != cur {
			s[p[1]] = compactScore(score)
			updated++
		}
	}
	m.setOrDelete(key, s)
	switch {
	case !o.incr && o.ch:
		return int64(added + updated)
	case !o.incr:
		return int64(added)
	case processed > 0:
		return m.score(last)
	}
	return nil
}

// compactScore is score as a sorted set in its compact form stores it
// (every set these tests make stays compact): -0 as 0, as Redis's
// listpack does. Replies give the score computed, sign and all.
func compactScore(score float64) float64 {
	if score == 0 {
		return 0
	}
	return score
}

// maps copies a member map, keeping nil as nil.
func maps(s map[string]float64) map[string]float64 {
	if s == nil {
		return nil
	}
	out := make(map[string]float64, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// lexRun is Redis's lex search as its listpack form runs it
// (zzlFirstInLexRange, zzlLastInLexRange) over its, ascending: nothing
// unless the range holds some string, the last element is at least min
// and the first at most max; then forward from the first element at
// least min while at most max, or reverse from the last element at most
// max while at least min. With equal scores it is plain filtering.
func lexRun(its []sortedset.Item, lb, ub sortedset.LexBound, reverse bool) []sortedset.Item {
	geMin := func(i int) bool {
		v := its[i].Member
		return lb.Inf < 0 || (lb.Inf == 0 && (v > lb.Value || (!lb.Exclusive && v == lb.Value)))
	}
	leMax := func(i int) bool {
		v := its[i].Member
		return ub.Inf > 0 || (ub.Inf == 0 && (v < ub.Value || (!ub.Exclusive && v == ub.Value)))
	}
	n := len(its)
	holds := lb.Inf < 0 || ub.Inf > 0 || (lb.Inf == 0 && ub.Inf == 0 &&
		(lb.Value < ub.Value || (lb.Value == ub.Value && !lb.Exclusive && !ub.Exclusive)))
	if n == 0 || !holds || !geMin(n-1) || !leMax(0) {
		return nil
	}
	lo, hi := 0, n
	if reverse {
		for hi > 0 && !leMax(hi-1) {
			hi--
		}
		if hi == 0 || !geMin(hi-1) {
			return nil
		}
		for lo = hi - 1; lo > 0 && geMin(lo-1); lo-- {
		}
		return its[lo:hi]
	}
	for lo < n && !geMin(lo) {
		lo++
	}
	if lo == n || !leMax(lo) {
		return nil
	}
	for hi = lo + 1; hi < n && leMax(hi); hi++ {
	}
	return its[lo:hi]
}

func inScore(v float64, lo, hi sortedset.ScoreBound) bool {
	return (v > lo.Value || (!lo.Exclusive && v == lo.Value)) &&
		(v < hi.Value || (!hi.Exclusive && v == hi.Value))
}

// rangeOf models a range query's selection in reply order.
func (m *model) rangeOf(key string, q rangeQuery) []sortedset.Item {
	its := m.sorted(key)
	var run []sortedset.Item
	switch q.by {
	case byRank:
		if q.reverse {
			slices.Reverse(its)
		}
		start, stop, ok := rankSpan(q.start, q.stop, len(its))
		if !ok {
			return nil
		}
		return its[start : stop+1]
	case byScore:
		for _, it := range its {
			if inScore(it.Score, q.scoreMin, q.scoreMax) {
				run = append(run, it)
			}
		}
	case byLex:
		run = slices.Clone(lexRun(its, q.lexMin, q.lexMax, q.reverse))
	}
	if q.reverse {
		slices.Reverse(run)
	}
	if q.offset < 0 || q.offset >= int64(len(run)) {
		return nil
	}
	run = run[q.offset:]
	if q.limit >= 0 && q.limit < int64(len(run)) {
		run = run[:q.limit]
	}
	return run
}

// checkState compares the keyspace with the model, scores bit for bit.
func (m *model) checkState(t *rapid.T, h *cmdtest.Harness) {
	for key, want := range m.zsets {
		e := h.DB.Get(key)
		if e == nil {
			t.Fatalf("key %q missing", key)
		}
		s, ok := e.Val.(*sortedset.Set)
		if !ok || s.Len() != len(want) {
			t.Fatalf("key %q holds %s, model has %v", key, cmdtest.Dump(h.DB), want)
		}
		for it := range s.Each {
			w, ok := want[it.Member]
			if !ok || math.Float64bits(w) != math.Float64bits(it.Score) {
				t.Fatalf("key %q: %q=%v, model has %v (present %v)", key, it.Member, it.Score, w, ok)
			}
		}
	}
	h.DB.Each(func(key string, e *keyspace.Entry) bool {
		if _, ok := e.Val.(*sortedset.Set); ok && m.zsets[key] == nil {
			t.Fatalf("key %q should not exist: %s", key, cmdtest.Dump(h.DB))
		}
		return true
	})
}

var (
	keyGen    = rapid.SampledFrom([]string{"z1", "z2", "z1", "z2", "s"})
	memberGen = rapid.SampledFrom([]string{"", "a", "b", "c", "d", "ab", "\xff"})
	scoreGen  = rapid.SampledFrom([]string{"-inf", "-2", "-1", "-0", "0", "0.5", "1", "1.5", "2", "+inf", "inf"})
	boundGen  = rapid.Custom(func(t *rapid.T) string {
		s := scoreGen.Draw(t, "score")
		if rapid.Bool().Draw(t, "excl") {
			s = "(" + s
		}
		return s
	})
	lexGen = rapid.Custom(func(t *rapid.T) string {
		switch rapid.IntRange(0, 5).Draw(t, "lexkind") {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2, 3:
			return "[" + memberGen.Draw(t, "m")
		}
		return "(" + memberGen.Draw(t, "m")
	})
	indexGen = rapid.Custom(func(t *rapid.T) string { return strconv.Itoa(rapid.IntRange(-8, 8).Draw(t, "i")) })
)
