// Package glob matches Redis-style glob patterns, the one matcher behind
// KEYS, SCAN MATCH, PSUBSCRIBE, PUBSUB CHANNELS, the SCAN-family MATCH of
// the data commands, ACL key and channel patterns and CONFIG GET.
//
// The rules are those of Redis 7's stringmatchlen, byte by byte:
//
//   - "*" matches any run of bytes, including none;
//   - "?" matches any one byte;
//   - "[abc]" matches one byte of the set, "[^abc]" one byte not in it;
//   - "[a-z]" matches a byte in the range, either way round ("[z-a]" too);
//   - "\x" matches the byte x itself, inside brackets as well.
//
// Malformed patterns are read the way Redis reads them, never rejected: an
// unclosed "[abc" is a class running to the end of the pattern ("[" alone
// matches nothing, "[^" any byte), "[]" is an empty class, a trailing "\"
// matches a backslash, and in "[a-]" the "]" ends the range ']'..'a',
// leaving the class unclosed.
//
// Where the matchers this package replaced disagreed, Redis wins:
//
//   - An empty subject matches only the empty pattern: "*" does not match
//     "" (stringmatchlen's loop never starts on an empty string). Callers
//     that mean "everything" by "*", as KEYS and SCAN do in Redis, test
//     for that pattern before matching.
//   - With case folding (MatchFold), an escaped byte inside brackets is
//     still compared exactly: "[\M]" does not match "m".
//   - A pattern that would nest more than MaxStars stars deep never
//     matches, which is where Redis's recursion gives up.
//
// One difference is kept on purpose: bytes compare as unsigned, so a range
// such as "[a-\xff]" means what it says. Redis compares C chars, which are
// signed on x86, where that range would hold the bytes 0x80-0xff and 0-'a'.
//
// Matching does not recurse: it backtracks only to the latest star, so it
// takes at most len(pattern)×len(subject) steps, and a hostile pattern such
// as "*a*a*a*a*a*b" against a long subject cannot make it exponential.
package glob

// Text is a pattern or a subject: a string or a byte slice.
type Text interface{ ~string | ~[]byte }

// MaxStars is how many stars deep Redis's matcher recurses before giving
// up with "no match". Each run of stars followed by more pattern is one
// level, so a pattern that can only match by getting past more than
// MaxStars of them matches nothing here either.
const MaxStars = 1000

// Match reports whether s matches pattern.
func Match(pattern, s []byte) bool { return match(pattern, s, false) }

// MatchString is Match for strings.
func MatchString(pattern, s string) bool { return match(pattern, s, false) }

// Matches is Match for any mix of string and byte-slice pattern and
// subject, so callers need not convert (and copy) either.
func Matches[P, S Text](pattern P, s S) bool { return match(pattern, s, false) }

// MatchFold is Matches ignoring ASCII case, as CONFIG GET matches
// parameter names (Redis's nocase, C's tolower in the "C" locale).
func MatchFold[P, S Text](pattern P, s S) bool { return match(pattern, s, true) }

func match[P, S Text](p P, s S, fold bool) bool {
	if len(s) == 0 {
		return len(p) == 0
	}
	pi, si := 0, 0
	// After a star, resume is the pattern position following it and mark
	// the position in s where the rest of the pattern is being tried; when
	// the rest fails, the star swallows one more byte and the rest is tried
	// again. Going back only to the latest star is enough because every
	// other token matches exactly one byte: an earlier star taking more
	// could only shift where the latest one starts, which it can already
	// do itself. (Redis prunes its recursion the same way.)
	resume, mark := -1, 0
	stars := 0
	for si < len(s) {
		if pi < len(p) && p[pi] == '*' {
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			if pi == len(p) {
				return true // a trailing star takes whatever is left
			}
			// Each star run is met once, left to right: backtracking never
			// returns before the latest one.
			if stars++; stars > MaxStars {
				return false
			}
			resume, mark = pi, si
			continue
		}
		if pi < len(p) {
			if next, ok := matchToken(p, pi, s[si], fold); ok {
				pi, si = next, si+1
				continue
			}
		}
		if resume < 0 {
			return false
		}
		mark++
		pi, si = resume, mark
	}
	// s is used up; only stars, which may match nothing, can be left.
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchToken matches the one-byte token at p[pi] (anything but a star)
// against c. It returns where the next token starts and whether c matched.
func matchToken[P Text](p P, pi int, c byte, fold bool) (next int, ok bool) {
	switch p[pi] {
	case '?':
		return pi + 1, true
	case '\\':
		if pi+1 < len(p) {
			return pi + 2, same(p[pi+1], c, fold)
		}
		return pi + 1, c == '\\'
	case '[':
		return matchClass(p, pi+1, c, fold)
	default:
		return pi + 1, same(p[pi], c, fold)
	}
}

// matchClass matches c against the bracket class whose body starts at
// p[i], just after the "[", and returns the position past its "]" (the end
// of the pattern when it is unclosed).
func matchClass[P Text](p P, i int, c byte, fold bool) (next int, ok bool) {
	negate := i < len(p) && p[i] == '^'
	if negate {
		i++
	}
	found := false
	for {
		switch {
		case i == len(p):
			return i, found != negate
		case p[i] == '\\' && i+1 < len(p):
			// Exact even when folding, as in Redis.
			found = found || p[i+1] == c
			i += 2
		case p[i] == ']':
			return i + 1, found != negate
		case i+2 < len(p) && p[i+1] == '-':
			// Redis takes "x-y" as a range whenever two more bytes follow,
			// even when the second one is "]". It orders the ends before
			// folding them, so "[Z-a]" folds to the empty range z..a.
			lo, hi, x := p[i], p[i+2], c
			if lo > hi {
				lo, hi = hi, lo
			}
			if fold {
				lo, hi, x = lower(lo), lower(hi), lower(x)
			}
			found = found || (x >= lo && x <= hi)
			i += 3
		default:
			found = found || same(p[i], c, fold)
			i++
		}
	}
}

func same(a, b byte, fold bool) bool {
	if fold {
		return lower(a) == lower(b)
	}
	return a == b
}

// lower folds ASCII letters only, like C's tolower in the "C" locale that
// Redis runs in.
func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
