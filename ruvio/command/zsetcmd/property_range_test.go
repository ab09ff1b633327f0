package zsetcmd

import (
	"strconv"

	"github.com/ruvio/ruvio/ruvio/sortedset"
	"pgregory.net/rapid"
)

// The property test's point lookups, counts and range commands.

func (m *model) point(t *rapid.T, key string) ([]string, any, func(any) string) {
	mem := memberGen.Draw(t, "member")
	s := m.zsets[key]
	switch rapid.IntRange(0, 4).Draw(t, "cmd") {
	case 0:
		argv := []string{"ZSCORE", key, mem}
		if m.strs[key] {
			return argv, e(wrongType), nil
		}
		if sc, ok := s[mem]; ok {
			return argv, m.score(sc), nil
		}
		return argv, nil, nil
	case 1:
		argv := []string{"ZMSCORE", key, mem, memberGen.Draw(t, "member2")}
		if m.strs[key] {
			return argv, e(wrongType), nil
		}
		out := []any{}
		for _, x := range argv[2:] {
			if sc, ok := s[x]; ok {
				out = append(out, m.score(sc))
			} else {
				out = append(out, nil)
			}
		}
		return argv, out, nil
	case 2:
		argv := []string{"ZCARD", key}
		if m.strs[key] {
			return argv, e(wrongType), nil
		}
		return argv, int64(len(s)), nil
	}
	rev := rapid.Bool().Draw(t, "rev")
	argv := []string{"ZRANK", key, mem}
	if rev {
		argv[0] = "ZREVRANK"
	}
	if m.strs[key] {
		return argv, e(wrongType), nil
	}
	its := m.sorted(key)
	for i, it := range its {
		if it.Member == mem {
			if rev {
				i = len(its) - 1 - i
			}
			return argv, int64(i), nil
		}
	}
	return argv, nil, nil
}

func (m *model) count(t *rapid.T, key string) ([]string, any, func(any) string) {
	var q rangeQuery
	var argv []string
	if rapid.Bool().Draw(t, "lex") {
		argv = []string{"ZLEXCOUNT", key, lexGen.Draw(t, "min"), lexGen.Draw(t, "max")}
		q.by = byLex
		q.lexMin, _ = sortedset.ParseLexBound(argv[2])
		q.lexMax, _ = sortedset.ParseLexBound(argv[3])
	} else {
		argv = []string{"ZCOUNT", key, boundGen.Draw(t, "min"), boundGen.Draw(t, "max")}
		q.by = byScore
		q.scoreMin, _ = sortedset.ParseScoreBound(argv[2])
		q.scoreMax, _ = sortedset.ParseScoreBound(argv[3])
	}
	if m.strs[key] {
		return argv, e(wrongType), nil
	}
	q.limit = -1
	return argv, int64(len(m.rangeOf(key, q))), nil
}

// drawRange draws min, max and the options of a range over by (byAuto
// draws the kind and adds its keyword), and returns the arguments after
// the key, the query the model runs, and the error the options earn.
func drawRange(t *rapid.T, by rangeBy, dir rangeDir, store bool) (args []string, q rangeQuery, errMsg string) {
	var opts []string
	if by == byAuto {
		by = rapid.SampledFrom([]rangeBy{byRank, byScore, byLex}).Draw(t, "by")
		switch by {
		case byScore:
			opts = append(opts, "BYSCORE")
		case byLex:
			opts = append(opts, "BYLEX")
		}
	}
	if dir == dirAuto {
		dir = dirForward
		if rapid.Bool().Draw(t, "rev") {
			dir = dirReverse
			opts = append(opts, "REV")
		}
	}
	q = rangeQuery{by: by, reverse: dir == dirReverse, limit: -1}
	if !store && rapid.IntRange(0, 2).Draw(t, "withscores") == 0 {
		q.withScores = true
		opts = append(opts, "WITHSCORES")
	}
	if rapid.IntRange(0, 2).Draw(t, "limit") == 0 {
		q.offset = int64(rapid.IntRange(-1, 4).Draw(t, "offset"))
		q.limit = int64(rapid.IntRange(-2, 4).Draw(t, "count"))
		opts = append(opts, "LIMIT", strconv.FormatInt(q.offset, 10), strconv.FormatInt(q.limit, 10))
	}
	switch {
	case q.limit != -1 && by == byRank:
		errMsg = errLimitByRank
	case q.withScores && by == byLex:
		errMsg = errScoresByLex
	}
	var lo, hi string
	switch by {
	case byRank:
		lo, hi = indexGen.Draw(t, "start"), indexGen.Draw(t, "stop")
		q.start, _ = strconv.ParseInt(lo, 10, 64)
		q.stop, _ = strconv.ParseInt(hi, 10, 64)
	case byScore:
		lo, hi = boundGen.Draw(t, "min"), boundGen.Draw(t, "max")
		q.scoreMin, _ = sortedset.ParseScoreBound(lo)
		q.scoreMax, _ = sortedset.ParseScoreBound(hi)
	case byLex:
		lo, hi = lexGen.Draw(t, "min"), lexGen.Draw(t, "max")
		q.lexMin, _ = sortedset.ParseLexBound(lo)
		q.lexMax, _ = sortedset.ParseLexBound(hi)
	}
	if q.reverse && by != byRank {
		// Reverse score and lex ranges are written max first.
		lo, hi = hi, lo
	}
	return append([]string{lo, hi}, opts...), q, errMsg
}

func (m *model) rangeStep(t *rapid.T, key string) ([]string, any, func(any) string) {
	forms := []struct {
		name string
		by   rangeBy
		dir  rangeDir
	}{
		{"ZRANGE", byAuto, dirAuto},
		{"ZRANGEBYSCORE", byScore, dirForward},
		{"ZREVRANGEBYSCORE", byScore, dirReverse},
		{"ZRANGEBYLEX", byLex, dirForward},
		{"ZREVRANGEBYLEX", byLex, dirReverse},
		{"ZREVRANGE", byRank, dirReverse},
	}
	f := rapid.SampledFrom(forms).Draw(t, "form")
	args, q, errMsg := drawRange(t, f.by, f.dir, false)
	argv := append([]string{f.name, key}, args...)
	switch {
	case errMsg != "":
		return argv, e(errMsg), nil
	case m.strs[key]:
		return argv, e(wrongType), nil
	}
	return argv, m.items(m.rangeOf(key, q), q.withScores), nil
}

func (m *model) storeStep(t *rapid.T, src string) ([]string, any, func(any) string) {
	dst := keyGen.Draw(t, "dst")
	args, q, errMsg := drawRange(t, byAuto, dirAuto, true)
	argv := append([]string{"ZRANGESTORE", dst, src}, args...)
	switch {
	case errMsg != "":
		return argv, e(errMsg), nil
	case m.strs[src]:
		return argv, e(wrongType), nil
	}
	s := map[string]float64{}
	for _, it := range m.rangeOf(src, q) {
		s[it.Member] = it.Score
	}
	m.setOrDelete(dst, s)
	return argv, int64(len(s)), nil
}
