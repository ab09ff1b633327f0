package zsetcmd

import "testing"

const (
	errLimit      = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errWithScores = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
)

// fiveSteps builds z = a:1 b:2 c:3 d:4 e:5 and a string key str.
var fiveSteps = []step{
	{cmd: "SET str v", want: "OK"},
	{cmd: "ZADD z 1 a 2 b 3 c 4 d 5 e", want: int64(5)},
}

// lexSteps builds z = a b c d, all scored 0.
var lexSteps = []step{
	{cmd: "SET str v", want: "OK"},
	{cmd: "ZADD z 0 a 0 b 0 c 0 d", want: int64(4)},
}

func with(prefix []step, steps ...step) []step {
	return append(append([]step(nil), prefix...), steps...)
}

func TestZRangeByRank(t *testing.T) {
	runCases(t, []tcase{
		{name: "rank", steps: with(fiveSteps,
			step{cmd: "ZRANGE z 0 -1", want: a("a", "b", "c", "d", "e")},
			step{cmd: "ZRANGE z -2 -1", want: a("d", "e")},
			step{cmd: "ZRANGE z 1 1", want: a("b")},
			step{cmd: "ZRANGE z 3 1", want: a()},
			step{cmd: "ZRANGE z 10 20", want: a()},
			step{cmd: "ZRANGE z -100 1", want: a("a", "b")},
			step{cmd: "ZRANGE z 0 100", want: a("a", "b", "c", "d", "e")},
			step{cmd: "ZRANGE z -100 -50", want: a()},
			step{cmd: "ZRANGE z 0 1 REV", want: a("e", "d")},
			step{cmd: "ZRANGE z 0 0 withscores", want: a("a", "1")},
			step{cmd: "ZRANGE z 0 1 WITHSCORES REV WITHSCORES", want: a("e", "5", "d", "4")},
			step{cmd: "ZREVRANGE z 0 1 WITHSCORES", want: a("e", "5", "d", "4")},
			step{cmd: "ZREVRANGE z -1 -1", want: a("a")},
			step{cmd: "ZRANGE z -9223372036854775808 9223372036854775807", want: a("a", "b", "c", "d", "e")},
			// Redis checks LIMIT's count, not its offset, against rank ranges.
			step{cmd: "ZRANGE z 0 -1 LIMIT 0 1", want: e(errLimit)},
			step{cmd: "ZRANGE z 0 -1 LIMIT 3 -1", want: a("a", "b", "c", "d", "e")},
			step{cmd: "ZREVRANGE z 0 -1 LIMIT 0 1", want: e(errLimit)},
			step{cmd: "ZRANGE z a 1", want: e(errInt)},
			step{cmd: "ZRANGE z 0 1.5", want: e(errInt)},
			step{cmd: "ZRANGE z 0 1 FOO", want: e(errSyntax)},
			step{cmd: "ZRANGE z 0 1 REV REV", want: e(errSyntax)},
			step{cmd: "ZREVRANGE z 0 1 REV", want: e(errSyntax)},
			step{cmd: "ZRANGE z 0 1 LIMIT 1", want: e(errSyntax)},
			step{cmd: "ZRANGE z 0 1 LIMIT x 1", want: e(errInt)},
			step{cmd: "ZRANGE z 0 1 LIMIT 1 x", want: e(errInt)},
			step{cmd: "ZRANGE missing 0 -1", want: a()},
			step{cmd: "ZRANGE str 0 -1", want: e(wrongType)},
			step{cmd: "ZRANGE str x 1", want: e(errInt)},
			step{cmd: "ZRANGE z 0", want: e("ERR wrong number of arguments for 'zrange' command")},
		)},
		{name: "rank", proto: 3, steps: with(fiveSteps,
			step{cmd: "ZRANGE z 0 1", want: a("a", "b")},
			step{cmd: "ZRANGE z 0 1 WITHSCORES", want: a(a("a", 1.0), a("b", 2.0))},
			step{cmd: "ZREVRANGE z 0 0 WITHSCORES", want: a(a("e", 5.0))},
			step{cmd: "ZRANGE missing 0 1 WITHSCORES", want: a()},
		)},
	})
}

