package hashcmd_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestHscanErrors(t *testing.T) {
	h := newHarness(t)
	h.Do("HSET", "h", "a", "1")
	cmdtest.Steps{
		{Args: []string{"HSCAN", "h", "x"}, Want: cmdtest.Error("ERR invalid cursor")},
		{Args: []string{"HSCAN", "h", "1.5"}, Want: cmdtest.Error("ERR invalid cursor")},
		{Args: []string{"HSCAN", "h", " 1"}, Want: cmdtest.Error("ERR invalid cursor")},
		{Args: []string{"HSCAN", "h", "18446744073709551616"}, Want: cmdtest.Error("ERR invalid cursor")},
		{Args: []string{"HSCAN", "h", "0", "COUNT", "0"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HSCAN", "h", "0", "COUNT", "-1"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HSCAN", "h", "0", "COUNT", "x"}, Want: cmdtest.Error("ERR value is not an integer or out of range")},
		{Args: []string{"HSCAN", "h", "0", "COUNT"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HSCAN", "h", "0", "MATCH"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HSCAN", "h", "0", "NOVALUES"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HSCAN", "h", "0", "TYPE", "string"}, Want: cmdtest.Error("ERR syntax error")},
		// A missing key answers an empty scan without reading the options.
		{Args: []string{"HSCAN", "nokey", "0", "BOGUS"}, Want: []any{"0", []any{}}},
		{Args: []string{"HSCAN", "nokey", "7"}, Want: []any{"0", []any{}}},
		// Cursors parse like strtoul: a sign, leading zeros, even nothing.
		{Args: []string{"HSCAN", "h", ""}, Want: []any{"0", []any{"a", "1"}}},
		{Args: []string{"HSCAN", "h", "+0"}, Want: []any{"0", []any{"a", "1"}}},
		{Args: []string{"HSCAN", "h", "000"}, Want: []any{"0", []any{"a", "1"}}},
		{Args: []string{"HSCAN", "h", "0", "count", "5", "match", "*"}, Want: []any{"0", []any{"a", "1"}}},
		{Args: []string{"HSCAN", "h", "0", "MATCH", "b*"}, Want: []any{"0", []any{}}},
	}.Run(t, h)
}

// scanAll iterates HSCAN to the end and returns every field seen with its
// value, and how many calls it took.
func scanAll(t *testing.T, h *cmdtest.Harness, key string, opts ...string) (map[string]string, int) {
	t.Helper()
	seen := map[string]string{}
	cursor := "0"
	for calls := 1; ; calls++ {
		args := append([]string{"HSCAN", key, cursor}, opts...)
		reply, ok := h.Do(args...).([]any)
		if !ok || len(reply) != 2 {
			t.Fatalf("%q = %#v", args, reply)
		}
		items := reply[1].([]any)
		for i := 0; i < len(items); i += 2 {
			seen[items[i].(string)] = items[i+1].(string)
		}
		cursor = reply[0].(string)
		if cursor == "0" {
			return seen, calls
		}
		if calls > 100000 {
			t.Fatal("HSCAN does not terminate")
		}
	}
}

func TestHscanSmallIsOneCall(t *testing.T) {
	h := newHarness(t)
	for i := 0; i < 100; i++ {
		h.Do("HSET", "h", fmt.Sprint("f", i), fmt.Sprint(i))
	}
	seen, calls := scanAll(t, h, "h", "COUNT", "3")
	if calls != 1 || len(seen) != 100 {
		t.Fatalf("small hash: %d fields in %d calls, want 100 in 1", len(seen), calls)
	}
}

func TestHscanFullIteration(t *testing.T) {
	for _, n := range []int{129, 1000, 5000} {
		for _, count := range []string{"1", "10", "333", "100000"} {
			t.Run(fmt.Sprintf("n=%d/count=%s", n, count), func(t *testing.T) {
				h := newHarness(t)
				for i := 0; i < n; i++ {
					h.Do("HSET", "h", fmt.Sprint("field:", i), strconv.Itoa(i))
				}
				seen, calls := scanAll(t, h, "h", "COUNT", count)
				if len(seen) != n {
					t.Fatalf("saw %d fields, want %d", len(seen), n)
				}
				for f, v := range seen {
					if got := h.Do("HGET", "h", f); got != v {
						t.Fatalf("field %q = %q, HGET says %#v", f, v, got)
					}
				}
				// COUNT is a hint, but a full scan stays bounded.
				if calls > 66+n/max(1, atoi(count)) {
					t.Fatalf("%d calls", calls)
				}
			})
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func TestHscanMatch(t *testing.T) {
	h := newHarness(t)
	for i := 0; i < 3000; i++ {
		h.Do("HSET", "h", fmt.Sprint("k", i), "v")
	}
	seen, _ := scanAll(t, h, "h", "MATCH", "k1?", "COUNT", "2")
	if len(seen) != 10 {
		t.Fatalf("MATCH k1? found %d fields: %v", len(seen), seen)
	}
	for i := 10; i < 20; i++ {
		if _, ok := seen[fmt.Sprint("k", i)]; !ok {
			t.Fatalf("k%d missing", i)
		}
	}
}

// TestHscanUnderChange adds and removes fields between calls: every field
// present for the whole scan must still be returned.
func TestHscanUnderChange(t *testing.T) {
	h := newHarness(t)
	const n = 2000
	for i := 0; i < n; i++ {
		h.Do("HSET", "h", fmt.Sprint("stable", i), "v")
	}
	seen := map[string]bool{}
	cursor := "0"
	for round := 0; ; round++ {
		reply := h.Do("HSCAN", "h", cursor, "COUNT", "7").([]any)
		items := reply[1].([]any)
		for i := 0; i < len(items); i += 2 {
			seen[items[i].(string)] = true
		}
		// Churn: grow the hash a lot, then shrink part of the growth.
		for j := 0; j < 50; j++ {
			h.Do("HSET", "h", fmt.Sprint("new", round, "-", j), "v")
		}
		for j := 0; j < 25; j++ {
			h.Do("HDEL", "h", fmt.Sprint("new", round, "-", j))
		}
		if cursor = reply[0].(string); cursor == "0" {
			break
		}
	}
	for i := 0; i < n; i++ {
		if !seen[fmt.Sprint("stable", i)] {
			t.Fatalf("stable%d never returned", i)
		}
	}
}
