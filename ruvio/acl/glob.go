package acl

// GlobMatch reports whether subject matches pattern using Redis's glob
// rules (as in KEYS, PSUBSCRIBE and ACL key patterns), case-sensitively:
//
//   - any sequence of bytes
//     ?      any single byte
//     [abc]  one byte of the set; [^abc] one byte not in it; [a-z] a range
//     (reversed ranges such as [z-a] are accepted); \ escapes inside
//     \x     the byte x literally
//
// A '[' that is never closed extends to the end of the pattern, and a
// trailing lone backslash matches a backslash, as in Redis. Also as in
// Redis, an empty subject matches only an empty pattern, so "*" does not
// match "" (Redis's matcher stops before looking at the pattern).
//
// Matching runs in O(len(pattern)*len(subject)) time with no recursion, so
// hostile patterns cannot blow the stack or take exponential time.
func GlobMatch(pattern string, subject []byte) bool {
	if len(subject) == 0 {
		return len(pattern) == 0
	}
	p, s := 0, 0
	// Position just after the last '*' seen, and the subject position it
	// is currently assumed to have consumed up to; -1 while there is none.
	starP, starS := -1, 0
	for s < len(subject) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				// A run of stars behaves like one.
				for p < len(pattern) && pattern[p] == '*' {
					p++
				}
				starP, starS = p, s
				continue
			}
			if next, ok := matchToken(pattern, p, subject[s]); ok {
				p, s = next, s+1
				continue
			}
		}
		// Mismatch: let the last star swallow one more byte and retry.
		// Every token other than '*' consumes exactly one byte, so trying
		// only the most recent star is enough for a correct answer.
		if starP < 0 {
			return false
		}
		starS++
		p, s = starP, starS
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchToken matches the single non-star token starting at pattern[p]
// against byte c, returning the index just past the token.
func matchToken(pattern string, p int, c byte) (int, bool) {
	switch pattern[p] {
	case '?':
		return p + 1, true
	case '\\':
		if p+1 < len(pattern) {
			return p + 2, pattern[p+1] == c
		}
		return p + 1, c == '\\'
	case '[':
		return matchClass(pattern, p+1, c)
	default:
		return p + 1, pattern[p] == c
	}
}

// matchClass matches c against the bracket expression whose body starts at
// pattern[p] (just after the '['), returning the index past the closing ']'
// or len(pattern) when the class is unterminated.
func matchClass(pattern string, p int, c byte) (int, bool) {
	negate := p < len(pattern) && pattern[p] == '^'
	if negate {
		p++
	}
	match := false
	for p < len(pattern) {
		switch {
		case pattern[p] == '\\' && p+1 < len(pattern):
			if pattern[p+1] == c {
				match = true
			}
			p += 2
		case pattern[p] == ']':
			return p + 1, match != negate
		case p+2 < len(pattern) && pattern[p+1] == '-':
			// Redis takes "x-y" as a range whenever two more bytes follow,
			// even when the second one is ']'.
			lo, hi := pattern[p], pattern[p+2]
			if lo > hi {
				lo, hi = hi, lo
			}
			if c >= lo && c <= hi {
				match = true
			}
			p += 3
		default:
			if pattern[p] == c {
				match = true
			}
			p++
		}
	}
	return p, match != negate
}
