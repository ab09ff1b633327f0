package server

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
)

// cmdCommand answers COMMAND, COMMAND COUNT, COMMAND INFO, COMMAND DOCS
// and COMMAND LIST in Redis 7's reply shapes, enough for client libraries
// that read key positions from it (go-redis ClusterClient does).
func cmdCommand(c *conn, args [][]byte) {
	t := c.srv.table
	if len(args) == 1 {
		all := t.All()
		c.w.Array(len(all))
		for _, s := range all {
			writeCommandInfo(c, s)
		}
		return
	}
	switch {
	case command.Eq(args[1], "count") && len(args) == 2:
		c.w.Int(int64(t.Len()))
	case command.Eq(args[1], "info"):
		specs := t.All()
		if len(args) > 2 {
			specs = specs[:0]
			for _, n := range args[2:] {
				specs = append(specs, lookupMaybeSub(t, n))
			}
		}
		c.w.Array(len(specs))
		for _, s := range specs {
			if s == nil {
				c.w.NullArray()
				continue
			}
			writeCommandInfo(c, s)
		}
	case command.Eq(args[1], "docs"):
		specs := t.All()
		if len(args) > 2 {
			specs = specs[:0]
			for _, n := range args[2:] {
				if s := lookupMaybeSub(t, n); s != nil {
					specs = append(specs, s)
				}
			}
		}
		c.w.Map(len(specs))
		for _, s := range specs {
			c.w.BulkString(s.Name)
			writeCommandDocs(c, s)
		}
	case command.Eq(args[1], "list") && len(args) == 2:
		all := t.All()
		c.w.Array(len(all))
		for _, s := range all {
			c.w.BulkString(s.Name)
		}
	case command.Eq(args[1], "getkeys"):
		// Redis's arity for it is -4: a command and at least one argument.
		if len(args) < 4 {
			c.w.Error(command.ErrWrongArgs("command|getkeys"))
			return
		}
		writeGetKeys(c, args[2:])
	case command.Eq(args[1], "help"):
		writeHelp(c, "COMMAND",
			"(no subcommand)", "    Return details about all commands.",
			"COUNT", "    Return the total number of commands in this server.",
			"INFO [<command-name> ...]", "    Return details about the named commands, or all of them.",
			"DOCS [<command-name> ...]", "    Return documentation details about the named commands, or all of them.",
			"LIST", "    Return a list of all commands in this server.",
			"GETKEYS <full-command>", "    Return the keys from a full Redis command.")
	default:
		c.w.Error(command.ErrUnknownSubcommand("COMMAND", string(args[1])))
	}
}

// lookupMaybeSub finds "name" or "container|sub".
func lookupMaybeSub(t *command.Table, name []byte) *command.Spec {
	parent, sub, found := strings.Cut(strings.ToLower(string(name)), "|")
	s := t.Lookup([]byte(parent))
	if s == nil || !found {
		return s
	}
	return s.LookupSub([]byte(sub))
}

// writeCommandInfo writes Redis 7's ten-element command description.
func writeCommandInfo(c *conn, s *command.Spec) {
	c.w.Array(10)
	c.w.BulkString(s.Name)
	c.w.Int(int64(s.Arity))
	flags := s.Flags.Names()
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.Simple(f)
	}
	c.w.Int(int64(s.FirstKey))
	c.w.Int(int64(s.LastKey))
	c.w.Int(int64(s.Step))
	c.w.Set(len(s.Categories))
	for _, cat := range s.Categories {
		c.w.Simple("@" + cat)
	}
	c.w.Set(0) // tips
	c.w.Array(0)
	c.w.Array(len(s.Subcommands))
	for _, sub := range s.Subcommands {
		writeCommandInfo(c, sub)
	}
}

func writeCommandDocs(c *conn, s *command.Spec) {
	group := "generic"
	if len(s.Categories) > 0 {
		group = s.Categories[len(s.Categories)-1]
	}
	for _, cat := range s.Categories {
		switch cat {
		case "string", "hash", "list", "set", "sortedset", "pubsub", "transaction", "connection":
			group = cat
		}
	}
	n := 3
	if len(s.Subcommands) > 0 {
		n++
	}
	c.w.Map(n)
	c.w.BulkString("summary")
	c.w.BulkString(s.Doc)
	c.w.BulkString("since")
	c.w.BulkString("1.0.0")
	c.w.BulkString("group")
	c.w.BulkString(group)
	if len(s.Subcommands) > 0 {
		c.w.BulkString("subcommands")
		c.w.Map(len(s.Subcommands))
		for _, sub := range s.Subcommands {
			c.w.BulkString(sub.Name)
			writeCommandDocs(c, sub)
		}
	}
}

// writeGetKeys answers COMMAND GETKEYS: the keys of a full command line,
// found as the server finds them to route and check it, with Redis 7.0's
// errors in its order (unknown command, no key arguments, bad arity).
func writeGetKeys(c *conn, cmd [][]byte) {
	run := c.srv.table.Lookup(cmd[0])
	if run == nil {
		c.w.Error("ERR Invalid command specified")
		return
	}
	if run.Subcommands != nil && len(cmd) > 1 {
		if sub := run.LookupSub(cmd[1]); sub != nil {
			run = sub
		}
	}
	if run.FirstKey == 0 && run.Keys == nil {
		c.w.Error("ERR The command has no key arguments")
		return
	}
	if !run.ArityOK(len(cmd)) {
		c.w.Error("ERR Invalid number of arguments specified for command")
		return
	}
	idx := run.KeyIndexes(cmd)
	if len(idx) == 0 {
		c.w.Error("ERR Invalid arguments specified for command")
		return
	}
	c.w.Array(len(idx))
	for _, i := range idx {
		c.w.Bulk(cmd[i])
	}
}
