package streamcmd

import (
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// trimArgs are the trimming options XADD and XTRIM share.
type trimArgs struct {
	strategy   int // 0 none, 1 MAXLEN, 2 MINID
	trim       stream.Trim
	limitGiven bool
	noMkStream bool
	idGiven    bool
	id         stream.Parsed
}

const (
	trimNone = iota
	trimMaxLen
	trimMinID
)

// parseTrimArgs reads XADD's or XTRIM's options from c.Args[2:] as Redis
// does, and returns the position of XADD's ID (len(c.Args) for XTRIM), or
// -1 after writing an error.
func parseTrimArgs(c *command.Ctx, xadd bool) (trimArgs, int) {
	var a trimArgs
	var limit int64
	args := c.Args
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && string(opt) == "*":
			goto done
		case (command.Eq(opt, "maxlen") || command.Eq(opt, "minid")) && more > 0:
			if a.strategy != trimNone {
				c.W.Error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return a, -1
			}
			a.trim.Approx = false
			next := string(args[i+1])
			if more >= 2 && (next == "~" || next == "=") {
				a.trim.Approx = next == "~"
				i++
			}
			if command.Eq(opt, "maxlen") {
				n, ok := c.IntArg(args[i+1])
				if !ok {
					return a, -1
				}
				if n < 0 {
					c.W.Error("ERR The MAXLEN argument must be >= 0.")
					return a, -1
				}
				a.strategy, a.trim.MaxLen = trimMaxLen, n
			} else {
				id, ok := parseStrict(c, args[i+1])
				if !ok {
					return a, -1
				}
				a.strategy, a.trim.ByMinID, a.trim.MinID = trimMinID, true, id
			}
			i++
		case command.Eq(opt, "limit") && more > 0:
			n, ok := c.IntArg(args[i+1])
			if !ok {
				return a, -1
			}
			if n < 0 {
				c.W.Error("ERR The LIMIT argument must be >= 0.")
				return a, -1
			}
			limit, a.limitGiven = n, true
			i++
		case xadd && command.Eq(opt, "nomkstream"):
			a.noMkStream = true
		case xadd:
			p, ok := stream.ParseID(opt, true, 0, true)
			if !ok {
				c.W.Error(errInvalidID)
				return a, -1
			}
			a.idGiven, a.id = true, p
			goto done
		default:
			c.W.Error(command.ErrSyntax)
			return a, -1
		}
	}
done:
	if limit != 0 && a.strategy == trimNone {
		c.W.Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return a, -1
	}
	if !xadd && a.strategy == trimNone {
		c.W.Error("ERR syntax error, XTRIM must be called with a trimming strategy")
		return a, -1
	}
	switch {
	case a.limitGiven && !a.trim.Approx:
		c.W.Error("ERR syntax error, LIMIT cannot be used without the special ~ option")
		return a, -1
	case a.limitGiven:
		a.trim.Limit = limit
	case a.trim.Approx:
		// At most 100 nodes' worth, as Redis caps it.
		a.trim.Limit = 100 * c.DB.Shapes.Get().StreamNodeEntries
		if a.trim.Limit <= 0 {
			a.trim.Limit = 10000
		}
		a.trim.Limit = min(a.trim.Limit, 1000000)
	}
	return a, i
}

// propagateTrim records an exact trim to the length s now has, which
// reproduces whatever trim ran (approximate, limited or by ID) from the
// same stream.
func propagateTrim(c *command.Ctx, key []byte, s *stream.Stream) {
	c.Propagate([]byte("XTRIM"), key, []byte("MAXLEN"), []byte("="), command.FormatInt(int64(s.Len())))
}

func xadd(c *command.Ctx) {
	a, idpos := parseTrimArgs(c, true)
	if idpos < 0 {
		return
	}
	// Options may use up every argument before an ID (XADD s MAXLEN 1):
	// then idpos is len(c.Args), and there are no fields either.
	if n := len(c.Args) - idpos - 1; n < 2 || n%2 == 1 {
		c.W.Error(command.ErrWrongArgs("xadd"))
		return
	}
	fields := c.Args[idpos+1:]
	if a.idGiven && !a.id.SeqAuto && a.id.ID.IsZero() {
		c.W.Error("ERR The ID specified in XADD must be greater than 0-0")
		return
	}
	key := c.Args[1]
	s, ok := writeStream(c, string(key))
	if !ok {
		return
	}
	created := s == nil
	if created {
		if a.noMkStream {
			c.W.Null()
			return
		}
		s = stream.New()
	}
	shapes := c.DB.Shapes.Get()
	s.NodeMaxEntries, s.NodeMaxBytes = int(shapes.StreamNodeEntries), int(shapes.StreamNodeBytes)
	if s.LastID == stream.Max {
		c.W.Error("ERR The stream has exhausted the last possible ID, unable to add more items")
		return
	}
	var id stream.ID
	switch {
	case !a.idGiven:
		id, _ = s.NextID(uint64(max(c.Now, 0)))
	case a.id.SeqAuto:
		id = a.id.ID
		if id.Ms == s.LastID.Ms {
			if s.LastID.Seq == ^uint64(0) {
				// Redis 7.0 words this case so.
				c.W.Error("ERR Elements are too large to be stored")
				return
			}
			id.Seq = s.LastID.Seq + 1
		}
	default:
		id = a.id.ID
	}
	if !s.LastID.Less(id) {
		c.W.Error("ERR The ID specified in XADD is equal or smaller than the target stream top item")
		return
	}
	vals := make([][]byte, len(fields))
	for i, f := range fields {
		vals[i] = append([]byte(nil), f...)
	}
	s.Append(id, vals)
	writeID(c, id)
	c.Stored(string(key), s, created)
	c.Notify(notify.Stream, "xadd", key)
	eff := [][]byte{[]byte("XADD"), key, formatID(id)}
	c.Propagate(append(eff, fields...)...)
	if a.strategy != trimNone && s.Trim(a.trim) > 0 {
		c.Notify(notify.Stream, "xtrim", key)
		propagateTrim(c, key, s)
	}
}

