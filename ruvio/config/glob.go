package config

// Glob reports whether s matches pattern under Redis's glob rules, the ones
// KEYS, SCAN MATCH and CONFIG GET use. Matching is byte by byte, not by
// rune:
//
//   - "*" matches any run of bytes, including none;
//   - "?" matches any one byte;
//   - "[abc]" matches one of the bytes listed, "[^abc]" one byte not listed;
//   - "[a-z]" matches a byte in the range, either way round ("[z-a]" too);
//   - "\x" matches the byte x itself, also inside brackets.
//
// Malformed patterns are read the way Redis reads them rather than
// rejected: an unclosed "[abc" is a class running to the end of the
// pattern, a trailing "\" matches a backslash, and in "[a-]" the "]" is the
// end of a range, leaving the class unclosed.
//
// One deliberate difference: Redis 7's stringmatchlen never matches the
// empty string, not even against "*"; here "*" matches "" as a glob should.
//
// The matcher backtracks only to the latest "*", so it takes at most
// len(pattern)*len(s) steps and cannot be made to recurse deeply.
func Glob(pattern, s string) bool {
	return globMatch(pattern, s, false)
}

// globMatch is Glob, optionally ignoring ASCII case (for CONFIG GET).
func globMatch(p, s string, fold bool) bool {
	pi, si := 0, 0
	// After a "*", resume is the pattern position following it and mark the
	// position in s where the rest of the pattern is being tried. When the
	// rest fails, the "*" swallows one more byte and the rest is tried again.
	// Going back only to the latest "*" is enough because every other token
	// matches exactly one byte: an earlier "*" taking more could only shift
	// where the latest one starts, which it can already do itself.
	resume, mark := -1, 0
	for si < len(s) {
		if pi < len(p) && p[pi] == '*' {
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			if pi == len(p) {
				return true // a trailing "*" takes whatever is left
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

// matchToken matches the single-byte token at p[pi] (anything but "*")
// against c. It returns where the next token starts and whether c matched.
func matchToken(p string, pi int, c byte, fold bool) (next int, ok bool) {
	switch p[pi] {
	case '?':
		return pi + 1, true
	case '\\':
		if pi+1 < len(p) {
			return pi + 2, sameByte(p[pi+1], c, fold)
		}
		return pi + 1, c == '\\'
	case '[':
		return matchClass(p, pi+1, c, fold)
	default:
		return pi + 1, sameByte(p[pi], c, fold)
	}
}

// matchClass matches c against the bracket class whose body starts at
// p[i], just after the "[".
func matchClass(p string, i int, c byte, fold bool) (next int, ok bool) {
	negate := i < len(p) && p[i] == '^'
	if negate {
		i++
	}
	found := false
	for {
		switch {
		case i == len(p):
			// Unclosed: the class is everything up to the end.
			return i, found != negate
		case p[i] == '\\' && i+1 < len(p):
			found = found || sameByte(p[i+1], c, fold)
			i += 2
		case p[i] == ']':
			return i + 1, found != negate
		case i+2 < len(p) && p[i+1] == '-':
			lo, hi := p[i], p[i+2]
			if lo > hi {
				lo, hi = hi, lo
			}
			x := c
			if fold {
				lo, hi, x = lower(lo), lower(hi), lower(x)
			}
			found = found || (x >= lo && x <= hi)
			i += 3
		default:
			found = found || sameByte(p[i], c, fold)
			i++
		}
	}
}

func sameByte(a, b byte, fold bool) bool {
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
