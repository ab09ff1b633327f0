package acl

import (
	"strings"
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
// for a new user, returning the first *RuleError. Command names are checked
// against cat unless cat is nil.
func ValidateRules(cat Catalog, rules ...string) error {
	var idx *index
	if cat != nil {
		idx = buildIndex(cat)
	}
	u := newUser("")
	for _, r := range rules {
		if err := u.apply(r, idx); err != nil {
			return err
		}
	}
	return nil
}

// apply applies one modifier to u. idx resolves command names; with a nil
// idx command names are only checked for shape. Compiled command bits are
// not touched: call compile once all modifiers applied.
func (u *User) apply(op string, idx *index) error {
	fail := func(reason string) error { return &RuleError{Rule: op, Reason: reason} }
	switch strings.ToLower(op) {
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
	case "allkeys", "~*":
		u.allKeys = true
		u.keys = nil
		return nil
	case "resetkeys":
		u.allKeys = false
		u.keys = nil
		return nil
	case "allchannels", "&*":
		u.allChannels = true
		u.channels = nil
		return nil
	case "resetchannels":
		u.allChannels = false
		u.channels = nil
		return nil
	case "allcommands", "+@all":
		u.cmdBase = true
		u.cmdRules = nil
		return nil
	case "nocommands", "-@all":
		u.cmdBase = false
		u.cmdRules = nil
		return nil
	case "reset":
		*u = User{name: u.name, slot: u.slot}
		return nil
	case "sanitize-payload", "skip-sanitize-payload", "clearselectors":
		// Accepted so that ACL files written by Redis load; payload
		// sanitisation and selectors are not modelled, and with no
		// selectors, clearing them is already done.
		return nil
	}
	if op == "" {
		return fail(ReasonSyntax)
	}
	switch op[0] {
	case '>':
		u.addPassword(HashPassword(op[1:]))
	case '<':
		if !u.removePassword(HashPassword(op[1:])) {
			return fail(ReasonNoSuchPassword)
		}
	case '#':
		if !validHash(op[1:]) {
			return fail(ReasonBadHash)
		}
		u.addPassword(op[1:])
	case '!':
		if !validHash(op[1:]) {
			return fail(ReasonBadHash)
		}
		if !u.removePassword(op[1:]) {
			return fail(ReasonNoSuchPassword)
		}
	case '~', '%':
		if reason := u.addKeyPattern(op); reason != "" {
			return fail(reason)
		}
	case '&':
		if u.allChannels {
			return fail(ReasonChannelsAfterAll)
		}
		if hasSpace(op[1:]) {
			return fail(ReasonSyntax)
		}
		if !containsString(u.channels, op[1:]) {
			u.channels = append(u.channels, op[1:])
		}
	case '+', '-':
		if reason := u.addCommandRule(op, idx); reason != "" {
			return fail(reason)
		}
	default:
		return fail(ReasonSyntax)
	}
	return nil
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
func (u *User) addKeyPattern(op string) string {
	if u.allKeys {
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
			u.allKeys = true
			u.keys = nil
			return ""
		}
	}
	if hasSpace(rest) {
		return ReasonSyntax
	}
	for i := range u.keys {
		if u.keys[i].pattern == rest {
			// Redis merges flags into the existing entry, keeping its
			// position.
			u.keys[i].perm |= perm
			return ""
		}
	}
	u.keys = append(u.keys, keyPattern{pattern: rest, perm: perm})
	return ""
}

// addCommandRule validates a +/- command or category rule and records it,
// returning a reason on failure. The permissions follow from the recorded
// rules in compile.
func (u *User) addCommandRule(op string, idx *index) string {
	allow := op[0] == '+'
	name := strings.ToLower(op[1:])
	if strings.HasPrefix(name, "@") {
		if _, ok := categoryBit(name[1:]); !ok {
			return ReasonUnknown
		}
		u.recordRule(allow, name)
		return ""
	}
	bar := strings.IndexByte(name, '|')
	if bar < 0 {
		if !commandExists(idx, name) {
			return ReasonUnknown
		}
		u.recordRule(allow, name)
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
		u.recordRule(false, name)
		return ""
	}
	if sub == "" {
		return ReasonSyntax
	}
	if idx != nil && idx.cmds[cmd].subs != nil && !subcommandExists(idx, cmd, sub) {
		return ReasonUnknown
	}
	u.recordRule(true, name)
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
func (u *User) recordRule(allow bool, name string) {
	kept := u.cmdRules[:0]
	for _, r := range u.cmdRules {
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
	u.cmdRules = append(kept, sign+name)
}

// compile derives the command bitmap from the base and retained rules
// against idx, the way Redis recomputes a selector from its rules. Rules
// naming commands idx does not know (the catalog changed) are skipped.
// allCommands is derived from the retained rules too, so "+@all -@read
// +@read" (retained as "+@all +@read") still covers unknown commands; Redis
// reaches the same state whenever it recomputes a user.
func (u *User) compile(idx *index) {
	u.idx = idx
	u.bits = make([]uint64, (idx.nbits+63)/64)
	u.firstArgs = nil
	u.allCommands = u.cmdBase
	set := func(id int, allow bool) {
		if allow {
			u.bits[id>>6] |= 1 << uint(id&63)
		} else {
			u.bits[id>>6] &^= 1 << uint(id&63)
			// Any denial ends "every command, even future ones".
			u.allCommands = false
		}
	}
	// change sets a whole command: itself and all its subcommands, and
	// forgets its first-arg exceptions, like Redis's ACLChangeSelectorPerm.
	change := func(c *command, allow bool) {
		set(c.id, allow)
		delete(u.firstArgs, c.id)
		for _, id := range c.subs {
			set(id, allow)
		}
	}
	if u.cmdBase {
		for id := 0; id < idx.nbits; id++ {
			set(id, true)
		}
	}
	for _, r := range u.cmdRules {
		allow, name := r[0] == '+', r[1:]
		if name[0] == '@' {
			bit, _ := categoryBit(name[1:])
			for _, c := range idx.sorted {
				if c.cats&bit != 0 {
					change(c, allow)
				}
			}
			continue
		}
		cmd, sub, hasSub := strings.Cut(name, "|")
		c := idx.cmds[cmd]
		if c == nil {
			continue
		}
		switch {
		case !hasSub:
			change(c, allow)
		case c.subs != nil:
			if id, ok := c.subs[sub]; ok {
				set(id, allow)
			}
		case allow:
			if u.firstArgs == nil {
				u.firstArgs = make(map[int][]string)
			}
			if !containsString(u.firstArgs[c.id], sub) {
				u.firstArgs[c.id] = append(u.firstArgs[c.id], sub)
			}
		}
	}
}