func xlen(c *command.Ctx) {
	if s, ok := readStream(c, string(c.Args[1])); ok {
		if s == nil {
			c.W.Int(0)
			return
		}
		c.W.Int(int64(s.Len()))
	}
}

func rangeCmd(rev bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		startArg, endArg := c.Args[2], c.Args[3]
		if rev {
			startArg, endArg = endArg, startArg
		}
		start, ok := parseStart(c, startArg)
		if !ok {
			return
		}
		end, ok := parseEnd(c, endArg)
		if !ok {
			return
		}
		count := int64(-1)
		for j := 4; j < len(c.Args); j++ {
			if command.Eq(c.Args[j], "count") && j+1 < len(c.Args) {
				n, ok := c.IntArg(c.Args[j+1])
				if !ok {
					return
				}
				count = max(n, 0)
				j++
				continue
			}
			c.W.Error(command.ErrSyntax)
			return
		}
		s, ok := readStream(c, string(c.Args[1]))
		if !ok {
			return
		}
		if s == nil {
			c.W.Array(0)
			return
		}
		if count == 0 {
			c.W.NullArray()
			return
		}
		writeEntries(c, collect(s, start, end, rev, max(count, 0)))
	}
}

func xdel(c *command.Ctx) {
	key := string(c.Args[1])
	s, ok := writeStream(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	ids := make([]stream.ID, 0, len(c.Args)-2)
	for _, a := range c.Args[2:] {
		id, ok := parseStrict(c, a)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	var deleted int64
	for _, id := range ids {
		if s.Delete(id) {
			deleted++
		}
	}
	if deleted > 0 {
		// An emptied stream stays: Redis keeps streams with no entries.
		c.DB.Touch(key)
		c.Dirty += int(deleted)
		c.NotifyString(notify.Stream, "xdel", key)
	}
	c.W.Int(deleted)
}

func xtrim(c *command.Ctx) {
	a, pos := parseTrimArgs(c, false)
	if pos < 0 {
		return
	}
	key := c.Args[1]
	s, ok := writeStream(c, string(key))
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	n := s.Trim(a.trim)
	if n > 0 {
		c.DB.Touch(string(key))
		c.Dirty += int(n)
		c.Notify(notify.Stream, "xtrim", key)
		propagateTrim(c, key, s)
	}
	c.W.Int(n)
}

func xsetid(c *command.Ctx) {
	id, ok := parseStrict(c, c.Args[2])
	if !ok {
		return
	}
	entriesAdded := int64(-1)
	var maxDel stream.ID
	for i := 3; i < len(c.Args); i += 2 {
		more := len(c.Args) - 1 - i
		switch {
		case command.Eq(c.Args[i], "entriesadded") && more > 0:
			n, ok := c.IntArg(c.Args[i+1])
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error("ERR entries_added must be positive")
				return
			}
			entriesAdded = n
		case command.Eq(c.Args[i], "maxdeletedid") && more > 0:
			m, ok := parseStrict(c, c.Args[i+1])
			if !ok {
				return
			}
			if id.Less(m) {
				c.W.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
			maxDel = m
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}
	key := string(c.Args[1])
	s, ok := writeStream(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Error(command.ErrNoSuchKey)
		return
	}
	if s.Len() > 0 {
		last, _ := s.Last()
		if id.Less(last.ID) {
			c.W.Error("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if entriesAdded != -1 && int64(s.Len()) > entriesAdded {
			c.W.Error("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	s.LastID = id
	if entriesAdded != -1 {
		s.EntriesAdded = uint64(entriesAdded)
	}
	if !maxDel.IsZero() {
		s.MaxDeletedID = maxDel
	}
	// redis-server 7.0 signals no modification here: no WATCH fails, no
	// tracking client is told, no blocked reader wakes (none has entries
	// to read).
	c.Dirty++
	c.NotifyString(notify.Stream, "xsetid", key)
	c.W.OK()
}

// itoa renders n for a propagated argument.
func itoa(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
