package server

import (
	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
)

// aclVerdict decides whether user u may run args, where spec is the
// command and run the subcommand that runs (spec itself for a plain
// command). It is the one ACL check: every command a client sends, queues
// or has a script call goes through it (checkACL), and so does ACL
// DRYRUN, so the two never disagree.
//
// Most users have no selectors: rootAllows answers for them at the cost
// the check always had, and the full check (acl.User.Check), which also
// says why and where a command was refused, runs only on a denial or for
// a user with selectors.
func aclVerdict(u *acl.User, spec, run *command.Spec, args [][]byte) acl.Verdict {
	if !u.HasSelectors() && rootAllows(u, spec, run, args) {
		return acl.Verdict{}
	}
	var keys [8]acl.KeyRef
	a := accessOf(spec, run, args, keys[:0])
	return u.Check(&a)
}

// rootAllows is the check for a user without selectors, kept to what
// used to be the whole check: no allocation, and the per-key loop only for
// a user without ~*. When it allows a command, so would acl.User.Check;
// when it does not, aclVerdict asks Check, which has the last word.
func rootAllows(u *acl.User, spec, run *command.Spec, args [][]byte) bool {
	// The commands a connection may send before it authenticates (AUTH,
	// HELLO, QUIT, RESET) are no user's to refuse, as in Redis: a user
	// without them can still log in as another. A command allowed only
	// by a first-arg rule ("+select|0") is left to the full check: such
	// rules are rare.
	if spec.Flags&command.NoAuth == 0 && !u.CanRun(spec.Name, subName(spec, run)) {
		return false
	}
	if (run.FirstKey > 0 || run.Keys != nil) && !u.AllKeys() {
		write := run.Flags&command.Write != 0
		var buf [8]int
		for _, i := range run.AppendKeyIndexes(buf[:0], args) {
			if !u.CanKey(args[i], write) {
				return false
			}
		}
	}
	if run.Flags&command.PubSub == 0 {
		return true
	}
	switch channelUse(run.Name) {
	case acl.PublishChannel:
		return len(args) < 2 || u.CanChannel(args[1])
	case acl.SubscribeChannels:
		for _, ch := range args[1:] {
			if !u.CanChannel(ch) {
				return false
			}
		}
	case acl.SubscribePatterns:
		for _, p := range args[1:] {
			if !u.CanChannelPattern(p) {
				return false
			}
		}
	}
	return true
}

// accessOf describes a command for acl.User.Check, appending its keys to
// keys (a caller's buffer, so that a short list needs no allocation).
func accessOf(spec, run *command.Spec, args [][]byte, keys []acl.KeyRef) acl.Access {
	a := acl.Access{
		Cmd:    spec.Name,
		Sub:    subName(spec, run),
		Exempt: spec.Flags&command.NoAuth != 0,
		Args:   args,
	}
	if spec.Subcommands == nil && len(args) > 1 {
		a.FirstArg = args[1]
	}
	if run.FirstKey > 0 || run.Keys != nil {
		perm := acl.KeyRead
		if run.Flags&command.Write != 0 {
			perm = acl.KeyWrite
		}
		var buf [8]int
		for _, i := range run.AppendKeyIndexes(buf[:0], args) {
			keys = append(keys, acl.KeyRef{Pos: i, Perm: perm})
		}
		a.Keys = keys
	}
	if run.Flags&command.PubSub != 0 {
		a.Channels = channelUse(run.Name)
	}
	return a
}

// subName is the subcommand's own name ("get" for CONFIG GET), or ""
// when run is the command itself.
func subName(spec, run *command.Spec) string {
	if run == spec || len(run.Name) <= len(spec.Name) {
		return ""
	}
	return run.Name[len(spec.Name)+1:]
}

// channelUse says which arguments of a pub/sub command are channels, as
// Redis 7.0 checks them: PUBLISH's and SPUBLISH's first, every one of
// SUBSCRIBE and SSUBSCRIBE, every pattern of PSUBSCRIBE (matched
// literally). Unsubscribing is always allowed.
func channelUse(name string) acl.ChannelUse {
	switch name {
	case "publish", "spublish":
		return acl.PublishChannel
	case "subscribe", "ssubscribe":
		return acl.SubscribeChannels
	case "psubscribe":
		return acl.SubscribePatterns
	}
	return acl.NoChannels
}

// noPermReply is the NOPERM error a client gets for a denied command,
// in Redis 7.0's words.
func noPermReply(v acl.Verdict, spec, run *command.Spec) string {
	switch v.Denied {
	case acl.DeniedKey:
		return acl.ErrNoPermKey()
	case acl.DeniedChannel:
		return acl.ErrNoPermChannel()
	}
	return acl.ErrNoPermCommand(spec.Name, subName(spec, run))
}

// aclContext names where a denied command came from, for ACL LOG: from,
// when the check runs on someone's behalf (a script's command, EXEC's
// check), else a command queued while a transaction is open, or one the
// client sent.
func (c *conn) aclContext(from string) string {
	switch {
	case from != "":
		return from
	case c.multi:
		return acl.ContextMulti
	}
	return acl.ContextToplevel
}

// logDenial records in the ACL log that user u was refused args (spec,
// run) for v, checked on behalf of from (aclContext). It runs only on a
// denial.
func (c *conn) logDenial(u *acl.User, v acl.Verdict, spec, run *command.Spec, args [][]byte, from string) {
	object := run.Name
	if v.Denied == acl.DeniedKey || v.Denied == acl.DeniedChannel {
		object = string(args[v.Pos])
	}
	c.srv.addACLLog(acl.LogEntry{
		Reason:   v.Denied,
		Context:  c.aclContext(from),
		Object:   object,
		Username: u.Name(),
	}, c)
}

// logAuthFailure records in the ACL log that cmd (AUTH or HELLO, as the
// client spelt it) failed to authenticate as user.
func (c *conn) logAuthFailure(cmd []byte, user string) {
	ctx := acl.ContextToplevel
	if c.multi || c.execOps != nil {
		ctx = acl.ContextMulti
	}
	c.srv.addACLLog(acl.LogEntry{
		Reason:   acl.DeniedAuth,
		Context:  ctx,
		Object:   string(cmd),
		Username: user,
	}, c)
}

// addACLLog stamps e with the time and c's CLIENT LIST line and adds it
// to the ACL log, kept to acllog-max-len entries.
func (s *Server) addACLLog(e acl.LogEntry, c *conn) {
	e.TimeMs = clock.NowMs()
	e.ClientInfo = c.describe()
	s.cfgMu.RLock()
	maxLen := s.cfg.Tunables.AcllogMaxLen
	s.cfgMu.RUnlock()
	s.acl.Log().Add(e, maxLen)
}
