package glob

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// refMatch is an independent reading of the rules in the package comment:
// it first turns the pattern into tokens, each a star or a set of bytes,
// then matches by plain recursion. Exponential, so only for short inputs,
// where the star limit never comes into play.
func refMatch(p, s string, fold bool) bool {
	if s == "" {
		return p == ""
	}
	return refTokens(refCompile(p, fold), s)
}

type refToken struct {
	star bool
	set  [256]bool
}

func refCompile(p string, fold bool) []refToken {
	var toks []refToken
	// literal adds the bytes that equal c, folded or not.
	literal := func(tok *refToken, c byte) {
		for b := range 256 {
			if byte(b) == c || (fold && lower(byte(b)) == lower(c)) {
				tok.set[b] = true
			}
		}
	}
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
			literal(&tok, p[i+1])
			i += 2
		case c == '[':
			i = refClass(p, i+1, fold, &tok, literal)
		default:
			literal(&tok, c)
			i++
		}
		toks = append(toks, tok)
	}
	return toks
}

// refClass fills tok from the class body at p[i:] and returns where the
// next token starts.
func refClass(p string, i int, fold bool, tok *refToken, literal func(*refToken, byte)) int {
	negate := i < len(p) && p[i] == '^'
	if negate {
		i++
	}
	defer func() {
		if negate {
			for b := range tok.set {
				tok.set[b] = !tok.set[b]
			}
		}
	}()
	for i < len(p) {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			tok.set[p[i+1]] = true // exact, folding or not
			i += 2
		case p[i] == ']':
			return i + 1
		case len(p)-i >= 3 && p[i+1] == '-':
			lo, hi := min(p[i], p[i+2]), max(p[i], p[i+2])
			if fold {
				lo, hi = lower(lo), lower(hi)
			}
			for b := range 256 {
				x := byte(b)
				if fold {
					x = lower(x)
				}
				tok.set[b] = tok.set[b] || (x >= lo && x <= hi)
			}
			i += 3
		default:
			literal(tok, p[i])
			i++
		}
	}
	return i
}

func refTokens(toks []refToken, s string) bool {
	if len(toks) == 0 {
		return s == ""
	}
	if toks[0].star {
		return refTokens(toks[1:], s) || (s != "" && refTokens(toks, s[1:]))
	}
	return s != "" && toks[0].set[s[0]] && refTokens(toks[1:], s[1:])
}

// Patterns built from the special characters agree with the reference,
// with and without case folding, and never panic.
func TestMatchAgreesWithReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pattern := rapid.StringMatching(`[abAB*?\[\]^\\-]{0,8}`).Draw(t, "pattern")
		subject := rapid.StringMatching(`[abAB\]^\\-]{0,8}`).Draw(t, "subject")
		if got, want := MatchString(pattern, subject), refMatch(pattern, subject, false); got != want {
			t.Fatalf("MatchString(%q, %q) = %v, reference %v", pattern, subject, got, want)
		}
		if got, want := MatchFold(pattern, subject), refMatch(pattern, subject, true); got != want {
			t.Fatalf("MatchFold(%q, %q) = %v, reference %v", pattern, subject, got, want)
		}
	})
}

// A subject matches itself (as a pattern without specials), "*" and
// itself followed by "*"; arbitrary patterns never panic.
func TestMatchLiteralAndStar(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[a-z]{1,10}`).Draw(t, "s")
		if !MatchString(s, s) || !MatchString("*", s) || !MatchString(s+"*", s+"tail") {
			t.Fatalf("literal/star property broken for %q", s)
		}
		p := rapid.String().Draw(t, "p")
		MatchString(p, s)
		MatchFold(p, s)
	})
}

// Escaping every byte of s gives a pattern that matches s and nothing
// longer.
func TestMatchEscapedIsLiteral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOfN(rapid.Byte(), 1, 12).Draw(t, "s"))
		var p strings.Builder
		for i := 0; i < len(s); i++ {
			p.WriteByte('\\')
			p.WriteByte(s[i])
		}
		if !MatchString(p.String(), s) {
			t.Fatalf("escaped %q does not match itself", s)
		}
		if MatchString(p.String(), s+"x") {
			t.Fatalf("escaped %q matches a longer string", s)
		}
	})
}

func FuzzMatch(f *testing.F) {
	for _, seed := range [][2]string{{"*", ""}, {`h[a-]*\`, "h]x"}, {"[^", "a"}, {`a*?[b-a]\`, `a\`}, {`[\M]`, "m"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		got, gotFold := MatchString(p, s), MatchFold(p, s)
		if len(p) > 10 || len(s) > 10 {
			return
		}
		if want := refMatch(p, s, false); got != want {
			t.Errorf("MatchString(%q, %q) = %v, reference says %v", p, s, got, want)
		}
		if want := refMatch(p, s, true); gotFold != want {
			t.Errorf("MatchFold(%q, %q) = %v, reference says %v", p, s, gotFold, want)
		}
	})
}