func TestZRangeByScore(t *testing.T) {
	runCases(t, []tcase{
		{name: "score", steps: with(fiveSteps,
			step{cmd: "ZRANGE z 2 4 BYSCORE", want: a("b", "c", "d")},
			step{cmd: "ZRANGE z (2 4 byscore WITHSCORES", want: a("c", "3", "d", "4")},
			step{cmd: "ZRANGE z 4 2 BYSCORE REV", want: a("d", "c", "b")},
			step{cmd: "ZRANGE z 2 4 BYSCORE REV", want: a()},
			step{cmd: "ZRANGE z -inf +inf BYSCORE LIMIT 1 2", want: a("b", "c")},
			step{cmd: "ZRANGE z -inf +inf BYSCORE LIMIT -1 2", want: a()},
			step{cmd: "ZRANGE z -inf +inf BYSCORE LIMIT 1 -1", want: a("b", "c", "d", "e")},
			step{cmd: "ZRANGE z -inf +inf BYSCORE LIMIT 1 -5", want: a("b", "c", "d", "e")},
			step{cmd: "ZRANGE z -inf +inf BYSCORE LIMIT 0 0", want: a()},
			step{cmd: "ZRANGE z -inf +inf BYSCORE LIMIT 5 1", want: a()},
			step{cmd: "ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 WITHSCORES", want: a("d", "4", "c", "3")},
			step{cmd: "ZRANGE z 1 2 BYSCORE BYLEX", want: e(errSyntax)},
			step{cmd: "ZRANGE z 1 2 BYSCORE BYSCORE", want: e(errSyntax)},
			step{cmd: "ZRANGE z x 2 BYSCORE", want: e(errScoreBound)},
			step{cmd: "ZRANGEBYSCORE z 2 4", want: a("b", "c", "d")},
			step{cmd: "ZRANGEBYSCORE z (1 (4 WITHSCORES", want: a("b", "2", "c", "3")},
			step{cmd: "ZRANGEBYSCORE z -inf +inf LIMIT 3 10", want: a("d", "e")},
			step{cmd: "ZRANGEBYSCORE z 2 4 REV", want: e(errSyntax)},
			step{cmd: "ZRANGEBYSCORE z 2 4 BYSCORE", want: e(errSyntax)},
			step{cmd: "ZRANGEBYSCORE z 2 4 LIMIT 0", want: e(errSyntax)},
			step{cmd: "ZRANGEBYSCORE z x 1", want: e(errScoreBound)},
			step{cmd: "ZREVRANGEBYSCORE z 4 2", want: a("d", "c", "b")},
			step{cmd: "ZREVRANGEBYSCORE z 4 2 WITHSCORES LIMIT 0 2", want: a("d", "4", "c", "3")},
			step{cmd: "ZREVRANGEBYSCORE z 2 4", want: a()},
			step{cmd: "ZREVRANGEBYSCORE z (5 (1", want: a("d", "c", "b")},
			step{cmd: "ZRANGEBYSCORE missing 0 1", want: a()},
			step{cmd: "ZRANGEBYSCORE str 0 1", want: e(wrongType)},
			step{cmd: "ZRANGEBYSCORE str x 1", want: e(errScoreBound)},
		)},
		{name: "score", proto: 3, steps: with(fiveSteps,
			step{cmd: "ZRANGEBYSCORE z 4 +inf WITHSCORES", want: a(a("d", 4.0), a("e", 5.0))},
			step{cmd: "ZREVRANGEBYSCORE z 2 -inf WITHSCORES", want: a(a("b", 2.0), a("a", 1.0))},
			step{cmd: "ZRANGE z 4 5 BYSCORE", want: a("d", "e")},
		)},
	})
}

