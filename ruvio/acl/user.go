package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
	"sync/atomic"
)

// KeyPerm is the access a command needs on a key.
type KeyPerm uint8

// Key permissions, combinable: a command that both reads and writes a key
// needs a single pattern granting both, as in Redis.
const (
	KeyRead KeyPerm = 1 << iota
	KeyWrite
	KeyReadWrite = KeyRead | KeyWrite
)

// keyPattern is one ~, %R~, %W~ or %RW~ pattern.
type keyPattern struct {
	pattern string
	perm    KeyPerm
}

// rule renders the pattern the way Redis 7 does; %RW~ prints as ~.
func (k keyPattern) rule() string {
	switch k.perm {
	case KeyRead:
		return "%R~" + k.pattern
	case KeyWrite:
		return "%W~" + k.pattern
	default:
		return "~" + k.pattern
	}
}

// slot is the registry's per-name cell holding the user's current version.
// Every version of a user points at the same slot, so a connection holding
// an old version can find the current one (or learn it was deleted).
type slot struct {
	cur atomic.Pointer[User]
}

// Payload sanitisation flags, kept so that ACL LIST and GETUSER print
// them as Redis does; see User.Flags.
const (
	sanitizeUnset uint8 = iota
	sanitizePayload
	skipSanitizePayload
)

// User is an immutable snapshot of one ACL user. Registry.SetUser never
// modifies a published User; it publishes a new one, so a *User can be read
// from any goroutine without locks. Use Latest to follow rule changes.
type User struct {
	name      string
	enabled   bool
	nopass    bool
	sanitize  uint8    // sanitizeUnset, sanitizePayload or skipSanitizePayload
	passwords []string // SHA-256 hex digests, insertion order, no duplicates

	// perms are the root permissions, the rules given outside parentheses.
	perms
	// selectors are the "(...)" rule sets of Redis 7: a command also
	// passes when one selector allows it with all its keys and channels.
	// Nil for most users, whose checks then cost what they did before
	// selectors existed.
	selectors []*perms

	// idx is the index every permission set of the user is compiled
	// against.
	idx *index

	slot *slot
}

// newUser returns a user in the state Redis gives a fresh ACL SETUSER
// target: off, no passwords, no keys, no channels (Redis 7's default
// acl-pubsub-default resetchannels) and -@all.
func newUser(name string) *User {
	return &User{name: name}
}

// clone copies u deeply enough that applying rules to the copy cannot be
// observed through u. Compiled fields are rebuilt by compile, not copied.
func (u *User) clone() *User {
	c := *u
	c.passwords = append([]string(nil), u.passwords...)
	c.perms = u.perms.clone()
	c.selectors = nil
	for _, s := range u.selectors {
		cs := s.clone()
		c.selectors = append(c.selectors, &cs)
	}
	return &c
}

// compile compiles every permission set of u against idx.
func (u *User) compile(idx *index) {
	u.idx = idx
	u.perms.compile(idx)
	for _, s := range u.selectors {
		s.compile(idx)
	}
}

// Name returns the user name.
func (u *User) Name() string { return u.name }

// Enabled reports whether the user is "on", i.e. may authenticate.
func (u *User) Enabled() bool { return u != nil && u.enabled }

// NoPass reports whether any password authenticates the user.
func (u *User) NoPass() bool { return u != nil && u.nopass }

// Latest returns the current version of this user and true, or nil and
// false if the user has since been deleted. Connections call it before each
// command so that, as in Redis, rule changes to their user apply at once
// and a deleted user's connections can be closed. It costs one atomic load.
func (u *User) Latest() (*User, bool) {
	if u == nil {
		return nil, false
	}
	if u.slot == nil {
		return u, true
	}
	cur := u.slot.cur.Load()
	return cur, cur != nil
}

// HasSelectors reports whether the user has selectors. A caller checking
// a whole command must then use Check: the single-permission methods
// below answer for the root and the selectors taken one by one, and
// cannot tell that one selector allows the command and another the key.
func (u *User) HasSelectors() bool { return u != nil && len(u.selectors) > 0 }

// Selectors returns the user's selectors in the order they were added,
// for ACL GETUSER.
func (u *User) Selectors() []Selector {
	out := make([]Selector, len(u.selectors))
	for i, s := range u.selectors {
		out[i] = Selector{s}
	}
	return out
}

// CanRun reports whether the user may run cmd, or its subcommand sub. Both
// must be lower-case. For a command with subcommands in the catalog, sub
// names the subcommand ("" checks the command itself). For other commands
// sub is normally ""; a caller may pass the command's first argument to
// honour Redis's first-arg rules such as "+select|0". With selectors, the
// root or any one selector allowing the command is enough.
//
// The check does not consider whether the user is enabled: as in Redis,
// "off" only stops new authentications. CanRun does not allocate.
func (u *User) CanRun(cmd, sub string) bool {
	if u == nil {
		return false
	}
	if u.perms.canRun(u.idx, cmd, sub) {
		return true
	}
	for _, s := range u.selectors {
		if s.canRun(u.idx, cmd, sub) {
			return true
		}
	}
	return false
}

