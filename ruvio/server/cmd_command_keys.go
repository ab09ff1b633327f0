package server

import (
	"slices"

	"github.com/ruvio/ruvio/ruvio/command"
)

// writeGetKeys answers COMMAND GETKEYS, and with flags COMMAND
// GETKEYSANDFLAGS: the keys of a full command line, found as the server
// finds them to route and check it, with Redis 7.0's errors in its order
// (unknown command, no key arguments, bad arity). Each key's flags are
// those of the key spec that finds it, or for commands whose flags depend
// on their arguments what the arguments say.
func writeGetKeys(c *conn, cmd [][]byte, withFlags bool) {
	run := c.srv.table.Lookup(cmd[0])
	if run == nil {
		c.w.Error("ERR Invalid command specified")
		return
	}
	if run.Subcommands != nil && len(cmd) > 1 {
		// A container names its subcommand, as Redis looks commands up.
		if run = run.LookupSub(cmd[1]); run == nil {
			c.w.Error("ERR Invalid command specified")
			return
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
	var idx []int
	if !badKeyCount(run.Info, cmd) {
		idx = run.KeyIndexes(cmd)
	}
	if len(idx) == 0 {
		if run.Info != nil && slices.Contains(run.Info.ExtraFlags, "no_mandatory_keys") {
			c.w.Array(0)
			return
		}
		c.w.Error("ERR Invalid arguments specified for command")
		return
	}
	c.w.Array(len(idx))
	if !withFlags {
		for _, i := range idx {
			c.w.Bulk(cmd[i])
		}
		return
	}
	flags := run.Info.SpecFlags(cmd, idx)
	for n, i := range idx {
		if f, ok := command.ArgKeyFlags(run.Name, cmd, i); ok {
			flags[n] = f
		}
		c.w.Array(2)
		c.w.Bulk(cmd[i])
		writeKeyFlags(c, flags[n])
	}
}

// badKeyCount reports whether a key count in cmd cannot be read or counts
// more keys than there are arguments: Redis then finds no keys at all,
// even those at fixed positions (ZUNIONSTORE's destination).
func badKeyCount(in *command.Info, cmd [][]byte) bool {
	if in == nil {
		return false
	}
	for _, ks := range in.KeySpecs {
		if ks.FindKeys.Type == "keynum" {
			if _, ok := ks.Find(cmd); !ok {
				return true
			}
		}
	}
	return false
}

// writeKeySpec writes one key spec as Redis 7 does: a map of notes (when
// there are any), flags, begin_search and find_keys.
func writeKeySpec(c *conn, ks command.KeySpec) {
	n := 3
	if ks.Notes != "" {
		n++
	}
	c.w.Map(n)
	if ks.Notes != "" {
		c.w.BulkString("notes")
		c.w.BulkString(ks.Notes)
	}
	c.w.BulkString("flags")
	writeKeyFlags(c, ks.Flags)
	c.w.BulkString("begin_search")
	c.w.Map(2)
	c.w.BulkString("type")
	c.w.BulkString(ks.BeginSearch.Type)
	c.w.BulkString("spec")
	switch ks.BeginSearch.Type {
	case "index":
		c.w.Map(1)
		c.w.BulkString("index")
		c.w.Int(int64(ks.BeginSearch.Index))
	case "keyword":
		c.w.Map(2)
		c.w.BulkString("keyword")
		c.w.BulkString(ks.BeginSearch.Keyword)
		c.w.BulkString("startfrom")
		c.w.Int(int64(ks.BeginSearch.StartFrom))
	default:
		c.w.Map(0)
	}
	fk := ks.FindKeys
	c.w.BulkString("find_keys")
	c.w.Map(2)
	c.w.BulkString("type")
	c.w.BulkString(fk.Type)
	c.w.BulkString("spec")
	switch fk.Type {
	case "range":
		c.w.Map(3)
		c.w.BulkString("lastkey")
		c.w.Int(int64(fk.LastKey))
		c.w.BulkString("keystep")
		c.w.Int(int64(fk.KeyStep))
		c.w.BulkString("limit")
		c.w.Int(int64(fk.Limit))
	case "keynum":
		c.w.Map(3)
		c.w.BulkString("keynumidx")
		c.w.Int(int64(fk.KeyNumIdx))
		c.w.BulkString("firstkey")
		c.w.Int(int64(fk.FirstKey))
		c.w.BulkString("keystep")
		c.w.Int(int64(fk.KeyStep))
	default:
		c.w.Map(0)
	}
}

func writeKeyFlags(c *conn, f command.KeyFlags) {
	names := f.Names()
	c.w.Set(len(names))
	for _, n := range names {
		c.w.Simple(n)
	}
}
