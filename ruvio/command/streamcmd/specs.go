// Package streamcmd implements Redis's stream commands over stream.Stream:
// entries (XADD, XRANGE, XREAD, XDEL, XTRIM, XSETID), consumer groups
// (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM) and XINFO.
//
// Writes whose outcome depends on time (a generated ID, a delivery time,
// an approximate trim) propagate their resolved effect, as Redis does: XADD
// with the ID it chose, XTRIM with the exact length it reached, XCLAIM
// with the delivery time and count it set, XGROUP SETID with the group's
// position. Replay is then deterministic on replicas and from the log.
package streamcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/stream"
)

var (
	readStream  = command.LookupRead[*stream.Stream]
	writeStream = command.LookupWrite[*stream.Stream]
)

// Error replies of the stream commands, in Redis 7's words.
const (
	errInvalidID  = "ERR Invalid stream ID specified as stream command argument"
	errStartID    = "ERR invalid start ID for the interval"
	errEndID      = "ERR invalid end ID for the interval"
	errNoKeyGroup = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
)

// Specs returns the stream commands.
func Specs() []*command.Spec {
	const (
		w   = command.Write
		wf  = command.Write | command.Fast
		wdf = command.Write | command.DenyOOM | command.Fast
		wd  = command.Write | command.DenyOOM
		r   = command.ReadOnly
		rf  = command.ReadOnly | command.Fast
		bl  = command.Blocking | command.MovableKeys
		ls  = command.Loading | command.Stale
	)
	f := command.Family("stream")
	return []*command.Spec{
		f.Spec("xadd", -5, wdf, xadd),
		f.Spec("xlen", 2, rf, xlen),
		f.Spec("xrange", -4, r, rangeCmd(false)),
		f.Spec("xrevrange", -4, r, rangeCmd(true)),
		f.Spec("xdel", -3, wf, xdel),
		f.Spec("xtrim", -4, w, xtrim),
		f.Spec("xsetid", -3, wdf, xsetid),
		f.Spec("xread", -4, r|bl, xread).KeysAt(0, 0, 0).KeysBy(streamKeys),
		f.Spec("xreadgroup", -7, w|bl, xreadgroup).KeysAt(0, 0, 0).KeysBy(streamKeys),
		f.Spec("xack", -4, wf, xack),
		f.Spec("xpending", -3, r, xpending),
		f.Spec("xclaim", -6, wf, xclaim),
		f.Spec("xautoclaim", -6, wf, xautoclaim),
		command.Container("xgroup", []*command.Spec{
			f.Spec("xgroup|create", -5, wd, xgroupCreate).KeysAt(2, 2, 1),
			f.Spec("xgroup|setid", -5, w, xgroupSetID).KeysAt(2, 2, 1),
			f.Spec("xgroup|destroy", 4, w, xgroupDestroy).KeysAt(2, 2, 1),
			f.Spec("xgroup|createconsumer", 5, wd, xgroupCreateConsumer).KeysAt(2, 2, 1),
			f.Spec("xgroup|delconsumer", 5, w, xgroupDelConsumer).KeysAt(2, 2, 1),
			f.Spec("xgroup|help", 2, ls, xgroupHelp).KeysAt(0, 0, 0),
		}),
		command.Container("xinfo", []*command.Spec{
			f.Spec("xinfo|consumers", 4, r, xinfoConsumers).KeysAt(2, 2, 1),
			f.Spec("xinfo|groups", 3, r, xinfoGroups).KeysAt(2, 2, 1),
			f.Spec("xinfo|stream", -3, r, xinfoStream).KeysAt(2, 2, 1),
			f.Spec("xinfo|help", 2, ls, xinfoHelp).KeysAt(0, 0, 0),
		}),
	}
}

// streamKeys finds XREAD's and XREADGROUP's keys: the first half of the
// arguments after STREAMS. An unbalanced list yields none; the command
// reports it.
func streamKeys(args [][]byte) []int {
	for i := 1; i < len(args); i++ {
		if command.Eq(args[i], "streams") {
			n := len(args) - i - 1
			if n == 0 || n%2 != 0 {
				return nil
			}
			out := make([]int, n/2)
			for j := range out {
				out[j] = i + 1 + j
			}
			return out
		}
	}
	return nil
}

// parseStrict parses an ID argument that must be a plain ID, writing the
// error when it is not.
func parseStrict(c *command.Ctx, b []byte) (stream.ID, bool) {
	p, ok := stream.ParseID(b, true, 0, false)
	if !ok {
		c.W.Error(errInvalidID)
	}
	return p.ID, ok
}

// parseInterval parses a range bound: an ID, "-" or "+", or an exclusive
// "(ID"; missingSeq completes a bare millisecond part.
func parseInterval(c *command.Ctx, b []byte, missingSeq uint64) (id stream.ID, exclusive, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		p, ok := stream.ParseID(b[1:], true, missingSeq, false)
		if !ok {
			c.W.Error(errInvalidID)
		}
		return p.ID, true, ok
	}
	p, ok := stream.ParseID(b, false, missingSeq, false)
	if !ok {
		c.W.Error(errInvalidID)
	}
	return p.ID, false, ok
}

// parseStart and parseEnd parse the two bounds of a range, moving an
// exclusive bound inwards.
func parseStart(c *command.Ctx, b []byte) (stream.ID, bool) {
	id, ex, ok := parseInterval(c, b, 0)
	if ok && ex {
		if id, ok = id.Next(); !ok {
			c.W.Error(errStartID)
		}
	}
	return id, ok
}

func parseEnd(c *command.Ctx, b []byte) (stream.ID, bool) {
	id, ex, ok := parseInterval(c, b, ^uint64(0))
	if ok && ex {
		if id, ok = id.Prev(); !ok {
			c.W.Error(errEndID)
		}
	}
	return id, ok
}

// writeID answers an ID as a bulk string.
func writeID(c *command.Ctx, id stream.ID) { c.W.Bulk(id.Append(nil)) }

// writeEntry answers an entry as [id, [field, value, ...]].
func writeEntry(c *command.Ctx, e stream.Entry) {
	c.W.Array(2)
	writeID(c, e.ID)
	c.W.Array(len(e.Fields))
	for _, f := range e.Fields {
		c.W.Bulk(f)
	}
}

// writeEntries answers a list of entries.
func writeEntries(c *command.Ctx, es []stream.Entry) {
	c.W.Array(len(es))
	for _, e := range es {
		writeEntry(c, e)
	}
}

// collect returns up to count (0: all) entries from start to end.
func collect(s *stream.Stream, start, end stream.ID, rev bool, count int64) []stream.Entry {
	var out []stream.Entry
	if s == nil {
		return out
	}
	s.Range(start, end, rev, func(e stream.Entry) bool {
		out = append(out, e)
		return count == 0 || int64(len(out)) < count
	})
	return out
}

// noGroup is the NOGROUP reply of the commands that take a key and a
// group.
func noGroup(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'"
}

// formatID renders an ID for a propagated argument.
func formatID(id stream.ID) []byte { return id.Append(nil) }
