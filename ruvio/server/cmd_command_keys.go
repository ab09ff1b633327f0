package server

import (
	"slices"

	"github.com/ruvio/ruvio/ruvio/command"
)

// writeGetKeys answers COMMAND GETKEYS, and with flags COMMAND
// GETKEYSANDFLAGS: the keys of a full command line as Redis 7.0 finds
// them, with its errors in its order (unknown command, no key arguments,
// bad arity, no keys found).
func writeGetKeys(c *conn, cmd [][]byte, withFlags bool) {
	run := c.srv.table.Lookup(cmd[0])
	if run == nil {
		c.w.Error("ERR Invalid command specified")
		return
	}
	// A container names its subcommand, as Redis looks commands up.
	if run = run.Resolve(cmd); run == nil {
		c.w.Error("ERR Invalid command specified")
		return
	}
	if run.FirstKey == 0 && run.Keys == nil {
		c.w.Error("ERR The command has no key arguments")
		return
	}
	if !run.ArityOK(len(cmd)) {
		c.w.Error("ERR Invalid number of arguments specified for command")
		return
	}
	keys := findKeys(run, cmd)
	if len(keys) == 0 {
		if run.Info != nil && slices.Contains(run.Info.ExtraFlags, "no_mandatory_keys") {
			c.w.Array(0)
			return
		}
		c.w.Error("ERR Invalid arguments specified for command")
		return
	}
	c.w.Array(len(keys))
	for _, k := range keys {
		if !withFlags {
			c.w.Bulk(cmd[k.Pos])
			continue
		}
		c.w.Array(2)
		c.w.Bulk(cmd[k.Pos])
		writeKeyFlags(c, k.Flags)
	}
}

// findKeys finds a command line's keys as Redis 7.0 does: from the key
// specs when they can say and their flags do not depend on the arguments,
// else, for the commands whose specs need it, from the server's own key
// finder (the positions it routes by, which a test checks agree with the
// specs), each with the flags of the spec that finds it or those its
// arguments decide. A command whose specs are plain ranges has no other
// finder in Redis: when they cannot say (PFMERGE without a source), it
// has no keys.
func findKeys(run *command.Spec, cmd [][]byte) []command.KeyRef {
	in := run.Info
	if in == nil {
		in = &command.Info{}
	}
	if len(in.KeySpecs) > 0 && !in.VariableFlags() {
		if keys, ok := in.FindKeys(cmd); ok {
			return keys
		}
		if in.PlainRanges() {
			return nil
		}
	}
	if badKeyCount(in, cmd) {
		return nil
	}
	idx := run.KeyIndexes(cmd)
	flags := in.SpecFlags(cmd, idx)
	keys := make([]command.KeyRef, len(idx))
	for n, i := range idx {
		keys[n] = command.KeyRef{Pos: i, Flags: flags[n]}
		if f, ok := command.ArgKeyFlags(run.Name, cmd, i); ok {
			keys[n].Flags = f
		}
	}
	return keys
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
