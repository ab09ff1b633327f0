package zsetcmd

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"pgregory.net/rapid"
)

// TestProperty runs random command sequences against the harness and the
// naive model in either protocol, comparing every reply and the whole
// state after each command, and finally checks that the logged effects
// replay to the same keyspace.
func TestProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := &model{
			proto: rapid.SampledFrom([]int{2, 3}).Draw(rt, "proto"),
			zsets: map[string]map[string]float64{},
			strs:  map[string]bool{"s": true},
		}
		h := newHarness(t)
		h.Proto = m.proto
		h.Do("SET", "s", "v")
		for range rapid.IntRange(1, 80).Draw(rt, "steps") {
			argv, want, check := m.step(rt)
			got := h.Do(argv...)
			switch {
			case check != nil:
				if err := check(got); err != "" {
					rt.Fatalf("%q replied %#v: %s", argv, got, err)
				}
			case want == blocked:
				if got != nil || h.Blocked == nil {
					rt.Fatalf("%q replied %#v, want it to block", argv, got)
				}
			default:
				if !reflect.DeepEqual(got, want) {
					rt.Fatalf("%q replied %#v, model wants %#v", argv, got, want)
				}
			}
			m.checkState(rt, h)
		}
		if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
			rt.Fatalf("replay diverged:\nreplayed:\n%s\nlive:\n%s", got, want)
		}
	})
}

// blocked is the expected "reply" of a blocking command that must wait.
var blocked = &struct{}{}

// step draws one command and returns it with the model's reply, or with a
// check for replies that are random.
func (m *model) step(t *rapid.T) (argv []string, want any, check func(any) string) {
	key := keyGen.Draw(t, "key")
	switch op := rapid.IntRange(0, 16).Draw(t, "op"); op {
	case 0, 1: // ZADD
		argv = []string{"ZADD", key}
		var o addOptions
		for _, f := range []struct {
			name string
			on   *bool
		}{{"NX", &o.nx}, {"XX", &o.xx}, {"GT", &o.gt}, {"LT", &o.lt}, {"CH", &o.ch}, {"INCR", &o.incr}} {
			if rapid.IntRange(0, 4).Draw(t, f.name) == 0 {
				*f.on = true
				argv = append(argv, f.name)
			}
		}
		pairs := m.drawPairs(t, rapid.IntRange(1, 3).Draw(t, "pairs"))
		for _, p := range pairs {
			argv = append(argv, p[0], p[1])
		}
		return argv, m.zadd(key, o, pairs), nil
	case 2: // ZINCRBY
		p := m.drawPairs(t, 1)[0]
		return []string{"ZINCRBY", key, p[0], p[1]}, m.zadd(key, addOptions{incr: true}, [][2]string{p}), nil
	case 3: // ZREM
		argv = []string{"ZREM", key}
		for range rapid.IntRange(1, 3).Draw(t, "n") {
			argv = append(argv, memberGen.Draw(t, "member"))
		}
		if m.strs[key] {
			return argv, e(wrongType), nil
		}
		s := maps(m.zsets[key])
		n := 0
		for _, mem := range argv[2:] {
			if _, ok := s[mem]; ok {
				delete(s, mem)
				n++
			}
		}
		if s != nil {
			m.setOrDelete(key, s)
		}
		return argv, int64(n), nil
	case 4: // ZSCORE, ZMSCORE, ZCARD, ZRANK, ZREVRANK
		return m.point(t, key)
	case 5: // ZCOUNT, ZLEXCOUNT
		return m.count(t, key)
	case 6, 7: // ZRANGE and its older forms
		return m.rangeStep(t, key)
	case 8: // ZRANGESTORE
		return m.storeStep(t, key)
	case 9: // ZPOPMIN, ZPOPMAX
		return m.popStep(t, key)
	case 10: // BZPOPMIN, BZPOPMAX
		return m.bpopStep(t, key)
	case 11, 12: // ZREMRANGEBYSCORE, ZREMRANGEBYRANK, ZREMRANGEBYLEX
		return m.remRangeStep(t, key)
	case 13: // ZRANDMEMBER
		return m.randStep(t, key)
	case 14: // ZSCAN
		argv = []string{"ZSCAN", key, "0"}
		switch {
		case m.strs[key]:
			return argv, e(wrongType), nil
		}
		elems := []any{}
		for _, it := range m.sorted(key) {
			elems = append(elems, it.Member, sortedset.FormatScore(it.Score))
		}
		return argv, a("0", elems), nil
	case 15: // recreate the string key
		delete(m.zsets, "s")
		m.strs["s"] = true
		return []string{"SET", "s", "v"}, "OK", nil
	default: // DEL
		_, isZ := m.zsets[key]
		n := int64(0)
		if isZ || m.strs[key] {
			n = 1
		}
		delete(m.zsets, key)
		delete(m.strs, key)
		return []string{"DEL", key}, n, nil
	}
}

func (m *model) drawPairs(t *rapid.T, n int) [][2]string {
	pairs := make([][2]string, n)
	for i := range pairs {
		pairs[i] = [2]string{scoreGen.Draw(t, "score"), memberGen.Draw(t, "member")}
	}
	return pairs
}

func (m *model) popStep(t *rapid.T, key string) ([]string, any, func(any) string) {
	top := rapid.Bool().Draw(t, "max")
	argv := []string{"ZPOPMIN", key}
	if top {
		argv[0] = "ZPOPMAX"
	}
	count, hasCount := 1, rapid.Bool().Draw(t, "hascount")
	if hasCount {
		count = rapid.IntRange(0, 4).Draw(t, "count")
		argv = append(argv, strconv.Itoa(count))
	}
	if m.strs[key] {
		return argv, e(wrongType), nil
	}
	its := m.pop(key, top, count)
	out := []any{}
	for _, it := range its {
		if hasCount && m.proto >= 3 {
			out = append(out, []any{it.Member, it.Score})
		} else {
			out = append(out, it.Member, m.score(it.Score))
		}
	}
	return argv, out, nil
}

