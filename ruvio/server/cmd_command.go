package server

import (
	"slices"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/glob"
)

// cmdCommand answers COMMAND and its subcommands COUNT, INFO, DOCS, LIST,
// GETKEYS, GETKEYSANDFLAGS and HELP in Redis 7's reply shapes, for client
// libraries that read key positions, key specs and tips from them
// (go-redis ClusterClient does). COMMAND itself is not a container in the
// table, so COMMAND INFO COMMAND lists no subcommands.
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
	case command.Eq(args[1], "count"):
		if len(args) != 2 {
			c.w.Error(command.ErrWrongArgs("command|count"))
			return
		}
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
				c.w.Null() // a null bulk string in RESP2, as Redis's
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
	case command.Eq(args[1], "list"):
		keep, ok := listFilter(args[2:])
		if !ok {
			c.w.Error(command.ErrSyntax)
			return
		}
		// Subcommands are listed too, as Redis lists them, while COUNT
		// counts only the top-level commands.
		var names []string
		for _, s := range t.All() {
			for _, s := range append([]*command.Spec{s}, s.Subcommands...) {
				if keep(s) {
					names = append(names, s.Name)
				}
			}
		}
		c.w.Array(len(names))
		for _, n := range names {
			c.w.BulkString(n)
		}
	case command.Eq(args[1], "getkeys"):
		// Redis's arity for it is -4: a command and at least one argument.
		if len(args) < 4 {
			c.w.Error(command.ErrWrongArgs("command|getkeys"))
			return
		}
		writeGetKeys(c, args[2:], false)
	case command.Eq(args[1], "getkeysandflags"):
		if len(args) < 4 {
			c.w.Error(command.ErrWrongArgs("command|getkeysandflags"))
			return
		}
		writeGetKeys(c, args[2:], true)
	case command.Eq(args[1], "help"):
		if len(args) != 2 {
			c.w.Error(command.ErrWrongArgs("command|help"))
			return
		}
		writeHelp(c, "COMMAND",
			"(no subcommand)", "    Return details about all commands.",
			"COUNT", "    Return the total number of commands in this server.",
			"INFO [<command-name> ...]", "    Return details about the named commands, or all of them.",
			"DOCS [<command-name> ...]", "    Return documentation details about the named commands, or all of them.",
			"LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
			"    Return a list of all commands in this server, or of those the filter keeps.",
			"GETKEYS <full-command>", "    Return the keys from a full Redis command.",
			"GETKEYSANDFLAGS <full-command>", "    Return the keys from a full Redis command and what it does with each of them.")
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

// writeCommandInfo writes Redis 7's ten-element command description. The
// first key, last key and step of a command with key specs are derived
// from them as Redis derives them, and so is the movablekeys flag.
func writeCommandInfo(c *conn, s *command.Spec) {
	in := s.Info
	if in == nil {
		in = &command.Info{}
	}
	c.w.Array(10)
	c.w.BulkString(s.Name)
	c.w.Int(int64(s.Arity))
	first, last, step := s.FirstKey, s.LastKey, s.Step
	flags := s.Flags
	if len(in.KeySpecs) > 0 {
		var movable bool
		first, last, step, movable = command.LegacyRange(in.KeySpecs)
		flags &^= command.MovableKeys
		if movable {
			flags |= command.MovableKeys
		}
	}
	names := infoFlagNames(flags, in.ExtraFlags)
	c.w.Set(len(names))
	for _, f := range names {
		c.w.Simple(f)
	}
	c.w.Int(int64(first))
	c.w.Int(int64(last))
	c.w.Int(int64(step))
	c.w.Set(len(s.Categories))
	for _, cat := range s.Categories {
		c.w.Simple("@" + cat)
	}
	// Tips are bulk strings and key specs a set in Redis's RESP3 replies;
	// subcommands are an array, or an empty set when there are none.
	c.w.Set(len(in.Tips))
	for _, tip := range in.Tips {
		c.w.BulkString(tip)
	}
	c.w.Set(len(in.KeySpecs))
	for _, ks := range in.KeySpecs {
		writeKeySpec(c, ks)
	}
	if len(s.Subcommands) == 0 {
		c.w.Set(0)
		return
	}
	c.w.Array(len(s.Subcommands))
	for _, sub := range s.Subcommands {
		writeCommandInfo(c, sub)
	}
}

