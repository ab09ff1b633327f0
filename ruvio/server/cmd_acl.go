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

func cmdACLCat(c *conn, args [][]byte) {
	if len(args) > 3 {
		c.w.Error(command.ErrWrongArgs("acl|cat"))
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

func cmdACLHelp(c *conn, args [][]byte) {
	writeHelp(c, "ACL",
		"WHOAMI", "    Return the current connection username.",
		"LIST", "    List all users in ACL format.",
		"USERS", "    List all usernames.",
		"CAT [<category>]", "    List all commands that belong to <category>, or all command categories.",
		"SETUSER <username> <attribute> [<attribute> ...]", "    Create or modify a user with the specified attributes.",
		"DELUSER <username> [<username> ...]", "    Delete a list of users.")
}
