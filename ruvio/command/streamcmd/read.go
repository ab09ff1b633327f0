package streamcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// readArgs are XREAD's and XREADGROUP's parsed options.
type readArgs struct {
	blocks     bool
	timeoutMs  int64
	count      int64
	streamsArg int
	n          int
	group      []byte
	consumer   []byte
	noAck      bool
}

// parseRead reads the options before STREAMS; ok is false after an error
// was written.
func parseRead(c *command.Ctx, group bool) (a readArgs, ok bool) {
	args := c.Args
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case command.Eq(o, "block") && more > 0:
			i++
			ms, ok := command.ParseInt(args[i])
			if !ok {
				c.W.Error("ERR timeout is not an integer or out of range")
				return a, false
			}
			if ms < 0 {
				c.W.Error(command.ErrTimeoutNegative)
				return a, false
			}
			a.blocks, a.timeoutMs = true, ms
		case command.Eq(o, "count") && more > 0:
			i++
			n, ok := c.IntArg(args[i])
			if !ok {
				return a, false
			}
			a.count = max(n, 0)
		case command.Eq(o, "streams") && more > 0:
			a.streamsArg = i + 1
			if (len(args)-a.streamsArg)%2 != 0 {
				c.W.Error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return a, false
			}
			a.n = (len(args) - a.streamsArg) / 2
			goto parsed
		case command.Eq(o, "group") && more >= 2:
			if !group {
				c.W.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.group, a.consumer = args[i+1], args[i+2]
			i += 2
		case command.Eq(o, "noack"):
			if !group {
				c.W.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.noAck = true
		default:
			c.W.Error(command.ErrSyntax)
			return a, false
		}
	}
parsed:
	if a.streamsArg == 0 {
		c.W.Error(command.ErrSyntax)
		return a, false
	}
	if group && a.group == nil {
		c.W.Error("ERR Missing GROUP option for XREADGROUP")
		return a, false
	}
	return a, true
}

// keys returns the stream keys of a parsed read.
func (a readArgs) keys(c *command.Ctx) [][]byte { return c.Args[a.streamsArg : a.streamsArg+a.n] }

// idArg returns the position of the ID argument of stream i.
func (a readArgs) idArg(i int) int { return a.streamsArg + a.n + i }

// wait waits for the keys or, inside MULTI or without BLOCK, answers the
// null array a timeout answers.
func (a readArgs) wait(c *command.Ctx) {
	if !a.blocks || c.InMulti {
		c.W.NullArray()
		return
	}
	c.BlockOn(a.keys(c), a.timeoutMs)
}

// xread is XREAD [COUNT n] [BLOCK ms] STREAMS key ... id .... A "$" is
// resolved to the stream's last ID in the argument itself before
// blocking, so the retry after a wake-up reads what arrived meanwhile.
func xread(c *command.Ctx) {
	a, ok := parseRead(c, false)
	if !ok {
		return
	}
	ids := make([]stream.ID, a.n)
	streams := make([]*stream.Stream, a.n)
	for i := range a.n {
		var s *stream.Stream
		// A key given another type while the client waited is passed
		// over: the client goes on waiting, as in Redis.
		if key := c.Args[a.streamsArg+i]; !command.PassOverOnWake[*stream.Stream](c, key) {
			if s, ok = readStream(c, string(key)); !ok {
				return
			}
		}
		streams[i] = s
		arg := c.Args[a.idArg(i)]
		switch string(arg) {
		case "$":
			if s != nil {
				ids[i] = s.LastID
			}
			continue
		case ">":
			c.W.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
			return
		}
		if ids[i], ok = parseStrict(c, arg); !ok {
			return
		}
	}
	type result struct {
		key     []byte
		entries []stream.Entry
	}
	var out []result
	for i, s := range streams {
		if s == nil || s.Len() == 0 {
			continue
		}
		last, _ := s.Last()
		if !ids[i].Less(last.ID) {
			continue
		}
		start, _ := ids[i].Next()
		out = append(out, result{c.Args[a.streamsArg+i], collect(s, start, stream.Max, false, a.count)})
	}
	if len(out) == 0 {
		if a.blocks && !c.InMulti {
			for i := range a.n {
				c.Args[a.idArg(i)] = formatID(ids[i])
			}
		}
		a.wait(c)
		return
	}
	writeStreamsHead(c, len(out))
	for _, r := range out {
		writeStreamHead(c, r.key)
		writeEntries(c, r.entries)
	}
}

// writeStreamsHead starts the reply of a read of n streams: a map from
// key to entries in RESP3, an array of [key, entries] pairs in RESP2.
func writeStreamsHead(c *command.Ctx, n int) {
	if c.W.Proto >= 3 {
		c.W.Map(n)
	} else {
		c.W.Array(n)
	}
}

// writeStreamHead starts one stream's part of a read's reply.
func writeStreamHead(c *command.Ctx, key []byte) {
	if c.W.Proto < 3 {
		c.W.Array(2)
	}
	c.W.Bulk(key)
}