// redisFlagOrder is the order COMMAND INFO lists flags in.
var redisFlagOrder = []string{"write", "readonly", "denyoom", "module", "admin", "pubsub", "noscript",
	"blocking", "loading", "stale", "skip_monitor", "skip_slowlog", "asking", "fast", "no_auth",
	"may_replicate", "sentinel", "only_sentinel", "no_mandatory_keys", "protected", "no_async_loading",
	"no_multi", "movablekeys", "allow_busy"}

// infoFlagNames merges a command's flags and its extra flag names in
// Redis's order.
func infoFlagNames(f command.Flags, extra []string) []string {
	have := map[string]bool{}
	for _, n := range f.Names() {
		have[n] = true
	}
	for _, n := range extra {
		have[n] = true
	}
	out := make([]string, 0, len(have))
	for _, n := range redisFlagOrder {
		if have[n] {
			out = append(out, n)
			delete(have, n)
		}
	}
	// A flag Redis does not know (none today) goes last rather than
	// nowhere.
	for _, n := range f.Names() {
		if have[n] {
			out = append(out, n)
		}
	}
	return out
}

// writeCommandDocs writes COMMAND DOCS's map for one command: ruvio's own
// summary (left out while a command has none), then since, group,
// complexity, doc flags and deprecation as Redis 7.0 reports them, then
// the subcommands. Redis's arguments and history are not reported: clients
// that read them for hints find none, as for a module's command.
func writeCommandDocs(c *conn, s *command.Spec) {
	in := s.Info
	if in == nil {
		in = &command.Info{}
	}
	group := in.Group
	if group == "" {
		group = fallbackGroup(s)
	}
	var fields []string
	if s.Doc != "" {
		fields = append(fields, "summary", s.Doc)
	}
	if in.Since != "" {
		fields = append(fields, "since", in.Since)
	}
	fields = append(fields, "group", group)
	if in.Complexity != "" {
		fields = append(fields, "complexity", in.Complexity)
	}
	n := len(fields) / 2
	if len(in.DocFlags) > 0 {
		n++
	}
	if in.DeprecatedSince != "" {
		n += 2
	}
	if len(s.Subcommands) > 0 {
		n++
	}
	c.w.Map(n)
	for _, f := range fields {
		c.w.BulkString(f)
	}
	if len(in.DocFlags) > 0 {
		c.w.BulkString("doc_flags")
		c.w.Set(len(in.DocFlags))
		for _, f := range in.DocFlags {
			c.w.Simple(f)
		}
	}
	if in.DeprecatedSince != "" {
		c.w.BulkString("deprecated_since")
		c.w.BulkString(in.DeprecatedSince)
		c.w.BulkString("replaced_by")
		c.w.BulkString(in.ReplacedBy)
	}
	if len(s.Subcommands) > 0 {
		c.w.BulkString("subcommands")
		c.w.Map(len(s.Subcommands))
		for _, sub := range s.Subcommands {
			c.w.BulkString(sub.Name)
			writeCommandDocs(c, sub)
		}
	}
}

// fallbackGroup guesses the group of a command Redis does not have from
// its ACL categories.
func fallbackGroup(s *command.Spec) string {
	group := "server"
	for _, cat := range s.Categories {
		switch cat {
		case "string", "hash", "list", "set", "sortedset", "pubsub", "transaction", "connection":
			group = cat
		}
	}
	if group == "sortedset" {
		group = "sorted-set"
	}
	return group
}

// listFilter reads COMMAND LIST's arguments: none, or FILTERBY with
// MODULE (ruvio has no modules, so none is kept), ACLCAT (a category
// name, any case, without '@') or PATTERN (a glob over the full name,
// any case).
func listFilter(args [][]byte) (keep func(*command.Spec) bool, ok bool) {
	switch {
	case len(args) == 0:
		return func(*command.Spec) bool { return true }, true
	case len(args) != 3 || !command.Eq(args[0], "filterby"):
		return nil, false
	case command.Eq(args[1], "module"):
		return func(*command.Spec) bool { return false }, true
	case command.Eq(args[1], "aclcat"):
		cat := strings.ToLower(string(args[2]))
		return func(s *command.Spec) bool { return slices.Contains(s.Categories, cat) }, true
	case command.Eq(args[1], "pattern"):
		pat := args[2]
		return func(s *command.Spec) bool { return glob.MatchFold(pat, s.Name) }, true
	}
	return nil, false
}
