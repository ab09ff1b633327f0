package acl

import (
	"errors"
	"strings"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// Reasons ACL SETUSER gives for rejecting a modifier, in Redis 7's words.
// Redis uses one text for unknown commands and unknown categories alike.
const (
	ReasonUnknown      = "Unknown command or category name in ACL"
	ReasonSyntax       = "Syntax error"
	ReasonKeysAfterAll = "Adding a pattern after the * pattern (or the " +
		"'allkeys' flag) is not valid and does not have any effect. " +
		"Try 'resetkeys' to start with an empty list of patterns"
	ReasonChannelsAfterAll = "Adding a pattern after the * pattern (or the " +
		"'allchannels' flag) is not valid and does not have any effect. " +
		"Try 'resetchannels' to start with an empty list of channels"
	ReasonNoSuchPassword = "The password you are trying to remove from the " +
		"user does not exist"
	ReasonBadHash = "The password hash must be exactly 64 characters and " +
		"contain only lowercase hexadecimal characters"
)

// RuleError reports an ACL SETUSER modifier that was rejected. Its Error
// text is Redis's reply, e.g. "ERR Error in ACL SETUSER modifier
// '+nosuchcmd': Unknown command or category name in ACL".
type RuleError struct {
	Rule   string // the modifier as given
	Reason string // one of the Reason constants
}

// Error returns the RESP error text, with CR and LF replaced by spaces as
// Redis does, since a rule may carry them and an error line may not.
func (e *RuleError) Error() string {
	rule := strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, e.Rule)
	return "ERR Error in ACL SETUSER modifier '" + rule + "': " + e.Reason
}

// SplitRules splits a rule string such as an ACL file line or a config
// value into single rules on runs of whitespace. Passwords containing
// spaces cannot be written this way; pass such rules to SetUser one each.
func SplitRules(rules string) []string {
	return strings.Fields(rules)
}

// ParseRules validates a space-separated rule string without applying it,
// for the config package. Without a command table it cannot check that
// command names exist; everything else (keywords, categories, hashes,
// patterns) is checked as ACL SETUSER would. Use ValidateRules to also
// check command names.
func ParseRules(rules string) error {
	return ValidateRules(nil, SplitRules(rules)...)
}

// ValidateRules checks rules, one rule per element, as ACL SETUSER would
// for a new user, returning the first *RuleError, or Redis's error for a
// selector whose parenthesis is left open. Command names are checked
// against cat unless cat is nil.
func ValidateRules(cat Catalog, rules ...string) error {
	var idx *index
	if cat != nil {
		idx = buildIndex(cat)
	}
	merged, err := mergeSelectors(rules)
	if err != nil {
		return err
	}
	u := newUser("")
	for _, r := range merged {
		if err := u.apply(r, idx); err != nil {
			return err
		}
	}
	return nil
}

// apply applies one modifier to u. idx resolves command names; with a nil
// idx command names are only checked for shape. Compiled command bits are
// not touched: call compile once all modifiers applied. Modifiers that are
// not the user's own (flags, passwords, selectors) change the root
// permissions, as in Redis.
func (u *User) apply(op string, idx *index) error {
	fail := func(reason string) error { return &RuleError{Rule: op, Reason: reason} }
	switch strings.ToLower(op) {
	case "":
		// Redis takes an empty modifier as no modifier at all.
		return nil
	case "on":
		u.enabled = true
		return nil
	case "off":
		u.enabled = false
		return nil
	case "nopass":
		// Redis drops stored passwords too, so that a later resetpass
		// cannot resurrect them.
		u.nopass = true
		u.passwords = nil
		return nil
	case "resetpass":
		u.nopass = false
		u.passwords = nil
		return nil
	case "reset":
		*u = User{name: u.name, slot: u.slot, sanitize: sanitizePayload}
		return nil
	case "sanitize-payload":
		u.sanitize = sanitizePayload
		return nil
	case "skip-sanitize-payload":
		u.sanitize = skipSanitizePayload
		return nil
	case "clearselectors":
		u.selectors = nil
		return nil
	}
	switch op[0] {
	case '>':
		u.addPassword(HashPassword(op[1:]))
		return nil
	case '<':
		if !u.removePassword(HashPassword(op[1:])) {
			return fail(ReasonNoSuchPassword)
		}
		return nil
	case '#':
		if !validHash(op[1:]) {
			return fail(ReasonBadHash)
		}
		u.addPassword(op[1:])
		return nil
	case '!':
		if !validHash(op[1:]) {
			return fail(ReasonBadHash)
		}
		if !u.removePassword(op[1:]) {
			return fail(ReasonNoSuchPassword)
		}
		return nil
	case '(':
		if op[len(op)-1] == ')' {
			s := &perms{}
			for _, sop := range splitSelectorArgs(op[1 : len(op)-1]) {
				if reason := s.apply(sop, idx); reason != "" {
					return fail(reason)
				}
			}
			u.selectors = append(u.selectors, s)
			return nil
		}
	}
	if reason := u.perms.apply(op, idx); reason != "" {
		return fail(reason)
	}
	return nil
}

