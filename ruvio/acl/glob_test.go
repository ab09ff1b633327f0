package acl

import "testing"

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, subject string
		want             bool
	}{
		{"*", "anything", true},
		{"*", "", false}, // Redis quirk: an empty subject only matches ""
		{"", "", true},
		{"", "a", false},
		{"a*", "a", true},
		{"a**b", "ab", true},
		{"a*b", "axxb", true},
		{"a*b", "axxbc", false},
		{"*b*", "abc", true},
		{"h?llo", "hello", true},
		{"h?llo", "hllo", false},
		{"h[ae]llo", "hallo", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-b]llo", "hbllo", true},
		{"h[b-a]llo", "hallo", true}, // reversed range
		{"h[a-b]llo", "hcllo", false},
		{`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false},
		{`h[\]]llo`, "h]llo", true},
		{`h[\^]llo`, "h^llo", true},
		{`a\`, `a\`, true},   // trailing backslash is literal
		{"[]a", "a", false},  // empty class matches nothing
		{"[^]a", "xa", true}, // negated empty class matches anything
		{"a[bc", "ab", true}, // unterminated class runs to the end
		{"a[bc", "ad", false},
		{"[a-]", "_", true}, // "a-]" is the range ']'..'a', and unterminated
		{"[a-]", "b", false},
		{"user:*:name", "user:42:name", true},
		{"*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, c := range cases {
		if got := GlobMatch(c.pattern, []byte(c.subject)); got != c.want {
			t.Errorf("GlobMatch(%q, %q) = %v, want %v", c.pattern, c.subject, got, c.want)
		}
		if len(c.subject) > 20 {
			continue // the naive reference is exponential on these
		}
		if got := refMatch(c.pattern, c.subject); got != c.want {
			t.Errorf("reference(%q, %q) = %v, want %v", c.pattern, c.subject, got, c.want)
		}
	}
}

// refMatch is a deliberately naive backtracking matcher with the same
// semantics, used to cross-check GlobMatch's iterative algorithm.
func refMatch(p, s string) bool {
	if s == "" {
		return p == ""
	}
	var rec func(p, s string) bool
	rec = func(p, s string) bool {
		if p == "" {
			return s == ""
		}
		if p[0] == '*' {
			for i := 0; i <= len(s); i++ {
				if rec(p[1:], s[i:]) {
					return true
				}
			}
			return false
		}
		if s == "" {
			return false
		}
		next, ok := refToken(p, s[0])
		return ok && rec(p[next:], s[1:])
	}
	return rec(p, s)
}

func refToken(p string, c byte) (int, bool) {
	switch p[0] {
	case '?':
		return 1, true
	case '\\':
		if len(p) > 1 {
			return 2, p[1] == c
		}
		return 1, c == '\\'
	case '[':
		i, neg, match := 1, false, false
		if i < len(p) && p[i] == '^' {
			neg = true
			i++
		}
		for i < len(p) {
			if p[i] == '\\' && i+1 < len(p) {
				match = match || p[i+1] == c
				i += 2
			} else if p[i] == ']' {
				return i + 1, match != neg
			} else if i+2 < len(p) && p[i+1] == '-' {
				lo, hi := min(p[i], p[i+2]), max(p[i], p[i+2])
				match = match || (c >= lo && c <= hi)
				i += 3
			} else {
				match = match || p[i] == c
				i++
			}
		}
		return i, match != neg
	default:
		return 1, p[0] == c
	}
}
