package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/glob"
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

// User is an immutable snapshot of one ACL user. Registry.SetUser never
// modifies a published User; it publishes a new one, so a *User can be read
// from any goroutine without locks. Use Latest to follow rule changes.
type User struct {
	name      string
	enabled   bool
	nopass    bool
	passwords []string // SHA-256 hex digests, insertion order, no duplicates

	// Command rules as Redis 7 retains them: a base of +@all (cmdBase) or
	// -@all, then the compacted rules in order, e.g. "-@dangerous",
	// "+config|get". The compiled fields below are derived from them.
	cmdBase  bool
	cmdRules []string

	// Compiled command permissions against idx: one bit per command and per
	// command|subcommand pair, as in Redis.
	idx  *index
	bits []uint64
	// firstArgs holds, per command id, first arguments allowed although the
	// command itself is blocked ("+select|0" for a command that has no
	// subcommands, Redis's deprecated first-arg mechanism).
	firstArgs map[int][]string
	// allCommands mirrors Redis's ALLCOMMANDS flag: +@all with nothing
	// denied since, so every command passes, including ones the index does
	// not know about.
	allCommands bool

	allKeys     bool
	keys        []keyPattern
	allChannels bool
	channels    []string

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
	c.cmdRules = append([]string(nil), u.cmdRules...)
	c.keys = append([]keyPattern(nil), u.keys...)
	c.channels = append([]string(nil), u.channels...)
	c.bits, c.firstArgs = nil, nil
	return &c
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

// bit reports whether command bit id is set.
func (u *User) bit(id int) bool {
	w := id >> 6
	return w < len(u.bits) && u.bits[w]&(1<<uint(id&63)) != 0
}

// CanRun reports whether the user may run cmd, or its subcommand sub. Both
// must be lower-case. For a command with subcommands in the catalog, sub
// names the subcommand ("" checks the command itself). For other commands
// sub is normally ""; a caller may pass the command's first argument to
// honour Redis's first-arg rules such as "+select|0".
//
// The check does not consider whether the user is enabled: as in Redis,
// "off" only stops new authentications. CanRun does not allocate.
func (u *User) CanRun(cmd, sub string) bool {
	if u == nil {
		return false
	}
	if u.allCommands {
		return true
	}
	if u.idx == nil {
		return false
	}
	c := u.idx.cmds[cmd]
	if c == nil {
		return false
	}
	if sub == "" {
		return u.bit(c.id)
	}
	if c.subs != nil {
		id, ok := c.subs[sub]
		return ok && u.bit(id)
	}
	if u.bit(c.id) {
		return true
	}
	for _, a := range u.firstArgs[c.id] {
		if strings.EqualFold(a, sub) {
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
// unclassified access is held to the strictest requirement.
func (u *User) CanKeyPerm(key []byte, perm KeyPerm) bool {
	if u == nil {
		return false
	}
	if perm == 0 {
		perm = KeyReadWrite
	}
	if u.allKeys {
		return true
	}
	for _, k := range u.keys {
		if k.perm&perm == perm && glob.Matches(k.pattern, key) {
			return true
		}
	}
	return false
}

// CanChannel reports whether the user may publish or subscribe to channel
// ch: one of the user's channel patterns must match it.
func (u *User) CanChannel(ch []byte) bool {
	if u == nil {
		return false
	}
	if u.allChannels {
		return true
	}
	for _, p := range u.channels {
		if glob.Matches(p, ch) {
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
	if u.allChannels {
		return true
	}
	for _, p := range u.channels {
		if p == string(pat) {
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

// Flags returns the user's flags as ACL GETUSER prints them: "on" or
// "off", then "nopass" if set. Redis also prints sanitize-payload; this
// package does not model payload sanitisation, so it does not claim it.
func (u *User) Flags() []string {
	f := []string{"off"}
	if u.enabled {
		f[0] = "on"
	}
	if u.nopass {
		f = append(f, "nopass")
	}
	return f
}

// Passwords returns the SHA-256 hex digests of the user's passwords.
func (u *User) Passwords() []string {
	return append([]string(nil), u.passwords...)
}

// CommandRules renders the command permissions as Redis 7 does: "+@all" or
// "-@all" followed by the retained rules, e.g. "+@all -@dangerous
// +config|get".
func (u *User) CommandRules() string {
	var b strings.Builder
	if u.cmdBase {
		b.WriteString("+@all")
	} else {
		b.WriteString("-@all")
	}
	for _, r := range u.cmdRules {
		b.WriteByte(' ')
		b.WriteString(r)
	}
	return b.String()
}

// KeyRules renders the key patterns as ACL GETUSER's "keys" field: "~*",
// the patterns separated by spaces, or "" when the user has none.
func (u *User) KeyRules() string {
	if u.allKeys {
		return "~*"
	}
	parts := make([]string, len(u.keys))
	for i, k := range u.keys {
		parts[i] = k.rule()
	}
	return strings.Join(parts, " ")
}

// ChannelRules renders the channel patterns as ACL GETUSER's "channels"
// field: "&*", the patterns separated by spaces, or "" when there are none.
func (u *User) ChannelRules() string {
	if u.allChannels {
		return "&*"
	}
	parts := make([]string, len(u.channels))
	for i, c := range u.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// Describe renders the user as a line of Redis 7's ACL LIST, e.g.
// "user default on nopass ~* &* +@all". Feeding the words after the name
// back to SetUser recreates an equivalent user.
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
	if k := u.KeyRules(); k != "" {
		b.WriteByte(' ')
		b.WriteString(k)
	}
	if !u.allChannels {
		// Redis prints resetchannels so the line also means "no channels"
		// on a server whose acl-pubsub-default is allchannels.
		b.WriteString(" resetchannels")
	}
	if c := u.ChannelRules(); c != "" {
		b.WriteByte(' ')
		b.WriteString(c)
	}
	b.WriteByte(' ')
	b.WriteString(u.CommandRules())
	return b.String()
}

// AllKeys reports whether the user may read and write every key, so a
// caller can skip per-key checks on the hot path.
func (u *User) AllKeys() bool { return u != nil && u.allKeys }
