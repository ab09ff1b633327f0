package hashcmd_test

import (
	"fmt"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestHrandfieldErrors(t *testing.T) {
	h := newHarness(t)
	h.Do("HSET", "h", "a", "1")
	cmdtest.Steps{
		{Args: []string{"HRANDFIELD", "h", "x"}, Want: cmdtest.Error("ERR value is not an integer or out of range")},
		{Args: []string{"HRANDFIELD", "h", "-9223372036854775808"}, Want: cmdtest.Error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")},
		{Args: []string{"HRANDFIELD", "h", "1", "WITHVALUE"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HRANDFIELD", "h", "1", "WITHVALUES", "x"}, Want: cmdtest.Error("ERR syntax error")},
		{Args: []string{"HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"}, Want: cmdtest.Error("ERR value is out of range")},
		{Args: []string{"HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"}, Want: cmdtest.Error("ERR value is out of range")},
		{Args: []string{"HRANDFIELD", "nokey"}, Want: nil},
		{Args: []string{"HRANDFIELD", "nokey", "3"}, Want: []any{}},
		{Args: []string{"HRANDFIELD", "nokey", "-3", "withvalues"}, Want: []any{}},
		{Args: []string{"HRANDFIELD", "h", "0"}, Want: []any{}},
		{Args: []string{"HRANDFIELD", "h"}, Want: "a"},
		{Args: []string{"HRANDFIELD", "h", "-3"}, Want: []any{"a", "a", "a"}},
		{Args: []string{"HRANDFIELD", "h", "-2", "WITHVALUES"}, Want: []any{"a", "1", "a", "1"}},
		{Args: []string{"HRANDFIELD", "h", "5", "WITHVALUES"}, Want: []any{"a", "1"}},
	}.Run(t, h)
	if len(h.Log) != 1 {
		t.Fatalf("HRANDFIELD logged effects: %q", h.Log[1:])
	}
}

func TestHrandfieldCounts(t *testing.T) {
	// Sizes on both sides of UniformLimit exercise both ways of picking.
	for _, n := range []int{5, 300, 2000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			h := newHarness(t)
			for i := 0; i < n; i++ {
				h.Do("HSET", "h", fmt.Sprint("f", i), fmt.Sprint("v", i))
			}
			for _, count := range []int{1, 3, n / 3, n - 1, n, n + 5} {
				reply := h.Do("HRANDFIELD", "h", fmt.Sprint(count), "WITHVALUES").([]any)
				if want := 2 * min(count, n); len(reply) != want {
					t.Fatalf("count %d: %d elements, want %d", count, len(reply), want)
				}
				seen := map[string]bool{}
				for i := 0; i < len(reply); i += 2 {
					f, v := reply[i].(string), reply[i+1].(string)
					if seen[f] {
						t.Fatalf("count %d: %q repeated", count, f)
					}
					seen[f] = true
					if "v"+f[1:] != v {
						t.Fatalf("field %q came with value %q", f, v)
					}
				}
			}
			for _, count := range []int{1, 7, 4 * n} {
				reply := h.Do("HRANDFIELD", "h", fmt.Sprint(-count)).([]any)
				if len(reply) != count {
					t.Fatalf("count -%d: %d elements", count, len(reply))
				}
				for _, f := range reply {
					if h.Do("HEXISTS", "h", f.(string)) != int64(1) {
						t.Fatalf("%q is not a field", f)
					}
				}
			}
			// Every field turns up eventually.
			seen := map[string]bool{}
			for i := 0; i < 200*n && len(seen) < n; i++ {
				seen[h.Do("HRANDFIELD", "h").(string)] = true
			}
			if len(seen) != n {
				t.Fatalf("only %d of %d fields ever picked", len(seen), n)
			}
		})
	}
}
