package server

import (
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
	if err := c.srv.acl.SetUser(string(args[2]), rules...); err != nil {
		c.w.Error(err.Error())
		return
	}
	c.w.OK()
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
