package acl

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/glob"
)

// perms is one set of command, key and channel permissions: a user's root
// permissions, or one of its selectors (Redis 7's "(...)" rules). Redis
// keeps both as the same structure, and a command passes when one of them
// allows the command together with all its keys and channels, so the
// checks below are written once, per set.
type perms struct {
	// Command rules as Redis 7 retains them: a base of +@all (cmdBase) or
	// -@all, then the compacted rules in order, e.g. "-@dangerous",
	// "+config|get". The compiled fields below are derived from them.
	cmdBase  bool
	cmdRules []string

	// Compiled command permissions against the user's index: one bit per
	// command and per command|subcommand pair, as in Redis.
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
}

// clone copies p deeply enough that applying rules to the copy cannot be
// observed through p. Compiled fields are rebuilt by compile, not copied.
func (p perms) clone() perms {
	p.cmdRules = append([]string(nil), p.cmdRules...)
	p.keys = append([]keyPattern(nil), p.keys...)
	p.channels = append([]string(nil), p.channels...)
	p.bits, p.firstArgs = nil, nil
	return p
}

// bit reports whether command bit id is set.
func (p *perms) bit(id int) bool {
	w := id >> 6
	return w < len(p.bits) && p.bits[w]&(1<<uint(id&63)) != 0
}

// canRun is User.CanRun for one set of permissions compiled against idx.
func (p *perms) canRun(idx *index, cmd, sub string) bool {
	if p.allCommands {
		return true
	}
	if idx == nil {
		return false
	}
	c := idx.cmds[cmd]
	if c == nil {
		return false
	}
	if sub == "" {
		return p.bit(c.id)
	}
	if c.subs != nil {
		id, ok := c.subs[sub]
		return ok && p.bit(id)
	}
	if p.bit(c.id) {
		return true
	}
	for _, a := range p.firstArgs[c.id] {
		if strings.EqualFold(a, sub) {
			return true
		}
	}
	return false
}

// canKeyPerm is User.CanKeyPerm for one set of permissions; perm is not 0.
func (p *perms) canKeyPerm(key []byte, perm KeyPerm) bool {
	if p.allKeys {
		return true
	}
	for _, k := range p.keys {
		if k.perm&perm == perm && glob.Matches(k.pattern, key) {
			return true
		}
	}
	return false
}

// canChannel is User.CanChannel for one set of permissions.
func (p *perms) canChannel(ch []byte) bool {
	if p.allChannels {
		return true
	}
	for _, pat := range p.channels {
		if glob.Matches(pat, ch) {
			return true
		}
	}
	return false
}

// canChannelPattern is User.CanChannelPattern for one set of permissions.
func (p *perms) canChannelPattern(pat []byte) bool {
	if p.allChannels {
		return true
	}
	for _, c := range p.channels {
		if c == string(pat) {
			return true
		}
	}
	return false
}

// commandRules renders the command permissions as Redis 7 does: "+@all"
// or "-@all" followed by the retained rules.
func (p *perms) commandRules() string {
	var b strings.Builder
	if p.cmdBase {
		b.WriteString("+@all")
	} else {
		b.WriteString("-@all")
	}
	for _, r := range p.cmdRules {
		b.WriteByte(' ')
		b.WriteString(r)
	}
	return b.String()
}

// keyRules renders the key patterns as ACL GETUSER's "keys" field.
func (p *perms) keyRules() string {
	if p.allKeys {
		return "~*"
	}
	parts := make([]string, len(p.keys))
	for i, k := range p.keys {
		parts[i] = k.rule()
	}
	return strings.Join(parts, " ")
}

// channelRules renders the channel patterns as ACL GETUSER's "channels"
// field.
func (p *perms) channelRules() string {
	if p.allChannels {
		return "&*"
	}
	parts := make([]string, len(p.channels))
	for i, c := range p.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe appends the permissions as ACL LIST prints them, Redis's
// order: keys, channels (with "resetchannels" so the text also means "no
// channels" on a server whose acl-pubsub-default is allchannels), then
// the command rules.
func (p *perms) describe(b *strings.Builder) {
	if k := p.keyRules(); k != "" {
		b.WriteString(k)
		b.WriteByte(' ')
	}
	if !p.allChannels {
		b.WriteString("resetchannels ")
	}
	if c := p.channelRules(); c != "" {
		b.WriteString(c)
		b.WriteByte(' ')
	}
	b.WriteString(p.commandRules())
}

// Selector is a read-only view of one of a user's selectors, for ACL
// GETUSER.
type Selector struct{ p *perms }

// Describe returns the selector's rules as they appear between the
// parentheses of an ACL LIST line.
func (s Selector) Describe() string {
	var b strings.Builder
	s.p.describe(&b)
	return b.String()
}

// CommandRules is the selector's "commands" field in ACL GETUSER.
func (s Selector) CommandRules() string { return s.p.commandRules() }

// KeyRules is the selector's "keys" field in ACL GETUSER.
func (s Selector) KeyRules() string { return s.p.keyRules() }

// ChannelRules is the selector's "channels" field in ACL GETUSER.
func (s Selector) ChannelRules() string { return s.p.channelRules() }

// compile derives the command bitmap from the base and retained rules
// against idx, the way Redis recomputes a selector from its rules. Rules
// naming commands idx does not know (the catalog changed) are skipped.
// allCommands is derived from the retained rules too, so "+@all -@read
// +@read" (retained as "+@all +@read") still covers unknown commands; Redis
// reaches the same state whenever it recomputes a user.
func (p *perms) compile(idx *index) {
	p.bits = make([]uint64, (idx.nbits+63)/64)
	p.firstArgs = nil
	p.allCommands = p.cmdBase
	set := func(id int, allow bool) {
		if allow {
			p.bits[id>>6] |= 1 << uint(id&63)
		} else {
			p.bits[id>>6] &^= 1 << uint(id&63)
			// Any denial ends "every command, even future ones".
			p.allCommands = false
		}
	}
	// change sets a whole command: itself and all its subcommands, and
	// forgets its first-arg exceptions, like Redis's ACLChangeSelectorPerm.
	change := func(c *command, allow bool) {
		set(c.id, allow)
		delete(p.firstArgs, c.id)
		for _, id := range c.subs {
			set(id, allow)
		}
	}
	if p.cmdBase {
		for id := 0; id < idx.nbits; id++ {
			set(id, true)
		}
	}
	for _, r := range p.cmdRules {
		allow, name := r[0] == '+', r[1:]
		if name[0] == '@' {
			// As Redis's ACLSetSelectorCommandBitsForCategory: a
			// container of the category changes whole, and each
			// subcommand of it changes on its own.
			bit, _ := categoryBit(name[1:])
			for _, c := range idx.sorted {
				if c.cats&bit != 0 {
					change(c, allow)
				}
				for i, s := range c.subNames {
					if c.subCats[i]&bit != 0 {
						set(c.subs[s], allow)
					}
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
			if p.firstArgs == nil {
				p.firstArgs = make(map[int][]string)
			}
			if !containsString(p.firstArgs[c.id], sub) {
				p.firstArgs[c.id] = append(p.firstArgs[c.id], sub)
			}
		}
	}
}