// CanKey reports whether the user may read (write false) or write (write
// true) key.
func (u *User) CanKey(key []byte, write bool) bool {
	if write {
		return u.CanKeyPerm(key, KeyWrite)
	}
	return u.CanKeyPerm(key, KeyRead)
}

// CanKeyPerm reports whether one of the user's key patterns matches key and
// grants all of perm, which is how Redis checks a key that a command both
// reads and writes. A zero perm is treated as KeyReadWrite so that an
// unclassified access is held to the strictest requirement. With
// selectors, a pattern of the root or of any selector will do, as Redis's
// key check outside a command has it.
func (u *User) CanKeyPerm(key []byte, perm KeyPerm) bool {
	if u == nil {
		return false
	}
	if perm == 0 {
		perm = KeyReadWrite
	}
	if u.perms.canKeyPerm(key, perm) {
		return true
	}
	for _, s := range u.selectors {
		if s.canKeyPerm(key, perm) {
			return true
		}
	}
	return false
}

// CanChannel reports whether the user may publish or subscribe to channel
// ch: one of the user's channel patterns (the root's or a selector's)
// must match it.
func (u *User) CanChannel(ch []byte) bool {
	if u == nil {
		return false
	}
	if u.perms.canChannel(ch) {
		return true
	}
	for _, s := range u.selectors {
		if s.canChannel(ch) {
			return true
		}
	}
	return false
}

// CanChannelPattern reports whether the user may PSUBSCRIBE to pattern pat.
// Redis 7 requires the pattern to equal one of the user's channel patterns
// literally, since glob-matching one pattern against another is unsound.
func (u *User) CanChannelPattern(pat []byte) bool {
	if u == nil {
		return false
	}
	if u.perms.canChannelPattern(pat) {
		return true
	}
	for _, s := range u.selectors {
		if s.canChannelPattern(pat) {
			return true
		}
	}
	return false
}

// HashPassword returns the lower-case hex SHA-256 digest of pass, the form
// in which Redis stores and prints passwords.
func HashPassword(pass string) string {
	sum := sha256.Sum256([]byte(pass))
	return hex.EncodeToString(sum[:])
}

// CheckPassword reports whether pass authenticates the user, ignoring
// whether the user is enabled. Digests are compared in constant time and
// every stored digest is compared, so timing reveals neither which
// password matched nor how much of it.
func (u *User) CheckPassword(pass string) bool {
	if u == nil {
		return false
	}
	if u.nopass {
		return true
	}
	h := []byte(HashPassword(pass))
	ok := 0
	for _, p := range u.passwords {
		ok |= subtle.ConstantTimeCompare(h, []byte(p))
	}
	return ok == 1
}

// Flags returns the user's flags as ACL GETUSER prints them, in Redis's
// order: "on" or "off", "nopass" if set, then "skip-sanitize-payload" or
// "sanitize-payload" when one was given (or "reset" set the latter).
// ruvio records the sanitize flags only to show them: its RESTORE checks
// every payload whatever the user.
func (u *User) Flags() []string {
	f := []string{"off"}
	if u.enabled {
		f[0] = "on"
	}
	if u.nopass {
		f = append(f, "nopass")
	}
	switch u.sanitize {
	case skipSanitizePayload:
		f = append(f, "skip-sanitize-payload")
	case sanitizePayload:
		f = append(f, "sanitize-payload")
	}
	return f
}

// Passwords returns the SHA-256 hex digests of the user's passwords.
func (u *User) Passwords() []string {
	return append([]string(nil), u.passwords...)
}

// CommandRules renders the root command permissions as Redis 7 does:
// "+@all" or "-@all" followed by the retained rules, e.g. "+@all
// -@dangerous +config|get".
func (u *User) CommandRules() string { return u.perms.commandRules() }

// KeyRules renders the root key patterns as ACL GETUSER's "keys" field:
// "~*", the patterns separated by spaces, or "" when the user has none.
func (u *User) KeyRules() string { return u.perms.keyRules() }

// ChannelRules renders the root channel patterns as ACL GETUSER's
// "channels" field: "&*", the patterns separated by spaces, or "" when
// there are none.
func (u *User) ChannelRules() string { return u.perms.channelRules() }

// Describe renders the user as a line of Redis 7's ACL LIST, e.g.
// "user default on nopass ~* &* +@all", each selector following in
// parentheses. Feeding the words after the name back to SetUser
// recreates an equivalent user.
func (u *User) Describe() string {
	var b strings.Builder
	b.WriteString("user ")
	b.WriteString(u.name)
	for _, f := range u.Flags() {
		b.WriteByte(' ')
		b.WriteString(f)
	}
	for _, p := range u.passwords {
		b.WriteString(" #")
		b.WriteString(p)
	}
	b.WriteByte(' ')
	u.perms.describe(&b)
	for _, s := range u.selectors {
		b.WriteString(" (")
		s.describe(&b)
		b.WriteByte(')')
	}
	return b.String()
}

// AllKeys reports whether the user's root permissions allow every key,
// so a caller can skip per-key checks on the hot path. With selectors,
// whose checks go through Check, it says nothing about them.
func (u *User) AllKeys() bool { return u != nil && u.allKeys }
