package setcmd_test

import (
	"fmt"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestSpopErrors(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "s", "a")
	cmdtest.Steps{
		{Args: []string{"SPOP", "s", "1", "2"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SPOP", "s", "-1"}, Want: cmdtest.Error("ERR value is out of range, must be positive")},
		{Args: []string{"SPOP", "s", "x"}, Want: cmdtest.Error("ERR value is out of range, must be positive")},
		{Args: []string{"SPOP", "nokey"}, Want: nil},
		{Args: []string{"SPOP", "nokey", "2"}, Want: []any{}},
		{Args: []string{"SPOP", "s", "0"}, Want: []any{}},
		{Args: []string{"SCARD", "s"}, Want: int64(1)},
		{Args: []string{"SPOP", "s"}, Want: "a"},
		{Args: []string{"SCARD", "s"}, Want: int64(0)},
	}.Run(t, h)
	if len(h.Log) != 2 || string(h.Log[1][0]) != "SREM" {
		t.Fatalf("log %q, want SADD then SREM", h.Log)
	}
	cmdtest.CheckReplay(t, h)
}

// TestSpopReplay pops with and without counts from sets of several sizes
// and checks the log, holding SREMs of what went, rebuilds the state.
func TestSpopReplay(t *testing.T) {
	for _, n := range []int{3, 50, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			h := newHarness(t)
			members := map[string]bool{}
			for i := 0; i < n; i++ {
				m := fmt.Sprint("m", i)
				h.Do("SADD", "s", m)
				members[m] = true
			}
			pop := func(args ...string) {
				t.Helper()
				var got []any
				switch r := h.Do(args...).(type) {
				case string:
					got = []any{r}
				case []any:
					got = r
				case nil:
					if len(members) != 0 {
						t.Fatalf("%q = nil with %d members left", args, len(members))
					}
				default:
					t.Fatalf("%q = %#v", args, r)
				}
				for _, m := range got {
					if !members[m.(string)] {
						t.Fatalf("%q popped %q, not a (remaining) member", args, m)
					}
					delete(members, m.(string))
				}
				if got := h.Do("SCARD", "s"); got != int64(len(members)) {
					t.Fatalf("SCARD %d after pops, want %d", got, len(members))
				}
				cmdtest.CheckReplay(t, h)
			}
			pop("SPOP", "s")
			pop("SPOP", "s", "1")
			pop("SPOP", "s", fmt.Sprint(len(members)/10+1))
			pop("SPOP", "s", fmt.Sprint(len(members)*3/4))
			pop("SPOP", "s")
			pop("SPOP", "s", fmt.Sprint(len(members)+10))
			if h.DB.Get("s") != nil {
				t.Fatal("popped-out set still in the keyspace")
			}
			for _, argv := range h.Log {
				if string(argv[0]) == "SPOP" {
					t.Fatalf("SPOP logged verbatim: %q", argv)
				}
			}
		})
	}
}

func TestSrandmember(t *testing.T) {
	h := newHarness(t)
	h.Do("SADD", "one", "a")
	cmdtest.Steps{
		{Args: []string{"SRANDMEMBER", "one", "1", "2"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SRANDMEMBER", "one", "x"}, Want: cmdtest.Error("ERR value is not an integer or out of range")},
		{Args: []string{"SRANDMEMBER", "one", "-9223372036854775808"}, Want: cmdtest.Error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")},
		{Args: []string{"SRANDMEMBER", "nokey"}, Want: nil},
		{Args: []string{"SRANDMEMBER", "nokey", "3"}, Want: []any{}},
		{Args: []string{"SRANDMEMBER", "nokey", "-3"}, Want: []any{}},
		{Args: []string{"SRANDMEMBER", "one", "0"}, Want: []any{}},
		{Args: []string{"SRANDMEMBER", "one"}, Want: "a"},
		{Args: []string{"SRANDMEMBER", "one", "5"}, Want: []any{"a"}},
		{Args: []string{"SRANDMEMBER", "one", "-3"}, Want: []any{"a", "a", "a"}},
	}.Run(t, h)
	if len(h.Log) != 1 {
		t.Fatalf("SRANDMEMBER logged effects: %q", h.Log[1:])
	}
	// Sizes on both sides of random.UniformLimit.
	for _, n := range []int{5, 300, 3000} {
		key := fmt.Sprint("s", n)
		for i := 0; i < n; i++ {
			h.Do("SADD", key, fmt.Sprint(i))
		}
		for _, count := range []int{1, 2, n / 5, n / 2, n - 1, n, n + 1} {
			reply := h.Do("SRANDMEMBER", key, fmt.Sprint(count)).([]any)
			if len(reply) != min(count, n) {
				t.Fatalf("SRANDMEMBER %s %d: %d members", key, count, len(reply))
			}
			seen := map[any]bool{}
			for _, m := range reply {
				if seen[m] {
					t.Fatalf("SRANDMEMBER %s %d repeated %v", key, count, m)
				}
				seen[m] = true
			}
		}
		for _, count := range []int{1, 10, 3 * n} {
			reply := h.Do("SRANDMEMBER", key, fmt.Sprint(-count)).([]any)
			if len(reply) != count {
				t.Fatalf("SRANDMEMBER %s -%d: %d members", key, count, len(reply))
			}
			for _, m := range reply {
				if h.Do("SISMEMBER", key, m.(string)) != int64(1) {
					t.Fatalf("%v is not a member", m)
				}
			}
		}
		if got := h.Do("SCARD", key); got != int64(n) {
			t.Fatalf("SRANDMEMBER changed the set: %v", got)
		}
	}
	cmdtest.CheckReplay(t, h)
}

func TestSscan(t *testing.T) {
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"SSCAN", "nokey", "0", "BOGUS"}, Want: []any{"0", []any{}}},
		{Args: []string{"SADD", "s", "a"}, Want: int64(1)},
		{Args: []string{"SSCAN", "s", "x"}, Want: cmdtest.Error("ERR invalid cursor")},
		{Args: []string{"SSCAN", "s", "0", "COUNT", "0"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SSCAN", "s", "0", "BOGUS"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"SSCAN", "s", "0"}, Want: []any{"0", []any{"a"}}},
		{Args: []string{"SSCAN", "s", "0", "MATCH", "b"}, Want: []any{"0", []any{}}},
	}.Run(t, h)
	for _, n := range []int{100, 129, 4000} {
		for _, count := range []string{"1", "10", "1000"} {
			key := fmt.Sprint("big", n)
			if h.Do("SCARD", key) == int64(0) {
				for i := 0; i < n; i++ {
					h.Do("SADD", key, fmt.Sprint("member-", i))
				}
			}
			seen := map[string]bool{}
			cursor := "0"
			for calls := 0; ; calls++ {
				reply := h.Do("SSCAN", key, cursor, "COUNT", count).([]any)
				for _, m := range reply[1].([]any) {
					seen[m.(string)] = true
				}
				if cursor = reply[0].(string); cursor == "0" {
					break
				}
				if calls > 10*n {
					t.Fatal("SSCAN does not terminate")
				}
			}
			if len(seen) != n {
				t.Fatalf("SSCAN %s COUNT %s saw %d members, want %d", key, count, len(seen), n)
			}
		}
	}
}
