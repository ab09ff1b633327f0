package config

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true}, // Redis 7 says false here; see Glob
		{"**", "", true},
		{"*", "anything at all", true},
		{"a*", "", false},
		{"*b", "", false},
		{"a*", "a", true},
		{"a**", "a", true},
		{"h?llo", "hello", true},
		{"h?llo", "hallo", true},
		{"h?llo", "hllo", false},
		{"h*llo", "hllo", true},
		{"h*llo", "heeeello", true},
		{"h*llo", "hellow", false},
		{"h[ae]llo", "hello", true},
		{"h[ae]llo", "hallo", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-b]llo", "hbllo", true},
		{"h[a-b]llo", "hcllo", false},
		{"[z-a]", "m", true}, // a reversed range is swapped
		{"[a-cx-z]", "y", true},
		{"[a-cx-z]", "d", false},
		{"[^a-c]", "d", true},
		{"[^a-c]", "b", false},
		{"\\*", "*", true},
		{"\\*", "a", false},
		{"\\?", "?", true},
		{"\\?", "x", false},
		{"\\[a]", "[a]", true},
		{"\\a", "a", true},
		{"foo\\*bar", "foo*bar", true},
		{"foo\\*bar", "fooxbar", false},
		{"a\\", "a\\", true}, // a trailing backslash is itself
		{"[\\]]", "]", true},
		{"[\\]]", "\\", false},
		{"[\\-]", "-", true},
		{"[a\\-z]", "-", true},
		{"[a\\-z]", "b", false},
		{"[\\^]", "^", true},
		{"[abc", "b", true}, // unclosed: the class runs to the end
		{"[abc", "bx", false},
		{"[", "[", false}, // an empty unclosed class matches nothing
		{"[^", "x", true}, // ... and negated, anything
		{"[]a", "]a", false},
		{"[]a", "a", false},
		{"[a-]", "]", true}, // "]" ends the range ]..a, not the class
		{"[a-]", "-", false},
		{"[a-]x", "x", true},
		{"[a-]x", "ax", false},
		{"*a*b*c*", "xaxbxcx", true},
		{"*a*b*c*", "xaxcxbx", false},
		{"*.txt", "notes.txt", true},
		{"*.txt", "notes.txt.bak", false},
		{"user:*:name", "user:42:name", true},
		{"user:*:name", "user:42:age", false},
		{"?", "é", false}, // bytes, not runes
		{"??", "é", true},
		{"A", "a", false},
		{"[A-Z]", "a", false},
	}
	for _, tc := range tests {
		if got := Glob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
		if got := refGlob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("reference(%q, %q) = %v, want %v (test table or reference is wrong)", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestGlobFold(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"MAXMEMORY", "maxmemory", true},
		{"Max*", "maxclients", true},
		{"[A-Z]", "m", true},
		{"[M]", "m", true},
		{"\\M", "m", true},
		{"[^M]", "m", false},
		{"[0-9]", "m", false},
	}
	for _, tc := range tests {
		if got := globMatch(tc.pattern, tc.s, true); got != tc.want {
			t.Errorf("globMatch(%q, %q, fold) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

// A pattern of pathological shape must still finish quickly; a naive
// recursive matcher takes exponential time on it.
func TestGlobNoBlowUp(t *testing.T) {
	s := strings.Repeat("a", 5000)
	p := strings.Repeat("a*", 200) + "b"
	start := time.Now()
	if Glob(p, s) {
		t.Error("matched")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// Random patterns built from the special characters must never panic, and
// must agree with refGlob, a separate and much slower implementation.
func TestGlobRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const patChars = `ab*?[]^-\`
	const strChars = `ab-]^\[`
	pick := func(alphabet string, max int) string {
		b := make([]byte, r.IntN(max+1))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 50000 {
		p, s := pick(patChars, 8), pick(strChars, 8)
		if got, want := Glob(p, s), refGlob(p, s); got != want {
			t.Fatalf("Glob(%q, %q) = %v, reference says %v", p, s, got, want)
		}
	}
}

// Escaping every byte of s gives a pattern that matches s and nothing else.
func TestGlobEscapedIsLiteral(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		s := string(b)
		var p strings.Builder
		for i := 0; i < len(s); i++ {
			p.WriteByte('\\')
			p.WriteByte(s[i])
		}
		if !Glob(p.String(), s) {
			t.Fatalf("escaped %q does not match itself", s)
		}
		if Glob(p.String(), s+"x") {
			t.Fatalf("escaped %q matches a longer string", s)
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, seed := range [][2]string{{"*", ""}, {"h[a-]*\\", "h]x"}, {"[^", "a"}, {"a*?[b-a]\\", "a\\"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		got := Glob(p, s)
		if len(p) <= 10 && len(s) <= 10 {
			if want := refGlob(p, s); got != want {
				t.Errorf("Glob(%q, %q) = %v, reference says %v", p, s, got, want)
			}
		}
		_ = globMatch(p, s, true) // must not panic
	})
}

// refGlob is an independent reading of the rules in Glob's comment: it
// first turns the pattern into tokens, each "*" or a set of bytes, then
// matches by plain recursion. Exponential, so only for short inputs.
func refGlob(p, s string) bool {
	return refMatch(refCompile(p), s)
}

type refToken struct {
	star bool
	set  [256]bool
}

func refCompile(p string) []refToken {
	var toks []refToken
	for i := 0; i < len(p); {
		var tok refToken
		switch c := p[i]; {
		case c == '*':
			tok.star = true
			i++
		case c == '?':
			for b := range tok.set {
				tok.set[b] = true
			}
			i++
		case c == '\\' && i+1 < len(p):
			tok.set[p[i+1]] = true
			i += 2
		case c == '[':
			i++
			negate := i < len(p) && p[i] == '^'
			if negate {
				i++
			}
		class:
			for i < len(p) {
				switch {
				case p[i] == '\\' && i+1 < len(p):
					tok.set[p[i+1]] = true
					i += 2
				case p[i] == ']':
					i++
					break class
				case len(p)-i >= 3 && p[i+1] == '-':
					lo, hi := min(p[i], p[i+2]), max(p[i], p[i+2])
					for b := int(lo); b <= int(hi); b++ {
						tok.set[b] = true
					}
					i += 3
				default:
					tok.set[p[i]] = true
					i++
				}
			}
			if negate {
				for b := range tok.set {
					tok.set[b] = !tok.set[b]
				}
			}
		default:
			tok.set[c] = true
			i++
		}
		toks = append(toks, tok)
	}
	return toks
}

func refMatch(toks []refToken, s string) bool {
	if len(toks) == 0 {
		return s == ""
	}
	if toks[0].star {
		return refMatch(toks[1:], s) || (s != "" && refMatch(toks, s[1:]))
	}
	return s != "" && toks[0].set[s[0]] && refMatch(toks[1:], s[1:])
}
