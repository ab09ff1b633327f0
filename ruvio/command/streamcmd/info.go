package streamcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// infoStream looks up XINFO's key, answering "no such key" for a
// missing one.
func infoStream(c *command.Ctx) (*stream.Stream, bool) {
	s, ok := readStream(c, string(c.Args[2]))
	if !ok {
		return nil, false
	}
	if s == nil {
		c.W.Error(command.ErrNoSuchKey)
		return nil, false
	}
	return s, true
}

func xinfoConsumers(c *command.Ctx) {
	s, ok := infoStream(c)
	if !ok {
		return
	}
	g := s.Groups[string(c.Args[3])]
	if g == nil {
		c.W.Error("NOGROUP No such consumer group '" + string(c.Args[3]) + "' for key name '" + string(c.Args[2]) + "'")
		return
	}
	names := g.ConsumerNames()
	c.W.Array(len(names))
	for _, n := range names {
		con := g.Consumers[n]
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.BulkString(n)
		c.W.BulkString("pending")
		c.W.Int(int64(len(con.PEL)))
		c.W.BulkString("idle")
		c.W.Int(max(c.Now-con.SeenTime, 0))
	}
}

// writeEntriesRead answers a group's entries-read, null when unknown.
func writeEntriesRead(c *command.Ctx, g *stream.Group) {
	if g.EntriesRead == stream.InvalidEntriesRead {
		c.W.Null()
	} else {
		c.W.Int(g.EntriesRead)
	}
}

func writeLag(c *command.Ctx, s *stream.Stream, g *stream.Group) {
	if lag, ok := s.Lag(g); ok {
		c.W.Int(lag)
	} else {
		c.W.Null()
	}
}

func xinfoGroups(c *command.Ctx) {
	s, ok := infoStream(c)
	if !ok {
		return
	}
	names := s.GroupNames()
	c.W.Array(len(names))
	for _, n := range names {
		g := s.Groups[n]
		c.W.Map(6)
		c.W.BulkString("name")
		c.W.BulkString(n)
		c.W.BulkString("consumers")
		c.W.Int(int64(len(g.Consumers)))
		c.W.BulkString("pending")
		c.W.Int(int64(len(g.PEL)))
		c.W.BulkString("last-delivered-id")
		writeID(c, g.LastID)
		c.W.BulkString("entries-read")
		writeEntriesRead(c, g)
		c.W.BulkString("lag")
		writeLag(c, s, g)
	}
}

// writeStreamHeader answers the fields XINFO STREAM starts with.
// radix-tree-nodes is Redis's count of its tree's inner nodes, which
// ruvio does not have: it answers one more than the keys, as a tree of
// short keys has.
func writeStreamHeader(c *command.Ctx, s *stream.Stream) {
	c.W.BulkString("length")
	c.W.Int(int64(s.Len()))
	c.W.BulkString("radix-tree-keys")
	c.W.Int(int64(s.Nodes()))
	c.W.BulkString("radix-tree-nodes")
	c.W.Int(int64(s.Nodes() + 1))
	c.W.BulkString("last-generated-id")
	writeID(c, s.LastID)
	c.W.BulkString("max-deleted-entry-id")
	writeID(c, s.MaxDeletedID)
	c.W.BulkString("entries-added")
	c.W.Int(int64(s.EntriesAdded))
	c.W.BulkString("recorded-first-entry-id")
	writeID(c, s.FirstID)
}

func xinfoStream(c *command.Ctx) {
	s, ok := infoStream(c)
	if !ok {
		return
	}
	full, count := false, int64(10)
	switch len(c.Args) {
	case 3:
	case 4, 6:
		if !command.Eq(c.Args[3], "full") {
			subSyntax(c)
			return
		}
		full = true
		if len(c.Args) == 6 {
			if !command.Eq(c.Args[4], "count") {
				subSyntax(c)
				return
			}
			n, ok := c.IntArg(c.Args[5])
			if !ok {
				return
			}
			if count = n; n < 0 {
				// Redis takes a negative COUNT for its default.
				count = 10
			}
		}
	default:
		subSyntax(c)
		return
	}
	if !full {
		c.W.Map(10)
		writeStreamHeader(c, s)
		c.W.BulkString("groups")
		c.W.Int(int64(len(s.Groups)))
		for _, rev := range []bool{false, true} {
			if rev {
				c.W.BulkString("last-entry")
			} else {
				c.W.BulkString("first-entry")
			}
			if es := collect(s, stream.ID{}, stream.Max, rev, 1); len(es) == 1 {
				writeEntry(c, es[0])
			} else {
				c.W.Null()
			}
		}
		return
	}
	c.W.Map(9)
	writeStreamHeader(c, s)
	c.W.BulkString("entries")
	writeEntries(c, collect(s, stream.ID{}, stream.Max, false, count))
	c.W.BulkString("groups")
	names := s.GroupNames()
	c.W.Array(len(names))
	for _, n := range names {
		g := s.Groups[n]
		c.W.Map(7)
		c.W.BulkString("name")
		c.W.BulkString(n)
		c.W.BulkString("last-delivered-id")
		writeID(c, g.LastID)
		c.W.BulkString("entries-read")
		writeEntriesRead(c, g)
		c.W.BulkString("lag")
		writeLag(c, s, g)
		c.W.BulkString("pel-count")
		c.W.Int(int64(len(g.PEL)))
		c.W.BulkString("pending")
		ids := limitIDs(stream.SortedIDs(g.PEL), count)
		c.W.Array(len(ids))
		for _, id := range ids {
			p := g.PEL[id]
			c.W.Array(4)
			writeID(c, id)
			c.W.BulkString(p.Consumer.Name)
			c.W.Int(p.DeliveryTime)
			c.W.Int(p.DeliveryCount)
		}
		c.W.BulkString("consumers")
		cons := g.ConsumerNames()
		c.W.Array(len(cons))
		for _, cn := range cons {
			con := g.Consumers[cn]
			c.W.Map(4)
			c.W.BulkString("name")
			c.W.BulkString(cn)
			c.W.BulkString("seen-time")
			c.W.Int(con.SeenTime)
			c.W.BulkString("pel-count")
			c.W.Int(int64(len(con.PEL)))
			c.W.BulkString("pending")
			ids := limitIDs(stream.SortedIDs(con.PEL), count)
			c.W.Array(len(ids))
			for _, id := range ids {
				p := con.PEL[id]
				c.W.Array(3)
				writeID(c, id)
				c.W.Int(p.DeliveryTime)
				c.W.Int(p.DeliveryCount)
			}
		}
	}
}

// limitIDs keeps the first count IDs (all when count is 0).
func limitIDs(ids []stream.ID, count int64) []stream.ID {
	if count > 0 && int64(len(ids)) > count {
		return ids[:count]
	}
	return ids
}

var xinfoHelpLines = []string{
	"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
	"HELP",
	"    Prints this help.",
}

func xinfoHelp(c *command.Ctx) { writeHelp(c, xinfoHelpLines) }
