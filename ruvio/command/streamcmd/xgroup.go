package streamcmd

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// subSyntax is Redis's reply to a subcommand with bad arguments.
func subSyntax(c *command.Ctx) {
	c.W.Error("ERR unknown subcommand or wrong number of arguments for '" + string(c.Args[1]) + "'. Try " +
		strings.ToUpper(string(c.Args[0])) + " HELP.")
}

// entriesReadArg parses an ENTRIESREAD value.
func entriesReadArg(c *command.Ctx, b []byte) (int64, bool) {
	n, ok := c.IntArg(b)
	if !ok {
		return 0, false
	}
	if n < 0 && n != stream.InvalidEntriesRead {
		c.W.Error("ERR value for ENTRIESREAD must be positive or -1")
		return 0, false
	}
	return n, true
}

// groupTarget looks up XGROUP's key and group: the key must hold a
// stream (unless mkstream), and needGroup requires the group.
func groupTarget(c *command.Ctx, mkstream, needGroup bool) (*stream.Stream, *stream.Group, bool) {
	s, ok := writeStream(c, string(c.Args[2]))
	if !ok {
		return nil, nil, false
	}
	if s == nil {
		if !mkstream {
			c.W.Error(errNoKeyGroup)
			return nil, nil, false
		}
		return nil, nil, true
	}
	g := s.Groups[string(c.Args[3])]
	if g == nil && needGroup {
		c.W.Error("NOGROUP No such consumer group '" + string(c.Args[3]) + "' for key name '" + string(c.Args[2]) + "'")
		return nil, nil, false
	}
	return s, g, true
}

func xgroupCreate(c *command.Ctx) {
	mkstream := false
	entriesRead := int64(stream.InvalidEntriesRead)
	for i := 5; i < len(c.Args); {
		switch {
		case command.Eq(c.Args[i], "mkstream"):
			mkstream = true
			i++
		case command.Eq(c.Args[i], "entriesread") && i+1 < len(c.Args):
			n, ok := entriesReadArg(c, c.Args[i+1])
			if !ok {
				return
			}
			entriesRead = n
			i += 2
		default:
			subSyntax(c)
			return
		}
	}
	s, g, ok := groupTarget(c, mkstream, false)
	if !ok {
		return
	}
	if len(c.Args) > 8 {
		subSyntax(c)
		return
	}
	var id stream.ID
	if string(c.Args[4]) == "$" {
		if s != nil {
			id = s.LastID
		}
	} else if id, ok = parseStrict(c, c.Args[4]); !ok {
		return
	}
	key := string(c.Args[2])
	if s == nil {
		s = stream.New()
		c.DB.Set(key, s)
	}
	if g != nil {
		c.W.Error("BUSYGROUP Consumer Group name already exists")
		return
	}
	s.Groups[string(c.Args[3])] = stream.NewGroup(id, entriesRead)
	c.Dirty++
	c.NotifyString(notify.Stream, "xgroup-create", key)
	// The ID a "$" stood for goes to the log, so replay creates the group
	// where it was created here.
	eff := [][]byte{[]byte("XGROUP"), []byte("CREATE"), c.Args[2], c.Args[3], formatID(id), []byte("ENTRIESREAD"), itoa(entriesRead)}
	if mkstream {
		eff = append(eff, []byte("MKSTREAM"))
	}
	c.Propagate(eff...)
	c.W.OK()
}

func xgroupSetID(c *command.Ctx) {
	entriesRead := int64(stream.InvalidEntriesRead)
	// Redis reads the options before it counts them: a bad ENTRIESREAD
	// is refused as such even with an argument too many after it.
	for i := 5; i < len(c.Args); i += 2 {
		if !command.Eq(c.Args[i], "entriesread") || i+1 == len(c.Args) {
			subSyntax(c)
			return
		}
		n, ok := entriesReadArg(c, c.Args[i+1])
		if !ok {
			return
		}
		entriesRead = n
	}
	if len(c.Args) != 5 && len(c.Args) != 7 {
		subSyntax(c)
		return
	}
	s, g, ok := groupTarget(c, false, true)
	if !ok {
		return
	}
	var id stream.ID
	if string(c.Args[4]) == "$" {
		id = s.LastID
	} else {
		p, ok := stream.ParseID(c.Args[4], false, 0, false)
		if !ok {
			c.W.Error(errInvalidID)
			return
		}
		id = p.ID
	}
	g.LastID, g.EntriesRead = id, entriesRead
	c.Dirty++
	c.Notify(notify.Stream, "xgroup-setid", c.Args[2])
	c.Propagate([]byte("XGROUP"), []byte("SETID"), c.Args[2], c.Args[3], formatID(id), []byte("ENTRIESREAD"), itoa(entriesRead))
	c.W.OK()
}

func xgroupDestroy(c *command.Ctx) {
	s, g, ok := groupTarget(c, false, false)
	if !ok {
		return
	}
	if g == nil {
		c.W.Int(0)
		return
	}
	delete(s.Groups, string(c.Args[3]))
	// A change to the key like any write: WATCH sees it, and clients
	// blocked in XREADGROUP on the group wake to learn it is gone.
	c.DB.Touch(string(c.Args[2]))
	c.Dirty++
	c.Notify(notify.Stream, "xgroup-destroy", c.Args[2])
	c.W.Int(1)
}

func xgroupCreateConsumer(c *command.Ctx) {
	_, g, ok := groupTarget(c, false, true)
	if !ok {
		return
	}
	if _, created := g.Consumer(string(c.Args[4]), c.Now, true); !created {
		c.W.Int(0)
		return
	}
	c.Dirty++
	c.Notify(notify.Stream, "xgroup-createconsumer", c.Args[2])
	c.W.Int(1)
}

func xgroupDelConsumer(c *command.Ctx) {
	_, g, ok := groupTarget(c, false, true)
	if !ok {
		return
	}
	// As Redis: only a consumer that was there is announced as deleted.
	n, found := g.DeleteConsumer(string(c.Args[4]))
	if found {
		c.Dirty++
		c.Notify(notify.Stream, "xgroup-delconsumer", c.Args[2])
	}
	c.W.Int(int64(n))
}

var xgroupHelpLines = []string{
	"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
	"HELP",
	"    Prints this help.",
}

func xgroupHelp(c *command.Ctx) { writeHelp(c, xgroupHelpLines) }

func writeHelp(c *command.Ctx, lines []string) {
	c.W.Array(len(lines))
	for _, l := range lines {
		c.W.Simple(l)
	}
}