func TestZRangeByLex(t *testing.T) {
	runCases(t, []tcase{
		{name: "lex", steps: with(lexSteps,
			step{cmd: "ZRANGE z [b [c BYLEX", want: a("b", "c")},
			step{cmd: "ZRANGE z + - BYLEX REV", want: a("d", "c", "b", "a")},
			step{cmd: "ZRANGE z - + BYLEX REV", want: a()},
			step{cmd: "ZRANGE z - + BYLEX LIMIT 1 2", want: a("b", "c")},
			step{cmd: "ZRANGE z + - BYLEX REV LIMIT 1 2", want: a("c", "b")},
			step{cmd: "ZRANGE z - + BYLEX WITHSCORES", want: e(errWithScores)},
			step{cmd: "ZRANGE z - + BYLEX LIMIT 0 1 WITHSCORES", want: e(errWithScores)},
			step{cmd: "ZRANGEBYLEX z - (c", want: a("a", "b")},
			step{cmd: "ZRANGEBYLEX z (a (a", want: a()},
			step{cmd: "ZRANGEBYLEX z [a [a", want: a("a")},
			step{cmd: "ZRANGEBYLEX z - + LIMIT 2 5", want: a("c", "d")},
			step{cmd: "ZRANGEBYLEX z - + WITHSCORES", want: e(errWithScores)},
			step{cmd: "ZRANGEBYLEX z - + BYLEX", want: e(errSyntax)},
			step{cmd: "ZRANGEBYLEX z a +", want: e(errLexBound)},
			step{cmd: "ZREVRANGEBYLEX z (c -", want: a("b", "a")},
			step{cmd: "ZREVRANGEBYLEX z + [c LIMIT 0 1", want: a("d")},
			step{cmd: "ZREVRANGEBYLEX z - +", want: a()},
			step{cmd: "ZRANGEBYLEX missing - +", want: a()},
			step{cmd: "ZRANGEBYLEX str - +", want: e(wrongType)},
			step{cmd: "ZRANGEBYLEX str x +", want: e(errLexBound)},
		)},
		{name: "lex", proto: 3, steps: with(lexSteps,
			step{cmd: "ZRANGE z [b + BYLEX", want: a("b", "c", "d")},
		)},
	})
}

func TestZRangeStore(t *testing.T) {
	runCases(t, []tcase{
		{name: "store", steps: with(fiveSteps,
			step{cmd: "ZRANGESTORE dst z 1 2", want: int64(2)},
			step{cmd: "ZRANGE dst 0 -1 WITHSCORES", want: a("b", "2", "c", "3")},
			step{cmd: "ZRANGESTORE dst z 4 2 BYSCORE REV LIMIT 0 2", want: int64(2)},
			step{cmd: "ZRANGE dst 0 -1 WITHSCORES", want: a("c", "3", "d", "4")},
			step{cmd: "ZRANGESTORE dst z [a + BYLEX", want: int64(5)},
			step{cmd: "ZRANGESTORE dst z 10 20", want: int64(0)},
			step{cmd: "EXISTS dst", want: int64(0)},
			step{cmd: "ZRANGESTORE dst z 0 0", want: int64(1)},
			step{cmd: "ZRANGESTORE dst missing 0 -1", want: int64(0)},
			step{cmd: "EXISTS dst", want: int64(0)},
			step{cmd: "ZRANGESTORE dst z 0 -1 WITHSCORES", want: e(errSyntax)},
			step{cmd: "ZRANGESTORE dst z 0 -1 LIMIT 0 1", want: e(errLimit)},
			step{cmd: "ZRANGESTORE dst str 0 -1", want: e(wrongType)},
			// The destination is replaced whatever it held, time to live
			// included.
			step{cmd: "SET dst v", want: "OK"},
			step{cmd: "PEXPIRE dst 100000", want: int64(1)},
			step{cmd: "ZRANGESTORE dst z -1 -1", want: int64(1)},
			step{cmd: "PTTL dst", want: int64(-1)},
			step{cmd: "ZRANGE dst 0 -1", want: a("e")},
			step{cmd: "ZRANGESTORE z z 0 1", want: int64(2)},
			step{cmd: "ZRANGE z 0 -1", want: a("a", "b")},
			step{cmd: "ZRANGESTORE dst z 0", want: e("ERR wrong number of arguments for 'zrangestore' command")},
		)},
	})
}
