package streamcmd

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// propagateClaim records the state of pending entry id as the XCLAIM
// that recreates it exactly, as Redis propagates deliveries.
func propagateClaim(c *command.Ctx, key, group []byte, g *stream.Group, id stream.ID, p *stream.Pending) {
	c.Propagate([]byte("XCLAIM"), key, group, []byte(p.Consumer.Name), []byte("0"), formatID(id),
		[]byte("TIME"), itoa(p.DeliveryTime), []byte("RETRYCOUNT"), itoa(p.DeliveryCount),
		[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), formatID(g.LastID))
	c.Dirty++
}

// propagateGroupID records a group's position as XGROUP SETID.
func propagateGroupID(c *command.Ctx, key, group []byte, g *stream.Group) {
	c.Propagate([]byte("XGROUP"), []byte("SETID"), key, group, formatID(g.LastID), []byte("ENTRIESREAD"), itoa(g.EntriesRead))
	c.Dirty++
}

// consumer finds or creates a consumer for a command that acts as it,
// recording the creation.
func consumer(c *command.Ctx, key, group []byte, g *stream.Group, name []byte) *stream.Consumer {
	con, created := g.Consumer(string(name), c.Now, true)
	if created {
		c.Propagate([]byte("XGROUP"), []byte("CREATECONSUMER"), key, group, name)
		c.Dirty++
		c.Notify(notify.Stream, "xgroup-createconsumer", key)
	}
	con.SeenTime = c.Now
	return con
}

// claimer is the consumer XCLAIM and XAUTOCLAIM claim for (Args[3]),
// made when their first claim needs it; one they make is announced as
// Redis announces it (xgroup-createconsumer). The claims they propagate
// make it on the replicas.
func claimer(c *command.Ctx, key []byte, g *stream.Group, now int64) *stream.Consumer {
	con, created := g.Consumer(string(c.Args[3]), now, true)
	if created {
		c.Notify(notify.Stream, "xgroup-createconsumer", key)
	}
	con.SeenTime = now
	return con
}

// xreadgroup is XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK]
// STREAMS key ... id ...: ">" reads entries never delivered to the group,
// any other ID the consumer's own pending entries after it.
func xreadgroup(c *command.Ctx) {
	a, ok := parseRead(c, true)
	if !ok {
		return
	}
	type target struct {
		key     []byte
		s       *stream.Stream
		g       *stream.Group
		id      stream.ID
		history bool
	}
	ts := make([]target, a.n)
	for i := range a.n {
		key := c.Args[a.streamsArg+i]
		if command.PassOverOnWake[*stream.Stream](c, key) {
			// Given another type while the client waited: for Redis the
			// stream is gone.
			c.W.Error("UNBLOCKED the stream key no longer exists")
			return
		}
		s, ok := readStream(c, string(key))
		if !ok {
			return
		}
		var g *stream.Group
		if s != nil {
			g = s.Groups[string(a.group)]
		}
		if g == nil && c.Woken {
			// The write that ended the wait took the stream or the group
			// away: Redis tells the waiting client so.
			if s == nil {
				c.W.Error("UNBLOCKED the stream key no longer exists")
			} else {
				c.W.Error("NOGROUP the consumer group this client was blocked on no longer exists")
			}
			return
		}
		if g == nil {
			c.W.Error(noGroup(key, a.group) + " in XREADGROUP with GROUP option")
			return
		}
		t := target{key: key, s: s, g: g}
		switch arg := c.Args[a.idArg(i)]; string(arg) {
		case "$":
			c.W.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
			return
		case ">":
		default:
			if t.id, ok = parseStrict(c, arg); !ok {
				return
			}
			// Redis reads ">" as the largest ID, so that ID written out
			// reads new entries too.
			t.history = t.id != stream.Max
		}
		ts[i] = t
	}
	var out []served
	for _, t := range ts {
		// As in Redis, the consumer comes to exist (and is seen) when a
		// read serves it, not when it only waits.
		if t.history {
			con := consumer(c, t.key, a.group, t.g, a.consumer)
			out = append(out, readHistory(c, t.key, a.group, t.s, t.g, con, t.id, a.count))
			continue
		}
		if t.s.Len() == 0 {
			continue
		}
		last, _ := t.s.Last()
		if !t.g.LastID.Less(last.ID) {
			continue
		}
		con := consumer(c, t.key, a.group, t.g, a.consumer)
		start, _ := t.g.LastID.Next()
		es := collect(t.s, start, stream.Max, false, a.count)
		for _, e := range es {
			t.s.Delivered(t.g, e.ID)
			if a.noAck {
				continue
			}
			p := t.g.PEL[e.ID]
			if p == nil {
				p = &stream.Pending{}
				t.g.PEL[e.ID] = p
			} else {
				delete(p.Consumer.PEL, e.ID)
			}
			p.Consumer, p.DeliveryTime, p.DeliveryCount = con, c.Now, 1
			con.PEL[e.ID] = p
			propagateClaim(c, t.key, a.group, t.g, e.ID, p)
		}
		propagateGroupID(c, t.key, a.group, t.g)
		out = append(out, served{key: t.key, entries: es})
	}
	if len(out) == 0 {
		a.wait(c)
		return
	}
	writeStreamsHead(c, len(out))
	for _, r := range out {
		writeStreamHead(c, r.key)
		c.W.Array(len(r.entries))
		for i, e := range r.entries {
			if r.missing != nil && r.missing[i] {
				c.W.Array(2)
				writeID(c, e.ID)
				c.W.NullArray()
				continue
			}
			writeEntry(c, e)
		}
	}
}