// pop removes and returns up to count lowest or highest elements of key.
func (m *model) pop(key string, top bool, count int) []sortedset.Item {
	its := m.sorted(key)
	if top {
		slices.Reverse(its)
	}
	its = its[:min(count, len(its))]
	if len(its) == 0 {
		return nil
	}
	s := maps(m.zsets[key])
	for _, it := range its {
		delete(s, it.Member)
	}
	m.setOrDelete(key, s)
	return its
}

func (m *model) bpopStep(t *rapid.T, key string) ([]string, any, func(any) string) {
	top := rapid.Bool().Draw(t, "max")
	argv := []string{"BZPOPMIN", key}
	if top {
		argv[0] = "BZPOPMAX"
	}
	if rapid.Bool().Draw(t, "two") {
		argv = append(argv, keyGen.Draw(t, "key2"))
	}
	argv = append(argv, "0")
	for _, k := range argv[1 : len(argv)-1] {
		if m.strs[k] {
			return argv, e(wrongType), nil
		}
		if its := m.pop(k, top, 1); its != nil {
			return argv, a(k, its[0].Member, m.score(its[0].Score)), nil
		}
	}
	return argv, blocked, nil
}

func (m *model) remRangeStep(t *rapid.T, key string) ([]string, any, func(any) string) {
	var argv []string
	q := rangeQuery{limit: -1}
	switch rapid.IntRange(0, 2).Draw(t, "by") {
	case 0:
		argv = []string{"ZREMRANGEBYSCORE", key, boundGen.Draw(t, "min"), boundGen.Draw(t, "max")}
		q.by = byScore
		q.scoreMin, _ = sortedset.ParseScoreBound(argv[2])
		q.scoreMax, _ = sortedset.ParseScoreBound(argv[3])
	case 1:
		argv = []string{"ZREMRANGEBYRANK", key, indexGen.Draw(t, "start"), indexGen.Draw(t, "stop")}
		q.by = byRank
		q.start, _ = strconv.ParseInt(argv[2], 10, 64)
		q.stop, _ = strconv.ParseInt(argv[3], 10, 64)
	default:
		argv = []string{"ZREMRANGEBYLEX", key, lexGen.Draw(t, "min"), lexGen.Draw(t, "max")}
		q.by = byLex
		q.lexMin, _ = sortedset.ParseLexBound(argv[2])
		q.lexMax, _ = sortedset.ParseLexBound(argv[3])
	}
	if m.strs[key] {
		return argv, e(wrongType), nil
	}
	gone := m.rangeOf(key, q)
	if len(gone) > 0 {
		s := maps(m.zsets[key])
		for _, it := range gone {
			delete(s, it.Member)
		}
		m.setOrDelete(key, s)
	}
	return argv, int64(len(gone)), nil
}

func (m *model) randStep(t *rapid.T, key string) ([]string, any, func(any) string) {
	argv := []string{"ZRANDMEMBER", key}
	s := m.zsets[key]
	if rapid.Bool().Draw(t, "nocount") {
		switch {
		case m.strs[key]:
			return argv, e(wrongType), nil
		case s == nil:
			return argv, nil, nil
		}
		return argv, nil, func(got any) string {
			if mem, ok := got.(string); !ok || !hasMember(s, mem) {
				return "not a member"
			}
			return ""
		}
	}
	count := rapid.IntRange(-5, 5).Draw(t, "count")
	argv = append(argv, strconv.Itoa(count))
	withScores := rapid.Bool().Draw(t, "withscores")
	if withScores {
		argv = append(argv, "WITHSCORES")
	}
	switch {
	case m.strs[key]:
		return argv, e(wrongType), nil
	case s == nil || count == 0:
		return argv, a(), nil
	case count >= len(s):
		its := m.sorted(key)
		slices.Reverse(its)
		return argv, m.items(its, withScores), nil
	}
	return argv, nil, func(got any) string {
		its, ok := m.decodeItems(got, withScores)
		if !ok {
			return "malformed reply"
		}
		if n := max(count, -count); len(its) != n {
			return "wrong number of elements"
		}
		seen := map[string]bool{}
		for _, it := range its {
			sc, ok := s[it.Member]
			if !ok || (withScores && sc != it.Score) {
				return "not a member, or wrong score"
			}
			if count > 0 && seen[it.Member] {
				return "repeated member for a positive count"
			}
			seen[it.Member] = true
		}
		return ""
	}
}

func hasMember(s map[string]float64, mem string) bool {
	_, ok := s[mem]
	return ok
}

// decodeItems reads a writeItems reply back into items.
func (m *model) decodeItems(got any, withScores bool) ([]sortedset.Item, bool) {
	arr, ok := got.([]any)
	if !ok {
		return nil, false
	}
	var its []sortedset.Item
	step := 1
	if withScores && m.proto < 3 {
		step = 2
	}
	for i := 0; i+step <= len(arr); i += step {
		var it sortedset.Item
		switch {
		case !withScores:
			it.Member, ok = arr[i].(string)
		case m.proto >= 3:
			pair, isArr := arr[i].([]any)
			if !isArr || len(pair) != 2 {
				return nil, false
			}
			it.Member, ok = pair[0].(string)
			it.Score, _ = pair[1].(float64)
		default:
			it.Member, ok = arr[i].(string)
			text, _ := arr[i+1].(string)
			it.Score, _ = sortedset.ParseScore(text)
		}
		if !ok {
			return nil, false
		}
		its = append(its, it)
	}
	return its, true
}