// apply applies one selector modifier (keys, channels, commands) to p,
// returning the reason it was rejected, or "". Inside a selector's
// parentheses only these are accepted; anything else is a syntax error.
func (p *perms) apply(op string, idx *index) string {
	switch strings.ToLower(op) {
	case "allkeys", "~*":
		p.allKeys = true
		p.keys = nil
		return ""
	case "resetkeys":
		p.allKeys = false
		p.keys = nil
		return ""
	case "allchannels", "&*":
		p.allChannels = true
		p.channels = nil
		return ""
	case "resetchannels":
		p.allChannels = false
		p.channels = nil
		return ""
	case "allcommands", "+@all":
		p.cmdBase = true
		p.cmdRules = nil
		return ""
	case "nocommands", "-@all":
		p.cmdBase = false
		p.cmdRules = nil
		return ""
	}
	if op == "" {
		return ReasonSyntax
	}
	switch op[0] {
	case '~', '%':
		return p.addKeyPattern(op)
	case '&':
		if p.allChannels {
			return ReasonChannelsAfterAll
		}
		if hasSpace(op[1:]) {
			return ReasonSyntax
		}
		if !containsString(p.channels, op[1:]) {
			p.channels = append(p.channels, op[1:])
		}
		return ""
	case '+', '-':
		return p.addCommandRule(op, idx)
	}
	return ReasonSyntax
}