// served is what a read answers for one stream.
type served struct {
	key     []byte
	entries []stream.Entry
	// missing marks history entries deleted from the stream.
	missing []bool
}

// readHistory serves a consumer's pending entries after id: each one
// still in the stream counts as delivered again, now.
func readHistory(c *command.Ctx, key, group []byte, s *stream.Stream, g *stream.Group, con *stream.Consumer, after stream.ID, count int64) (r served) {
	r.key = key
	r.entries = []stream.Entry{}
	r.missing = []bool{}
	start, ok := after.Next()
	if !ok {
		return r
	}
	for _, id := range stream.SortedIDs(con.PEL) {
		if id.Less(start) {
			continue
		}
		if count > 0 && int64(len(r.entries)) >= count {
			break
		}
		e, found := s.Get(id)
		if !found {
			r.entries = append(r.entries, stream.Entry{ID: id})
			r.missing = append(r.missing, true)
			continue
		}
		p := con.PEL[id]
		p.DeliveryTime = c.Now
		p.DeliveryCount++
		propagateClaim(c, key, group, g, id, p)
		r.entries = append(r.entries, e)
		r.missing = append(r.missing, false)
	}
	return r
}

func xack(c *command.Ctx) {
	s, ok := readStream(c, string(c.Args[1]))
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Groups[string(c.Args[2])]
	}
	if g == nil {
		c.W.Int(0)
		return
	}
	ids := make([]stream.ID, 0, len(c.Args)-3)
	for _, a := range c.Args[3:] {
		id, ok := parseStrict(c, a)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	var n int64
	for _, id := range ids {
		if g.Ack(id) {
			n++
		}
	}
	c.Dirty += int(n)
	c.W.Int(n)
}

