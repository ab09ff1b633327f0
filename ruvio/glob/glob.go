// Package glob matches Redis-style glob patterns (KEYS, SCAN MATCH,
// PSUBSCRIBE, CONFIG GET, ACL key patterns): * ? [abc] [^a] [a-z] and
// backslash escapes.
package glob

// Match reports whether s matches pattern.
func Match(pattern, s []byte) bool { return match(pattern, s, 0) }

// MatchString is Match for strings.
func MatchString(pattern, s string) bool { return match([]byte(pattern), []byte(s), 0) }

// match works like Redis's stringmatchlen; depth bounds the recursion a
// pattern of many stars can cause.
func match(p, s []byte, depth int) bool {
	if depth > 1000 {
		return false
	}
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if match(p[1:], s[i:], depth+1) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			p = p[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			matched := false
			for {
				if len(p) == 0 {
					// Unterminated class: Redis treats the end as closing it.
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						matched = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi := p[0], p[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					if s[0] >= lo && s[0] <= hi {
						matched = true
					}
					p = p[2:]
				} else if p[0] == s[0] {
					matched = true
				}
				p = p[1:]
			}
			if len(p) > 0 {
				p = p[1:] // the ']'
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || p[0] != s[0] {
				return false
			}
			s = s[1:]
			p = p[1:]
		}
	}
	return len(s) == 0
}
