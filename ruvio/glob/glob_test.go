package glob

import (
	"testing"

	"pgregory.net/rapid"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "anything", true}, {"h?llo", "hello", true}, {"h?llo", "hllo", false},
		{"h*llo", "heeeello", true}, {"h[ae]llo", "hallo", true}, {"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true}, {"h[^e]llo", "hello", false}, {"h[a-b]llo", "hbllo", true},
		{"h[a-b]llo", "hcllo", false}, {"h[b-a]llo", "hallo", true}, {`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false}, {"user:*:name", "user:42:name", true}, {"a*b*c", "abc", true},
		{"a*b*c", "acb", false}, {"[", "a", false}, {`[\]]`, "]", true}, {"", "", true}, {"", "a", false},
		{"foo", "foo", true}, {"foo", "fooo", false}, {"*o", "foo", true}, {"[abc", "b", true},
	}
	for _, c := range cases {
		if got := MatchString(c.p, c.s); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
}

func TestMatchLiteralAndStarProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[a-z]{0,10}`).Draw(t, "s")
		if !MatchString(s, s) || !MatchString("*", s) || !MatchString(s+"*", s+"tail") {
			t.Fatalf("literal/star property broken for %q", s)
		}
		// Arbitrary patterns never panic.
		p := rapid.String().Draw(t, "p")
		MatchString(p, s)
	})
}