func xpending(c *command.Ctx) {
	args := c.Args
	summary := len(args) == 3
	if !summary && (len(args) < 6 || len(args) > 9) {
		c.W.Error(command.ErrSyntax)
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumerName []byte
	if !summary {
		at := 3
		if command.Eq(args[3], "idle") {
			n, ok := c.IntArg(args[4])
			if !ok {
				return
			}
			minIdle = n
			if len(args) < 8 {
				c.W.Error(command.ErrSyntax)
				return
			}
			at += 2
		}
		n, ok := c.IntArg(args[at+2])
		if !ok {
			return
		}
		count = max(n, 0)
		if start, ok = parseStart(c, args[at]); !ok {
			return
		}
		if end, ok = parseEnd(c, args[at+1]); !ok {
			return
		}
		if at+3 < len(args) {
			consumerName = args[at+3]
		}
	}
	s, ok := readStream(c, string(args[1]))
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Groups[string(args[2])]
	}
	if g == nil {
		c.W.Error(noGroup(args[1], args[2]))
		return
	}
	if summary {
		c.W.Array(4)
		c.W.Int(int64(len(g.PEL)))
		if len(g.PEL) == 0 {
			c.W.Null()
			c.W.Null()
			c.W.NullArray()
			return
		}
		ids := stream.SortedIDs(g.PEL)
		writeID(c, ids[0])
		writeID(c, ids[len(ids)-1])
		var owners []*stream.Consumer
		for _, name := range g.ConsumerNames() {
			if con := g.Consumers[name]; len(con.PEL) > 0 {
				owners = append(owners, con)
			}
		}
		c.W.Array(len(owners))
		for _, con := range owners {
			c.W.Array(2)
			c.W.BulkString(con.Name)
			c.W.BulkInt(int64(len(con.PEL)))
		}
		return
	}
	pel := g.PEL
	if consumerName != nil {
		con := g.Consumers[string(consumerName)]
		if con == nil {
			c.W.Array(0)
			return
		}
		pel = con.PEL
	}
	type row struct {
		id stream.ID
		p  *stream.Pending
	}
	var rows []row
	for _, id := range stream.SortedIDs(pel) {
		if int64(len(rows)) >= count {
			break
		}
		if id.Less(start) {
			continue
		}
		if end.Less(id) {
			break
		}
		p := pel[id]
		if minIdle != 0 && c.Now-p.DeliveryTime < minIdle {
			continue
		}
		rows = append(rows, row{id, p})
	}
	c.W.Array(len(rows))
	for _, r := range rows {
		c.W.Array(4)
		writeID(c, r.id)
		c.W.BulkString(r.p.Consumer.Name)
		c.W.Int(max(c.Now-r.p.DeliveryTime, 0))
		c.W.Int(r.p.DeliveryCount)
	}
}

// lookupGroup finds key's stream and group for XCLAIM and XAUTOCLAIM,
// answering NOGROUP when either is missing.
func lookupGroup(c *command.Ctx) (*stream.Stream, *stream.Group, bool) {
	s, ok := readStream(c, string(c.Args[1]))
	if !ok {
		return nil, nil, false
	}
	var g *stream.Group
	if s != nil {
		g = s.Groups[string(c.Args[2])]
	}
	if g == nil {
		c.W.Error(noGroup(c.Args[1], c.Args[2]))
		return nil, nil, false
	}
	return s, g, true
}

// claimTo moves pending entry id to con as delivered at time, counting
// the delivery unless retry (>= 0) sets the count or justID keeps it.
func claimTo(g *stream.Group, id stream.ID, p *stream.Pending, con *stream.Consumer, at, retry int64, justID bool) {
	if p.Consumer != con {
		if p.Consumer != nil {
			delete(p.Consumer.PEL, id)
		}
		p.Consumer = con
		con.PEL[id] = p
	}
	p.DeliveryTime = at
	switch {
	case retry >= 0:
		p.DeliveryCount = retry
	case !justID:
		p.DeliveryCount++
	}
	g.PEL[id] = p
}

