package zsetcmd

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestZScan(t *testing.T) {
	runCases(t, []tcase{
		{name: "small", steps: []step{
			{cmd: "SET str v", want: "OK"},
			{cmd: "ZADD z 1 a 2.5 b 3 ab", want: int64(3)},
			{cmd: "ZSCAN z 0", want: a("0", a("a", "1", "b", "2.5", "ab", "3"))},
			{cmd: "ZSCAN z 0 MATCH a*", want: a("0", a("a", "1", "ab", "3"))},
			{cmd: "ZSCAN z 0 COUNT 1 MATCH *", want: a("0", a("a", "1", "b", "2.5", "ab", "3"))},
			{cmd: "ZSCAN z x", want: e("ERR invalid cursor")},
			{cmd: "ZSCAN z 0 COUNT 0", want: e(errSyntax)},
			{cmd: "ZSCAN z 0 COUNT x", want: e(errInt)},
			{cmd: "ZSCAN z 0 FOO", want: e(errSyntax)},
			{cmd: "ZSCAN z 0 MATCH", want: e(errSyntax)},
			{cmd: "ZSCAN missing 0", want: a("0", a())},
			{cmd: "ZSCAN missing 0 FOO", want: a("0", a())},
			{cmd: "ZSCAN str 0", want: e(wrongType)},
		}},
		{name: "small", proto: 3, steps: []step{
			{cmd: "ZADD z 1 a", want: int64(1)},
			// Scores stay bulk strings in RESP3, as in Redis.
			{cmd: "ZSCAN z 0", want: a("0", a("a", "1"))},
		}},
	})
}

// TestZScanIteration runs full iterations over a set too large to come
// whole, changing scores and removing and adding members between calls:
// every member present throughout comes back exactly once, with its
// current score.
func TestZScanIteration(t *testing.T) {
	for _, count := range []string{"1", "10", "100"} {
		t.Run("count"+count, func(t *testing.T) {
			h := newHarness(t)
			args := []string{"ZADD", "z"}
			for i := range 1000 {
				args = append(args, strconv.Itoa(i), fmt.Sprintf("m%d", i))
			}
			h.Do(args...)
			seen := map[string]int{}
			cursor, calls := "0", 0
			for {
				got := h.Do("ZSCAN", "z", cursor, "COUNT", count).([]any)
				elems := got[1].([]any)
				for i := 0; i < len(elems); i += 2 {
					m := elems[i].(string)
					seen[m]++
					if want := h.Do("ZSCORE", "z", m); elems[i+1] != want {
						t.Fatalf("%s scanned with score %v, has %v", m, elems[i+1], want)
					}
				}
				// Churn: move an early member to the top, drop and add one.
				h.Do("ZINCRBY", "z", "5000", fmt.Sprintf("m%d", calls))
				h.Do("ZREM", "z", fmt.Sprintf("m%d", 999-calls))
				h.Do("ZADD", "z", "1", fmt.Sprintf("new%d", calls))
				calls++
				cursor = got[0].(string)
				if cursor == "0" {
					break
				}
				if calls > 2000 {
					t.Fatal("scan does not terminate")
				}
			}
			for i := range 1000 {
				m := fmt.Sprintf("m%d", i)
				removed := 999-i < calls
				if n := seen[m]; n != 1 && !removed {
					t.Errorf("%s returned %d times", m, n)
				}
				if seen[m] > 1 {
					t.Errorf("%s returned %d times", m, seen[m])
				}
			}
			// COUNT is a hint raised to a 1/64 share of the set.
			if calls > 80 {
				t.Errorf("iteration took %d calls", calls)
			}
			cmdtest.CheckReplay(t, h)
		})
	}
}

func TestZScanMatchLarge(t *testing.T) {
	h := newHarness(t)
	args := []string{"ZADD", "z"}
	for i := range 500 {
		args = append(args, "0", fmt.Sprintf("k%03d", i))
	}
	h.Do(args...)
	found := 0
	cursor := "0"
	for {
		got := h.Do("ZSCAN", "z", cursor, "MATCH", "k1?7").([]any)
		found += len(got[1].([]any)) / 2
		if cursor = got[0].(string); cursor == "0" {
			break
		}
	}
	if found != 10 {
		t.Fatalf("MATCH k1?7 found %d members, want 10", found)
	}
}
