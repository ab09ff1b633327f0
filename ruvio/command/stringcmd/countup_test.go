package stringcmd_test

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
)

// countUpAgrees checks the counter's fast path against parsing, adding
// one and formatting: where it answers, it answers the same digits, and
// it answers for every non-negative value of up to 18 digits written as
// Redis writes it.
func countUpAgrees(t interface{ Fatalf(string, ...any) }, val string) {
	got, ok := stringcmd.CountUp(nil, []byte(val))
	n, isInt := command.ParseInt([]byte(val))
	canonical := isInt && n >= 0 && strconv.FormatInt(n, 10) == val && len(val) <= 18
	if ok != canonical {
		t.Fatalf("countUp(%q) answered %v; the value is a counter it should take: %v", val, ok, canonical)
	}
	if ok && string(got) != strconv.FormatInt(n+1, 10) {
		t.Fatalf("countUp(%q) = %q, want %d", val, got, n+1)
	}
}

func TestCountUp(t *testing.T) {
	for _, val := range []string{
		"0", "1", "9", "10", "19", "99", "100", "199", "999999999999999999", "123456789012345678",
		"", "-1", "+1", "01", "00", "1a", " 1", "1 ", "9223372036854775806", "1234567890123456789", "1.0",
	} {
		countUpAgrees(t, val)
	}
	// What is already in dst stays in front.
	if got, _ := stringcmd.CountUp([]byte("x"), []byte("99")); string(got) != "x100" {
		t.Fatalf("countUp after a prefix: %q", got)
	}
}

func TestCountUpProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var val string
		switch rapid.IntRange(0, 2).Draw(rt, "kind") {
		case 0:
			val = strconv.FormatInt(rapid.Int64Range(0, 999999999999999999).Draw(rt, "n"), 10)
		case 1:
			val = strconv.FormatInt(rapid.Int64().Draw(rt, "any"), 10)
		default:
			val = rapid.StringMatching(`[-+0-9 a9]{0,20}`).Draw(rt, "text")
		}
		countUpAgrees(rt, val)
	})
}