// mergeSelectors joins a selector written across several arguments, as
// "(~key*" "+get)" is when a rule string is split on spaces, into one
// modifier "(~key* +get)", the way Redis reads ACL SETUSER's arguments
// and its configuration. An argument that opens a parenthesis while one
// is open starts the selector over, as in Redis. A parenthesis left open
// gives Redis's error naming the argument that opened it.
func mergeSelectors(rules []string) ([]string, error) {
	out := rules[:0:0]
	open := -1
	var sel string
	for i, op := range rules {
		if strings.HasPrefix(op, "(") && !strings.HasSuffix(op, ")") {
			open, sel = i, op
			continue
		}
		if open >= 0 {
			sel += " " + op
			if strings.HasSuffix(op, ")") {
				open = -1
				out = append(out, sel)
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, errors.New("ERR Unmatched parenthesis in acl selector starting at '" + rules[open] + "'.")
	}
	return out, nil
}

// splitSelectorArgs splits the text between a selector's parentheses into
// modifiers the way Redis does (its sdssplitargs, which resp.SplitArgs
// follows): on whitespace, with "double quotes" taking \n, \r, \t, \b,
// \a, \xHH and other backslash escapes, and 'single quotes' taking \'.
// Unbalanced or misplaced quotes make the whole text no modifiers at all,
// which Redis then takes as an empty selector.
func splitSelectorArgs(s string) []string {
	parts, err := resp.SplitArgs([]byte(s))
	if err != nil {
		return nil
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

func (u *User) addPassword(h string) {
	u.nopass = false
	if !containsString(u.passwords, h) {
		u.passwords = append(u.passwords, h)
	}
}

func (u *User) removePassword(h string) bool {
	for i, p := range u.passwords {
		if p == h {
			u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
			return true
		}
	}
	return false
}

// validHash reports whether h looks like what Redis accepts after '#' and
// '!': 64 lower-case hex digits.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hasSpace mirrors Redis's check that patterns contain no whitespace or NUL
// bytes, which would make ACL LIST output unparsable.
func hasSpace(s string) bool {
	return strings.ContainsAny(s, " \t\r\n\v\f\x00")
}

// addKeyPattern handles ~pattern and %<R|W>~pattern, returning a reason on
// failure.
func (p *perms) addKeyPattern(op string) string {
	if p.allKeys {
		return ReasonKeysAfterAll
	}
	perm := KeyReadWrite
	rest := op[1:]
	if op[0] == '%' {
		perm = 0
		i := 1
		for ; i < len(op) && op[i] != '~'; i++ {
			var bit KeyPerm
			switch op[i] {
			case 'R', 'r':
				bit = KeyRead
			case 'W', 'w':
				bit = KeyWrite
			default:
				return ReasonSyntax
			}
			if perm&bit != 0 {
				return ReasonSyntax // "%RR~" is rejected by Redis too
			}
			perm |= bit
		}
		if perm == 0 || i == len(op) {
			return ReasonSyntax
		}
		rest = op[i+1:]
		if rest == "" {
			return ReasonSyntax // Redis rejects "%R~" with nothing after it
		}
		if perm == KeyReadWrite && rest == "*" {
			// Same as ~*; keeping it a pattern would let later patterns
			// be added and make the rendered "~*" fail to parse back.
			p.allKeys = true
			p.keys = nil
			return ""
		}
	}
	if hasSpace(rest) {
		return ReasonSyntax
	}
	for i := range p.keys {
		if p.keys[i].pattern == rest {
			// Redis merges flags into the existing entry, keeping its
			// position.
			p.keys[i].perm |= perm
			return ""
		}
	}
	p.keys = append(p.keys, keyPattern{pattern: rest, perm: perm})
	return ""
}

// addCommandRule validates a +/- command or category rule and records it,
// returning a reason on failure. The permissions follow from the recorded
// rules in compile.
func (p *perms) addCommandRule(op string, idx *index) string {
	allow := op[0] == '+'
	name := strings.ToLower(op[1:])
	if strings.HasPrefix(name, "@") {
		if _, ok := categoryBit(name[1:]); !ok {
			return ReasonUnknown
		}
		p.recordRule(allow, name)
		return ""
	}
	bar := strings.IndexByte(name, '|')
	if bar < 0 {
		if !commandExists(idx, name) {
			return ReasonUnknown
		}
		p.recordRule(allow, name)
		return ""
	}
	cmd, sub := name[:bar], name[bar+1:]
	if !commandExists(idx, cmd) {
		return ReasonUnknown
	}
	if !allow {
		// Redis 7 resolves "-cmd|sub" as a real subcommand: denying a
		// first argument of a plain command is not supported.
		if !subcommandExists(idx, cmd, sub) {
			return ReasonUnknown
		}
		p.recordRule(false, name)
		return ""
	}
	if sub == "" {
		return ReasonSyntax
	}
	if idx != nil && idx.cmds[cmd].subs != nil && !subcommandExists(idx, cmd, sub) {
		return ReasonUnknown
	}
	p.recordRule(true, name)
	return ""
}

func commandExists(idx *index, name string) bool {
	if idx == nil {
		return name != "" && !hasSpace(name)
	}
	return idx.cmds[name] != nil
}

func subcommandExists(idx *index, cmd, sub string) bool {
	if idx == nil {
		return sub != "" && !hasSpace(sub) && !strings.Contains(sub, "|")
	}
	c := idx.cmds[cmd]
	if c == nil || c.subs == nil {
		return false
	}
	_, ok := c.subs[sub]
	return ok
}

// recordRule appends a rule the way Redis 7 retains them: an earlier rule
// for the same name, and for a whole command any earlier rule for one of
// its subcommands or first arguments, is dropped because the new rule
// overrides every bit it set. This keeps the list short and its replay
// equal to the sequence actually applied.
func (p *perms) recordRule(allow bool, name string) {
	kept := p.cmdRules[:0]
	for _, r := range p.cmdRules {
		rn := r[1:]
		if rn == name || (strings.HasPrefix(rn, name) && rn[len(name)] == '|') {
			continue
		}
		kept = append(kept, r)
	}
	sign := "-"
	if allow {
		sign = "+"
	}
	p.cmdRules = append(kept, sign+name)
}
