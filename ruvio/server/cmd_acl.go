package server

import (
	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/command"
)

func cmdACLWhoAmI(c *conn, args [][]byte) { c.w.BulkString(c.userName.Load().(string)) }

func cmdACLList(c *conn, args [][]byte) {
	lines := c.srv.acl.List()
	c.w.Array(len(lines))
	for _, l := range lines {
		c.w.BulkString(l)
	}
}

func cmdACLUsers(c *conn, args [][]byte) {
	names := c.srv.acl.Users()
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// aclSyntaxError is Redis's reply to an ACL subcommand given more
// arguments than it takes, where its arity lets them through (CAT, LOG,
// GENPASS): Redis answers them as it answers an unknown subcommand.
func aclSyntaxError(c *conn, args [][]byte) {
	c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try ACL HELP.")
}

// cmdACLCat answers ACL CAT [category]: the categories, or the commands
// of one.
func cmdACLCat(c *conn, args [][]byte) {
	if len(args) > 3 {
		aclSyntaxError(c, args)
		return
	}
	var names []string
	if len(args) == 2 {
		names = c.srv.acl.Categories()
	} else {
		var err error
		if names, err = c.srv.acl.CommandsIn(string(args[2])); err != nil {
			c.w.Error(err.Error())
			return
		}
	}
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// cmdACLSetUser answers ACL SETUSER: the rules apply all or none, a
// selector may be spread over several arguments.
func cmdACLSetUser(c *conn, args [][]byte) {
	rules := make([]string, 0, len(args)-3)
	for _, a := range args[3:] {
		rules = append(rules, string(a))
	}
	name := string(args[2])
	if err := c.srv.acl.SetUser(name, rules...); err != nil {
		c.w.Error(err.Error())
		return
	}
	c.srv.dropRevokedSubscribers(name, c)
	c.w.OK()
}

// dropRevokedSubscribers closes the connections of user name (but
// self's) subscribed to a channel, pattern or shard channel the user's
// rules no longer allow, as Redis does after ACL SETUSER: they would go
// on receiving what the user may no longer read. self, when it is one of
// them, is closed after its reply.
func (s *Server) dropRevokedSubscribers(name string, self *conn) {
	u, ok := s.acl.Get(name)
	if !ok {
		return
	}
	for _, o := range s.clientList() {
		if o.userName.Load().(string) != name || !o.sub.Active() || subscriptionsAllowed(s, u, o) {
			continue
		}
		if o == self {
			self.closeAfter = true
			continue
		}
		o.close()
	}
}

// subscriptionsAllowed reports whether every subscription of o is one
// user u may make.
func subscriptionsAllowed(s *Server, u *acl.User, o *conn) bool {
	channels, patterns, shard := s.hub.Names(o.sub)
	for _, ch := range append(channels, shard...) {
		if !u.CanChannel([]byte(ch)) {
			return false
		}
	}
	for _, p := range patterns {
		if !u.CanChannelPattern([]byte(p)) {
			return false
		}
	}
	return true
}

func cmdACLDelUser(c *conn, args [][]byte) {
	names := make([]string, 0, len(args)-2)
	for _, a := range args[2:] {
		names = append(names, string(a))
	}
	n, err := c.srv.acl.DelUser(names...)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	// Redis disconnects the clients of a deleted user.
	for _, o := range c.srv.clientsSorted() {
		for _, name := range names {
			if o != c && o.userName.Load().(string) == name {
				o.close()
			}
		}
	}
	c.w.Int(int64(n))
}

// cmdACLGetUser answers ACL GETUSER as Redis 7.0 does: a map of the
// user's flags (a set in RESP3), password hashes, root command, key and
// channel rules, and one map per selector; nil for an unknown user.
func cmdACLGetUser(c *conn, args [][]byte) {
	u, ok := c.srv.acl.Get(string(args[2]))
	if !ok {
		c.w.Null()
		return
	}
	c.w.Map(6)
	c.w.BulkString("flags")
	flags := u.Flags()
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("passwords")
	pw := u.Passwords()
	c.w.Array(len(pw))
	for _, p := range pw {
		c.w.BulkString(p)
	}
	writeSelectorFields(c, u.CommandRules(), u.KeyRules(), u.ChannelRules())
	c.w.BulkString("selectors")
	sels := u.Selectors()
	c.w.Array(len(sels))
	for _, s := range sels {
		c.w.Map(3)
		writeSelectorFields(c, s.CommandRules(), s.KeyRules(), s.ChannelRules())
	}
}

// writeSelectorFields writes the commands, keys and channels pairs that
// ACL GETUSER shows for the root permissions and for each selector.
func writeSelectorFields(c *conn, commands, keys, channels string) {
	c.w.BulkString("commands")
	c.w.BulkString(commands)
	c.w.BulkString("keys")
	c.w.BulkString(keys)
	c.w.BulkString("channels")
	c.w.BulkString(channels)
}

// cmdACLDryRun answers ACL DRYRUN <user> <command> [args...]: whether the
// user may run the command, by the check every command goes through
// (aclVerdict), without running it or logging a denial. A refusal is a
// bulk string in Redis's words, not an error.
func cmdACLDryRun(c *conn, args [][]byte) {
	u, ok := c.srv.acl.Get(string(args[2]))
	if !ok {
		c.w.Error("ERR User '" + string(args[2]) + "' not found")
		return
	}
	argv := args[3:]
	spec := c.srv.table.Lookup(argv[0])
	run := spec.Resolve(argv)
	if run == nil {
		c.w.Error("ERR Command '" + string(argv[0]) + "' not found")
		return
	}
	if !run.ArityOK(len(argv)) {
		c.w.Error(command.ErrWrongArgs(run.Name))
		return
	}
	switch v := aclVerdict(u, spec, run, argv); v.Denied {
	case acl.Allowed:
		c.w.OK()
	case acl.DeniedKey:
		c.w.BulkString("This user has no permissions to access the '" + string(argv[v.Pos]) + "' key")
	case acl.DeniedChannel:
		c.w.BulkString("This user has no permissions to access the '" + string(argv[v.Pos]) + "' channel")
	default:
		c.w.BulkString("This user has no permissions to run the '" + run.Name + "' command")
	}
}

// cmdACLGenPass answers ACL GENPASS [bits]: a random password of bits
// bits (256 by default) as hex, from crypto/rand.
func cmdACLGenPass(c *conn, args [][]byte) {
	if len(args) > 3 {
		aclSyntaxError(c, args)
		return
	}
	bits := int64(256)
	if len(args) == 3 {
		n, ok := command.ParseInt(args[2])
		if !ok {
			c.w.Error(command.ErrNotInteger)
			return
		}
		bits = n
	}
	pass, err := acl.GeneratePassword(bits)
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.BulkString(pass)
}

// errNoACLFile is Redis's reply to ACL LOAD and ACL SAVE on a server
// without an aclfile, which ruvio never has: its users come from the
// configuration.
const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

// cmdACLLoadSave answers ACL LOAD and ACL SAVE.
func cmdACLLoadSave(c *conn, args [][]byte) { c.w.Error(errNoACLFile) }

// cmdACLHelp answers ACL HELP with Redis 7.0's text.
func cmdACLHelp(c *conn, args [][]byte) {
	writeHelp(c, "ACL",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.")
}
