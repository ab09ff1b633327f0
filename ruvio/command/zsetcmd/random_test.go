package zsetcmd

import (
	"fmt"
	"strconv"
	"testing"
)

func TestZRandMember(t *testing.T) {
	const rangeErr = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	runCases(t, []tcase{
		{name: "rand", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1 a 2 b 3 c", want: int64(3)},
			{cmd: "ZADD one 1.5 m", want: int64(1)},
			{cmd: "ZRANDMEMBER missing", want: nil},
			{cmd: "ZRANDMEMBER missing 5", want: a()},
			{cmd: "ZRANDMEMBER missing -5 WITHSCORES", want: a()},
			{cmd: "ZRANDMEMBER z 0", want: a()},
			// A count covering the set returns it whole, highest first, as
			// Redis's backward set iterator does.
			{cmd: "ZRANDMEMBER z 5", want: a("c", "b", "a")},
			{cmd: "ZRANDMEMBER z 3 WITHSCORES", want: a("c", "3", "b", "2", "a", "1")},
			{cmd: "ZRANDMEMBER one", want: "m"},
			{cmd: "ZRANDMEMBER one 1", want: a("m")},
			{cmd: "ZRANDMEMBER one -3", want: a("m", "m", "m")},
			{cmd: "ZRANDMEMBER one -2 withscores", want: a("m", "1.5", "m", "1.5")},
			{cmd: "ZRANDMEMBER z 1 2", want: e(errSyntax)},
			{cmd: "ZRANDMEMBER z 1 WITHSCORES x", want: e(errSyntax)},
			{cmd: "ZRANDMEMBER z x", want: e(errInt)},
			{cmd: "ZRANDMEMBER z -9223372036854775808", want: e(rangeErr)},
			{cmd: "ZRANDMEMBER z -9223372036854775807 WITHSCORES", want: e("ERR value is out of range")},
			{cmd: "ZRANDMEMBER z 4611686018427387904 WITHSCORES", want: e("ERR value is out of range")},
			{cmd: "ZRANDMEMBER str", want: e(wrongType)},
			{cmd: "ZRANDMEMBER str 1", want: e(wrongType)},
			{cmd: "ZRANDMEMBER str 0", want: e(wrongType)},
			{cmd: "ZRANDMEMBER str x", want: e(errInt)},
		}},
		{name: "rand", proto: 3, steps: []step{
			{cmd: "ZADD z 1 a 2 b", want: int64(2)},
			{cmd: "ZADD one 1.5 m", want: int64(1)},
			{cmd: "ZRANDMEMBER z 2 WITHSCORES", want: a(a("b", 2.0), a("a", 1.0))},
			{cmd: "ZRANDMEMBER one -2 WITHSCORES", want: a(a("m", 1.5), a("m", 1.5))},
			{cmd: "ZRANDMEMBER missing", want: nil},
		}},
	})
}

// TestZRandMemberShapes checks the random cases by their properties:
// distinct members for a positive count, repeats allowed for a negative
// one, scores matching members, and a count large enough to cross the
// streaming chunk.
func TestZRandMemberShapes(t *testing.T) {
	h := newHarness(t)
	scores := map[string]string{}
	args := []string{"ZADD", "z"}
	for i := range 50 {
		m := fmt.Sprintf("m%02d", i)
		scores[m] = strconv.Itoa(i)
		args = append(args, scores[m], m)
	}
	h.Do(args...)
	for range 20 {
		got := h.Do("ZRANDMEMBER", "z", "10").([]any)
		seen := map[any]bool{}
		for _, m := range got {
			if _, ok := scores[m.(string)]; !ok || seen[m] {
				t.Fatalf("ZRANDMEMBER z 10 = %q: unknown or repeated member", got)
			}
			seen[m] = true
		}
		if len(got) != 10 {
			t.Fatalf("ZRANDMEMBER z 10 returned %d members", len(got))
		}
	}
	got := h.Do("ZRANDMEMBER", "z", "-3000", "WITHSCORES").([]any)
	if len(got) != 6000 {
		t.Fatalf("ZRANDMEMBER z -3000 WITHSCORES returned %d elements", len(got))
	}
	distinct := map[any]bool{}
	for i := 0; i < len(got); i += 2 {
		if scores[got[i].(string)] != got[i+1] {
			t.Fatalf("member %v replied with score %v", got[i], got[i+1])
		}
		distinct[got[i]] = true
	}
	if len(distinct) < 40 {
		t.Fatalf("3000 picks from 50 members hit only %d of them", len(distinct))
	}
	if len(h.Log) != 1 {
		t.Fatalf("ZRANDMEMBER logged effects: %q", h.Log[1:])
	}
}
