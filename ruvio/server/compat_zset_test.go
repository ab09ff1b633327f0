package server

import (
	"pgregory.net/rapid"
)

// zsetCommand draws sorted-set commands over members of different
// scores, fractional and exponent-sized ones among them: the lex ranges,
// whose answer over mixed scores is what Redis's search finds, and the
// replies that carry scores, which must be Redis 7.0's text.
func zsetCommand(t *rapid.T) []any {
	key := func(label string) string { return rapid.SampledFrom([]string{"{z}1", "{z}2"}).Draw(t, label) }
	k := key("k")
	member := func(label string) string {
		return rapid.SampledFrom([]string{"a", "b", "c", "d", "e", ""}).Draw(t, label)
	}
	score := func(label string) string {
		return rapid.SampledFrom([]string{"0", "1", "2", "-1", "1.5", "0.1", "3.14159", "1e17", "-2.5e-7", "-inf", "+inf", "14894.260716123894"}).Draw(t, label)
	}
	bound := func(label string) string {
		return rapid.SampledFrom([]string{"-", "+", "[a", "(a", "[b", "(c", "[c", "[", "(e", "[e", "(b"}).Draw(t, label)
	}
	lim := func(cmd []any) []any {
		if rapid.IntRange(0, 3).Draw(t, "limit") == 0 {
			return append(cmd, "LIMIT", rapid.SampledFrom([]string{"0", "1", "2", "-1"}).Draw(t, "off"), rapid.SampledFrom([]string{"1", "2", "-1", "0"}).Draw(t, "cnt"))
		}
		return cmd
	}
	lo, hi := bound("min"), bound("max")
	switch rapid.IntRange(0, 13).Draw(t, "op") {
	case 0, 1, 2:
		return []any{"ZADD", k, score("s1"), member("m1"), score("s2"), member("m2")}
	case 3:
		return lim([]any{"ZRANGEBYLEX", k, lo, hi})
	case 4:
		return lim([]any{"ZREVRANGEBYLEX", k, hi, lo})
	case 5:
		return []any{"ZLEXCOUNT", k, lo, hi}
	case 6:
		return []any{"ZREMRANGEBYLEX", k, lo, hi}
	case 7:
		return lim([]any{"ZRANGE", k, lo, hi, "BYLEX"})
	case 8:
		return lim([]any{"ZRANGE", k, hi, lo, "BYLEX", "REV"})
	case 9:
		return []any{"ZRANGESTORE", key("dst"), k, lo, hi, "BYLEX"}
	case 10:
		return []any{"ZRANGE", k, "0", "-1", "WITHSCORES"}
	case 11:
		return []any{"ZINCRBY", k, score("by"), member("m")}
	case 12:
		return []any{"ZMSCORE", k, member("m1"), member("m2")}
	}
	if rapid.Bool().Draw(t, "errs") {
		// Argument errors in Redis's order: COUNT before the timeout.
		return rapid.SampledFrom([][]any{{"BZMPOP", "-1", "1", k, "MIN", "COUNT", "0"}, {"BLMPOP", "x", "1", k, "LEFT", "COUNT", "0"},
			{"BZMPOP", "-1", "1", k, "MIN"}, {"BZMPOP", "0.01", "0", k, "MIN"}, {"BZMPOP", "-1", "1", k, "SIDEWAYS"}}).Draw(t, "bad")
	}
	return []any{"ZADD", k, "INCR", score("s"), member("m")}
}
