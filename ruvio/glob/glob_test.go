package glob

import (
	"strings"
	"testing"
	"time"
)

// matchCases gathers the tables of the three matchers this package
// replaced (its own, ACL's and CONFIG's); where they disagreed, the want
// here is Redis 7's stringmatchlen.
var matchCases = []struct {
	pattern, s string
	want       bool
}{
	{"", "", true},
	{"", "a", false},
	// Redis: an empty subject matches only the empty pattern. The old
	// KEYS/SCAN and CONFIG matchers said true for these two.
	{"*", "", false},
	{"**", "", false},
	{"a*", "", false},
	{"*b", "", false},
	{"*", "anything at all", true},
	{"foo", "foo", true},
	{"foo", "fooo", false},
	{"*o", "foo", true},
	{"a*", "a", true},
	{"a**", "a", true},
	{"a**b", "ab", true},
	{"a*b", "axxb", true},
	{"a*b", "axxbc", false},
	{"*b*", "abc", true},
	{"a*b*c", "abc", true},
	{"a*b*c", "acb", false},
	{"*a*b*c*", "xaxbxcx", true},
	{"*a*b*c*", "xaxcxbx", false},
	{"*.txt", "notes.txt", true},
	{"*.txt", "notes.txt.bak", false},
	{"user:*:name", "user:42:name", true},
	{"user:*:name", "user:42:age", false},
	{"h?llo", "hello", true},
	{"h?llo", "hallo", true},
	{"h?llo", "hllo", false},
	{"h*llo", "hllo", true},
	{"h*llo", "heeeello", true},
	{"h*llo", "hellow", false},
	{"?", "é", false}, // bytes, not runes
	{"??", "é", true},
	{"A", "a", false},
	// Classes.
	{"h[ae]llo", "hello", true},
	{"h[ae]llo", "hallo", true},
	{"h[ae]llo", "hillo", false},
	{"h[^e]llo", "hallo", true},
	{"h[^e]llo", "hello", false},
	{"h[a-b]llo", "hbllo", true},
	{"h[a-b]llo", "hcllo", false},
	{"h[b-a]llo", "hallo", true}, // a reversed range is swapped
	{"[z-a]", "m", true},
	{"[a-cx-z]", "y", true},
	{"[a-cx-z]", "d", false},
	{"[^a-c]", "d", true},
	{"[^a-c]", "b", false},
	{"[A-Z]", "a", false},
	// Escapes, in and out of classes.
	{`\*`, "*", true},
	{`\*`, "a", false},
	{`\?`, "?", true},
	{`\?`, "x", false},
	{`\[a]`, "[a]", true},
	{`\a`, "a", true},
	{`h\*llo`, "h*llo", true},
	{`h\*llo`, "hello", false},
	{`foo\*bar`, "foo*bar", true},
	{`foo\*bar`, "fooxbar", false},
	{`a\`, `a\`, true}, // a trailing backslash is itself
	{`[\]]`, "]", true},
	{`[\]]`, `\`, false},
	{`h[\]]llo`, "h]llo", true},
	{`[\-]`, "-", true},
	{`[a\-z]`, "-", true},
	{`[a\-z]`, "b", false},
	{`[\^]`, "^", true},
	{`h[\^]llo`, "h^llo", true},
	{`[\]`, "]", true}, // the escape eats the "]": unclosed
	{`[\`, `\`, true},  // a lone backslash in a class is itself
	// Malformed classes, read as Redis reads them.
	{"[abc", "b", true}, // unclosed: the class runs to the end
	{"[abc", "bx", false},
	{"a[bc", "ab", true},
	{"a[bc", "ad", false},
	{"[", "[", false}, // an empty unclosed class matches nothing
	{"[", "a", false},
	{"[^", "x", true}, // ... and negated, anything
	{"[]a", "]a", false},
	{"[]a", "a", false}, // an empty class matches nothing
	{"[^]a", "xa", true},
	{"[a-]", "]", true}, // "]" ends the range ]..a, not the class
	{"[a-]", "_", true},
	{"[a-]", "-", false},
	{"[a-]", "b", false},
	{"[a-]x", "x", true},
	{"[a-]x", "ax", false},
	// Backtracking.
	{"*a*a*a*a*a*a*b", strings.Repeat("a", 40), false},
	{"*a*a*a*a*a*a*b", strings.Repeat("a", 40) + "b", true},
}

func TestMatch(t *testing.T) {
	for _, c := range matchCases {
		if got := MatchString(c.pattern, c.s); got != c.want {
			t.Errorf("MatchString(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
		if got := Match([]byte(c.pattern), []byte(c.s)); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
		if got := Matches(c.pattern, []byte(c.s)); got != c.want {
			t.Errorf("Matches(%q, []byte(%q)) = %v, want %v", c.pattern, c.s, got, c.want)
		}
		if len(c.s) > 20 {
			continue // the reference is exponential on these
		}
		if got := refMatch(c.pattern, c.s, false); got != c.want {
			t.Errorf("reference(%q, %q) = %v, want %v (table or reference is wrong)", c.pattern, c.s, got, c.want)
		}
	}
}

func TestMatchFold(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"MAXMEMORY", "maxmemory", true},
		{"Max*", "maxclients", true},
		{"max*", "MAXCLIENTS", true},
		{"[A-Z]", "m", true},
		{"[a-z]", "M", true},
		{"[M]", "m", true},
		{`\M`, "m", true},
		{"[^M]", "m", false},
		{"[0-9]", "m", false},
		{"*", "", false},
		// Redis compares an escaped byte inside a class exactly.
		{`[\M]`, "m", false},
		{`[\M]`, "M", true},
		// Ends are ordered before they are folded: z..a is empty.
		{"[Z-a]", "m", false},
	}
	for _, c := range cases {
		if got := MatchFold(c.pattern, c.s); got != c.want {
			t.Errorf("MatchFold(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
		if got := refMatch(c.pattern, c.s, true); got != c.want {
			t.Errorf("reference fold(%q, %q) = %v, want %v (table or reference is wrong)", c.pattern, c.s, got, c.want)
		}
	}
}

// A pattern of pathological shape must still finish quickly; a naive
// recursive matcher takes exponential time on it.
func TestMatchNoBlowUp(t *testing.T) {
	s := strings.Repeat("a", 5000)
	start := time.Now()
	for _, p := range []string{strings.Repeat("a*", 200) + "b", strings.Repeat("*a", 30) + "*b"} {
		if MatchString(p, s) {
			t.Errorf("%.20q... matched", p)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// Past MaxStars nested stars Redis answers "no match"; a trailing star run
// does not nest.
func TestMatchStarLimit(t *testing.T) {
	s := strings.Repeat("a", MaxStars+1)
	if !MatchString(strings.Repeat("*a", MaxStars), s) {
		t.Error("MaxStars stars did not match")
	}
	if MatchString(strings.Repeat("*a", MaxStars+1), s) {
		t.Error("MaxStars+1 nested stars matched")
	}
	if !MatchString(strings.Repeat("a*", MaxStars+1), s) {
		t.Error("a trailing star counted as nesting")
	}
}
