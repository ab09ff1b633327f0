package zsetcmd

import (
	"math"
	"testing"
)

const (
	errScoreBound = "ERR min or max is not a float"
	errLexBound   = "ERR min or max not valid string range item"
)

func TestZScoreAndCard(t *testing.T) {
	runCases(t, []tcase{
		{name: "score", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1 a 2.5 b -inf c", want: int64(3)},
			{cmd: "ZSCORE z a", want: "1"},
			{cmd: "ZSCORE z b", want: "2.5"},
			{cmd: "ZSCORE z c", want: "-inf"},
			{cmd: "ZSCORE z x", want: nil},
			{cmd: "ZSCORE missing a", want: nil},
			{cmd: "ZSCORE str a", want: e(wrongType)},
			{cmd: "ZMSCORE z a x b", want: a("1", nil, "2.5")},
			{cmd: "ZMSCORE missing a b", want: a(nil, nil)},
			{cmd: "ZMSCORE str a", want: e(wrongType)},
			{cmd: "ZCARD z", want: int64(3)},
			{cmd: "ZCARD missing", want: int64(0)},
			{cmd: "ZCARD str", want: e(wrongType)},
			{cmd: "ZMSCORE z", want: e("ERR wrong number of arguments for 'zmscore' command")},
		}},
		{name: "score", proto: 3, steps: []step{
			{cmd: "ZADD z 1 a 2.5 b -inf c", want: int64(3)},
			{cmd: "ZSCORE z b", want: 2.5},
			{cmd: "ZSCORE z c", want: math.Inf(-1)},
			{cmd: "ZSCORE z x", want: nil},
			{cmd: "ZMSCORE z a x b", want: a(1.0, nil, 2.5)},
			{cmd: "ZMSCORE missing a", want: a(nil)},
		}},
	})
}

func TestZCount(t *testing.T) {
	runCases(t, []tcase{
		{name: "count", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1 a 2 b 3 c +inf d -inf e", want: int64(5)},
			{cmd: "ZCOUNT z -inf +inf", want: int64(5)},
			{cmd: "ZCOUNT z (-inf (inf", want: int64(3)},
			{cmd: "ZCOUNT z (1 3", want: int64(2)},
			{cmd: "ZCOUNT z (1 (3", want: int64(1)},
			{cmd: "ZCOUNT z 2 2", want: int64(1)},
			{cmd: "ZCOUNT z (2 2", want: int64(0)},
			{cmd: "ZCOUNT z 3 1", want: int64(0)},
			{cmd: "ZCOUNT z 0x1 2", want: int64(2)},
			{cmd: "ZCOUNT z x 1", want: e(errScoreBound)},
			{cmd: "ZCOUNT z 1 nan", want: e(errScoreBound)},
			{cmd: "ZCOUNT missing 0 1", want: int64(0)},
			{cmd: "ZCOUNT str 0 1", want: e(wrongType)},
			{cmd: "ZCOUNT str x 1", want: e(errScoreBound)},
		}},
		{name: "lexcount", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 0 a 0 b 0 c 0 d", want: int64(4)},
			{cmd: "ZLEXCOUNT z - +", want: int64(4)},
			{cmd: "ZLEXCOUNT z [b (d", want: int64(2)},
			{cmd: "ZLEXCOUNT z (a [c", want: int64(2)},
			{cmd: "ZLEXCOUNT z [b [b", want: int64(1)},
			{cmd: "ZLEXCOUNT z (b [b", want: int64(0)},
			{cmd: "ZLEXCOUNT z + -", want: int64(0)},
			{cmd: "ZLEXCOUNT z [ +", want: int64(4)},
			{cmd: "ZLEXCOUNT z a b", want: e(errLexBound)},
			{cmd: "ZLEXCOUNT z [a +x", want: e(errLexBound)},
			{cmd: "ZLEXCOUNT missing - +", want: int64(0)},
			{cmd: "ZLEXCOUNT str - +", want: e(wrongType)},
			{cmd: "ZLEXCOUNT str x +", want: e(errLexBound)},
		}},
	})
}

func TestZRank(t *testing.T) {
	runCases(t, []tcase{
		{name: "rank", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1 a 2 b 3 c", want: int64(3)},
			{cmd: "ZRANK z a", want: int64(0)},
			{cmd: "ZRANK z c", want: int64(2)},
			{cmd: "ZREVRANK z a", want: int64(2)},
			{cmd: "ZREVRANK z c", want: int64(0)},
			{cmd: "ZRANK z x", want: nil},
			{cmd: "ZREVRANK z x", want: nil},
			{cmd: "ZRANK missing a", want: nil},
			{cmd: "ZRANK str a", want: e(wrongType)},
			{cmd: "ZREVRANK str a", want: e(wrongType)},
			{cmd: "ZRANK z a WITHSCORE", want: e("ERR wrong number of arguments for 'zrank' command")},
		}},
		{name: "rank", proto: 3, steps: []step{
			{cmd: "ZADD z 1 a", want: int64(1)},
			{cmd: "ZRANK z a", want: int64(0)},
			{cmd: "ZRANK z x", want: nil},
		}},
	})
}
