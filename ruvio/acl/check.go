package acl

// Denial says why the ACL refused something. Its order is Redis's: when
// no permission set allows a command, the refusal reported is the
// greatest, so a key or channel refusal tells more than "command".
type Denial uint8

// Denials, as ACL LOG's "reason" names them.
const (
	// Allowed is no denial.
	Allowed Denial = iota
	// DeniedCommand: the command (or subcommand) is not allowed.
	DeniedCommand
	// DeniedKey: a key of the command is not allowed.
	DeniedKey
	// DeniedAuth: AUTH or HELLO ... AUTH failed.
	DeniedAuth
	// DeniedChannel: a channel of the command is not allowed.
	DeniedChannel
)

// String returns ACL LOG's name of the reason.
func (d Denial) String() string {
	switch d {
	case Allowed:
		return "allowed"
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedAuth:
		return "auth"
	case DeniedChannel:
		return "channel"
	}
	return "unknown"
}

// ChannelUse says which arguments of a command are pub/sub channels, the
// way Redis 7.0 checks them.
type ChannelUse uint8

// Channel uses.
const (
	// NoChannels: the command names no channel (UNSUBSCRIBE and the like
	// count as none: leaving is always allowed).
	NoChannels ChannelUse = iota
	// PublishChannel: the first argument is a channel (PUBLISH, SPUBLISH).
	PublishChannel
	// SubscribeChannels: every argument is a channel (SUBSCRIBE,
	// SSUBSCRIBE).
	SubscribeChannels
	// SubscribePatterns: every argument is a pattern, which must equal one
	// of the user's channel patterns literally (PSUBSCRIBE).
	SubscribePatterns
)

// KeyRef is one key a command names: its position in the arguments and
// the access the command needs to it.
type KeyRef struct {
	Pos  int
	Perm KeyPerm
}

// Access describes a command for User.Check: everything the permission
// sets are checked against, so the package needs no command table.
type Access struct {
	// Cmd is the lower-case command name, Sub the lower-case subcommand of
	// a container command ("" for none).
	Cmd, Sub string
	// FirstArg is the first argument of a command without subcommands,
	// for first-arg rules such as "+select|0"; nil for none.
	FirstArg []byte
	// Exempt marks the commands no user's rules refuse (AUTH, HELLO, QUIT,
	// RESET): their keys and channels are still checked.
	Exempt bool
	// Args are the command's arguments, the name first.
	Args [][]byte
	// Keys are the keys the command names, in the order Redis checks
	// them.
	Keys []KeyRef
	// Channels says which arguments are channels.
	Channels ChannelUse
}

// Verdict is the outcome of a check: Allowed, or why not and, for a key
// or a channel, its position in the arguments (what ACL LOG names and
// ACL DRYRUN quotes).
type Verdict struct {
	Denied Denial
	Pos    int
}

// Check decides whether the user may run the command a describes, as Redis
// 7.0 does: the root permissions, then each selector in turn, are asked
// whether they allow the command with all its keys and channels; the first
// that does lets it run. When none does, the verdict is the greatest
// refusal among them (channel, then key, then command) and, among refusals
// of one kind, the one at the furthest argument, as Redis picks the
// refusal it reports.
func (u *User) Check(a *Access) Verdict {
	if u == nil {
		return Verdict{Denied: DeniedCommand}
	}
	v := u.perms.check(u.idx, a)
	if v.Denied == Allowed {
		return v
	}
	for _, s := range u.selectors {
		sv := s.check(u.idx, a)
		if sv.Denied == Allowed {
			return sv
		}
		if sv.Denied > v.Denied || (sv.Denied == v.Denied && sv.Pos > v.Pos) {
			v = sv
		}
	}
	return v
}

// check is Check for one permission set: the command, then its keys in
// order, then its channels.
func (p *perms) check(idx *index, a *Access) Verdict {
	if !a.Exempt && !p.canRun(idx, a.Cmd, a.Sub) &&
		(a.Sub != "" || len(a.FirstArg) == 0 || !p.canRun(idx, a.Cmd, string(a.FirstArg))) {
		return Verdict{Denied: DeniedCommand}
	}
	if !p.allKeys {
		for _, k := range a.Keys {
			perm := k.Perm
			if perm == 0 {
				perm = KeyReadWrite
			}
			if !p.canKeyPerm(a.Args[k.Pos], perm) {
				return Verdict{Denied: DeniedKey, Pos: k.Pos}
			}
		}
	}
	if p.allChannels || a.Channels == NoChannels {
		return Verdict{}
	}
	last := len(a.Args) - 1
	if a.Channels == PublishChannel {
		last = min(last, 1)
	}
	for i := 1; i <= last; i++ {
		ok := false
		if a.Channels == SubscribePatterns {
			ok = p.canChannelPattern(a.Args[i])
		} else {
			ok = p.canChannel(a.Args[i])
		}
		if !ok {
			return Verdict{Denied: DeniedChannel, Pos: i}
		}
	}
	return Verdict{}
}