func xclaim(c *command.Ctx) {
	s, g, ok := lookupGroup(c)
	if !ok {
		return
	}
	key, group := c.Args[1], c.Args[2]
	minIdle, ok := command.ParseInt(c.Args[4])
	if !ok {
		c.W.Error("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	j := 5
	var ids []stream.ID
	for ; j < len(c.Args); j++ {
		p, ok := stream.ParseID(c.Args[j], true, 0, false)
		if !ok {
			break
		}
		ids = append(ids, p.ID)
	}
	now := c.Now
	deliveryTime, retry := int64(-1), int64(-1)
	var force, justID bool
	var lastID stream.ID
	for ; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Args[j]
		switch {
		case command.Eq(opt, "force"):
			force = true
		case command.Eq(opt, "justid"):
			justID = true
		case (command.Eq(opt, "idle") || command.Eq(opt, "time") || command.Eq(opt, "retrycount")) && more > 0:
			j++
			n, ok := command.ParseInt(c.Args[j])
			if !ok {
				c.W.Error("ERR Invalid " + strings.ToUpper(string(opt)) + " option argument for XCLAIM")
				return
			}
			switch {
			case command.Eq(opt, "idle"):
				deliveryTime = now - n
			case command.Eq(opt, "time"):
				deliveryTime = n
			default:
				retry = n
			}
		case command.Eq(opt, "lastid") && more > 0:
			j++
			if lastID, ok = parseStrict(c, c.Args[j]); !ok {
				return
			}
		default:
			c.W.Error("ERR Unrecognized XCLAIM option '" + string(opt) + "'")
			return
		}
	}
	if deliveryTime == -1 {
		deliveryTime = now
	} else if deliveryTime < 0 || (deliveryTime > now && !c.DB.Loading && !c.DB.Replica) {
		// A replayed claim keeps the time its primary chose, even one
		// ahead of this node's clock, so the copies stay equal.
		deliveryTime = now
	}
	propagateLast := false
	if g.LastID.Less(lastID) {
		g.LastID = lastID
		propagateLast = true
	}
	var con *stream.Consumer
	var claimed []stream.Entry
	for _, id := range ids {
		p := g.PEL[id]
		e, exists := s.Get(id)
		if !exists {
			if p != nil {
				g.Ack(id)
				c.Propagate([]byte("XACK"), key, group, formatID(id))
				c.Dirty++
			}
			continue
		}
		if p == nil {
			if !force {
				continue
			}
			// Redis creates the entry delivered once, then counts
			// this claim as another delivery unless JUSTID.
			p = &stream.Pending{DeliveryCount: 1}
		} else if minIdle > 0 && now-p.DeliveryTime < minIdle {
			continue
		}
		if con == nil {
			con = claimer(c, key, g, now)
		}
		claimTo(g, id, p, con, deliveryTime, retry, justID)
		claimed = append(claimed, e)
		propagateClaim(c, key, group, g, id, p)
		propagateLast = false
	}
	if propagateLast {
		propagateGroupID(c, key, group, g)
	}
	c.W.Array(len(claimed))
	for _, e := range claimed {
		if justID {
			writeID(c, e.ID)
		} else {
			writeEntry(c, e)
		}
	}
}

func xautoclaim(c *command.Ctx) {
	minIdle, ok := command.ParseInt(c.Args[4])
	if !ok {
		c.W.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	start, ok := parseStart(c, c.Args[5])
	if !ok {
		return
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch opt := c.Args[j]; {
		case command.Eq(opt, "count") && more > 0:
			n, ok := command.ParseInt(c.Args[j+1])
			if !ok || n < 1 || n > (1<<63-1)/16 {
				c.W.Error("ERR COUNT must be > 0")
				return
			}
			count = n
			j++
		case command.Eq(opt, "justid"):
			justID = true
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}
	s, g, ok := lookupGroup(c)
	if !ok {
		return
	}
	key, group := c.Args[1], c.Args[2]
	now := c.Now
	attempts := count * 10
	var claimed []stream.Entry
	var deleted []stream.ID
	var con *stream.Consumer
	ids := stream.SortedIDs(g.PEL)
	i := 0
	for ; i < len(ids) && ids[i].Less(start); i++ {
	}
	next := stream.ID{}
	for ; i < len(ids); i++ {
		if attempts == 0 || count == 0 {
			next = ids[i]
			break
		}
		attempts--
		id := ids[i]
		p := g.PEL[id]
		e, exists := s.Get(id)
		if !exists {
			g.Ack(id)
			c.Propagate([]byte("XACK"), key, group, formatID(id))
			c.Dirty++
			deleted = append(deleted, id)
			count--
			continue
		}
		if minIdle > 0 && now-p.DeliveryTime < minIdle {
			continue
		}
		if con == nil {
			con = claimer(c, key, g, now)
		}
		claimTo(g, id, p, con, now, -1, justID)
		claimed = append(claimed, e)
		count--
		propagateClaim(c, key, group, g, id, p)
	}
	c.W.Array(3)
	writeID(c, next)
	c.W.Array(len(claimed))
	for _, e := range claimed {
		if justID {
			writeID(c, e.ID)
		} else {
			writeEntry(c, e)
		}
	}
	c.W.Array(len(deleted))
	for _, id := range deleted {
		writeID(c, id)
	}
}
